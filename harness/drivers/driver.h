/* Driver kinds. Each kind is one ops struct; each driver is one file that
 * fills it; a registry maps the lab file's `driver:` name to the ops.
 * Resources (what a device is) live in lab/; drivers only know how to talk
 * to one. Every op returns 0 on success or -1 with err naming the device,
 * the port and what was tried. */
#ifndef AIRLAB_DRIVER_H
#define AIRLAB_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../lab/lab.h"
#include "../util/err.h"

struct drv_setting;

/* What every driver instance is bound to. */
struct drv_target {
	const struct lab *lab;
	const struct lab_host *host;
	const struct lab_binding *binding;
};

/* ---- power: only set and get a port (power_cycle is generic) ---- */
struct power_dev;
struct power_ops {
	const char *name;
	int (*open)(struct power_dev **out, const struct drv_target *t,
		    struct al_err *err);
	int (*set)(struct power_dev *d, bool on, struct al_err *err);
	int (*get)(struct power_dev *d, bool *on, struct al_err *err);
	void (*close)(struct power_dev *d);
	/* What the driver takes from its binding (drv_settings_read). */
	const struct drv_setting *settings;
};

/* ---- flash: put a stack variant's image onto the DUT ---- */
struct flash_image {
	const char *variant;   /* variant name, e.g. "stock-6.1" */
	const char *kernel;    /* kernel series, e.g. "6.1" */
	const char *cell_conf; /* DUT cell configuration text */
};
/* What a flash driver may use of the rest of its DUT: a bootloader is
 * reached over the console after a power cycle, sysupgrade over the shell.
 * Any member may be NULL when the lab file does not configure it; a driver
 * that needs it says so. */
struct flash_env {
	const char *dut; /* host name, for messages */
	const struct console_ops *console;
	const struct drv_target *console_t;
	const char *console_log; /* append what the console says here */
	const struct shell_ops *shell;
	const struct drv_target *shell_t;
	/* Switches the DUT's power and reads it back. */
	int (*power_set)(void *ctx, bool on, struct al_err *err);
	void *power_ctx;
	int boot_timeout_s;
	int off_s; /* how long a power cycle leaves the DUT off */
};
struct flash_ops {
	const char *name;
	/* false: the image waits for the next power-on (qemu-image); true:
	 * the driver boots the new image itself (bootloader, sysupgrade) and
	 * returns while it comes up. */
	bool boots;
	int (*flash)(const struct drv_target *t, const struct flash_image *img,
		     const struct flash_env *env, struct al_err *err);
	/* What the driver takes from its binding (drv_settings_read). */
	const struct drv_setting *settings;
};

/* ---- console: a serial port ---- */
struct console_dev;
struct console_ops {
	const char *name;
	int (*open)(struct console_dev **out, const struct drv_target *t,
		    struct al_err *err);
	/* Reads what is available within timeout_ms; returns bytes read (0 on
	 * timeout) or -1. */
	ssize_t (*read)(struct console_dev *d, void *buf, size_t len,
			int timeout_ms, struct al_err *err);
	int (*write)(struct console_dev *d, const void *buf, size_t len,
		     struct al_err *err);
	/* A file descriptor that polls readable when data waits (for the
	 * interactive console), or -1. */
	int (*fd)(struct console_dev *d);
	void (*close)(struct console_dev *d);
	/* What the driver takes from its binding (drv_settings_read). */
	const struct drv_setting *settings;
};

/* ---- shell: run a command on the host ---- */
struct shell_dev;
/* Told how far an upload got: done of total bytes. */
typedef void (*shell_progress_fn)(void *ctx, long long done, long long total);
struct shell_ops {
	const char *name;
	/* Waits up to timeout_ms for the host to answer; it returns sooner
	 * only on a failure that waiting cannot fix (a wrong host key, a
	 * refused login key, a bad setting). */
	int (*open)(struct shell_dev **out, const struct drv_target *t,
		    int timeout_ms, struct al_err *err);
	/* Runs cmd; stdin_data (may be NULL) is written to its stdin, which is
	 * then closed; its stdout/stderr go to the given fds (-1: discard).
	 * *exit_status receives the remote exit status. */
	int (*run)(struct shell_dev *d, const char *cmd, const void *stdin_data,
		   size_t stdin_len, int out_fd, int err_fd, int *exit_status,
		   struct al_err *err);
	/* Like run, but stdin is streamed from in_fd until it reaches EOF
	 * (for long-lived line protocols such as airlab-agent's). */
	int (*stream)(struct shell_dev *d, const char *cmd, int in_fd,
		      int out_fd, int err_fd, int *exit_status,
		      struct al_err *err);
	/* Optional (NULL: the driver cannot): copies the local file to
	 * remote_path on the host (created or replaced, permission bits
	 * mode) and checks the size it has there; progress (may be NULL)
	 * is called as the bytes go out. */
	int (*upload)(struct shell_dev *d, const char *local_path,
		      const char *remote_path, int mode,
		      shell_progress_fn progress, void *progress_ctx,
		      struct al_err *err);
	void (*close)(struct shell_dev *d);
	/* What the driver takes from its binding (drv_settings_read). */
	const struct drv_setting *settings;
};

/* ---- attenuator: set and read path loss per channel ---- */
struct atten_dev;
struct atten_ops {
	const char *name;
	int (*open)(struct atten_dev **out, const struct drv_target *t,
		    struct al_err *err);
	int (*set_db)(struct atten_dev *d, int channel, double db,
		      struct al_err *err);
	int (*get_db)(struct atten_dev *d, int channel, double *db,
		      struct al_err *err);
	void (*close)(struct atten_dev *d);
	/* What the driver takes from its binding (drv_settings_read). */
	const struct drv_setting *settings;
};

/* ---- ap: the cell's access point on its host ---- */
/* What the topology asks of the AP (topology `ap:`). */
struct ap_config {
	const char *variant; /* recorded with the AP: what it was set up for */
	const char *radio;   /* an interface (wlan0) or a phy (phy0) */
	const char *ssid;
	const char *passphrase;
	int channel;
	bool ht;
	const int *basic_rates; /* 100 kb/s units; n = 0: the band's */
	int nbasic_rates;
	const char *address; /* IPv4/prefix for the AP's interface, "" none */
};
/* A running AP as its driver found it. */
struct ap_info {
	char iface[16];	   /* the AP's wireless interface */
	char phy[32];	   /* its phy ({phy} in variant knobs) */
	char wired[16];	   /* the wired side (binding `wired:`), "" none */
	char version[128]; /* hostapd -v's first line */
	char variant[64];  /* what the AP was set up for, "" unknown */
	char state[32];	   /* hostapd's state: ENABLED when it serves */
};
/* How an AP driver reaches its host: through the host's shell driver,
 * lent by the caller. run executes cmd (a POSIX sh command line) with in
 * (may be NULL) on its stdin; *out (malloc'd, may be NULL) gets stdout,
 * *err_out (may be NULL) stderr. */
struct ap_env {
	const char *host; /* for messages */
	int (*run)(void *ctx, const char *cmd, const char *in, char **out,
		   char **err_out, int *status, int timeout_s,
		   struct al_err *err);
	void *ctx;
};
struct ap_ops {
	const char *name;
	/* Checks the binding's settings; called before the lab is touched. */
	int (*check)(const struct drv_target *t, struct al_err *err);
	/* Brings the AP up as cfg says and fills info; an AP that does not
	 * come up leaves nothing of airlab's running on the host. */
	int (*start)(const struct drv_target *t, const struct ap_env *env,
		     const struct ap_config *cfg, struct ap_info *info,
		     struct al_err *err);
	/* Reads the running AP (info->state "" when none runs). */
	int (*status)(const struct drv_target *t, const struct ap_env *env,
		      const struct ap_config *cfg, struct ap_info *info,
		      struct al_err *err);
	/* Stops the AP and removes what start created. */
	int (*stop)(const struct drv_target *t, const struct ap_env *env,
		    const struct ap_config *cfg, struct al_err *err);
	/* Optional (NULL: the AP's host runs no stations, they are all on
	 * station hosts): the rows of the stations the AP's host runs
	 * itself, "station=NAME associated=..." lines (stations_parse),
	 * after waiting up to wait_s for them to associate; *rows is
	 * malloc'd. */
	int (*stations)(const struct drv_target *t, const struct ap_env *env,
			int wait_s, char **rows, struct al_err *err);
	/* What the driver takes from its binding (drv_settings_read). */
	const struct drv_setting *settings;
};

/* ---- settings: what a driver takes from its binding ----
 * Each driver declares its settings in one table and reads them with
 * drv_settings_read into a config struct of its own: a key the table does
 * not list, a required one that is missing and a value of the wrong type
 * or out of range are refused alike, as bad input, with the lab file's
 * line. An empty value counts as absent. */
enum drv_setting_type {
	DRV_TEXT,   /* char[]: the text as it is */
	DRV_LINE,   /* char[]: one line, no control characters */
	DRV_PATH,   /* char[]: {state} and {images} expanded */
	DRV_INT,    /* int from min to max; decimal, or hex with 0x */
	DRV_DOUBLE, /* double from min to max */
	DRV_BOOL,   /* bool: yes, no (true, false, on, off, 1, 0 also do) */
	DRV_CHOICE, /* int: the value of the name given, one of choices */
};
struct drv_choice {
	const char *name;
	int value;
};
/* "on" 1, "off" 0: for a setting passed on as on or off. */
extern const struct drv_choice drv_on_off[];
/* A table is an array of these ending with a row whose name is NULL. */
struct drv_setting {
	const char *name;
	enum drv_setting_type type;
	/* Read as if the lab file said it; NULL: an absent setting leaves
	 * the field as the caller set it (a default known only at run time,
	 * or a mark for "not given"). */
	const char *default_value;
	double min, max;		  /* DRV_INT, DRV_DOUBLE */
	bool required;			  /* then default_value is NULL */
	const struct drv_choice *choices; /* DRV_CHOICE; ends with name NULL */
	const char *what;    /* said when it is missing: "the relay, 1 to 8" */
	size_t offset, size; /* the field: DRV_FIELD(struct conf, member) */
};
#define DRV_FIELD(conf, member)                                                \
	.offset = offsetof(conf, member), .size = sizeof(((conf *)0)->member)

/* A relay board's `port:` row: the relay, 1 to 8, required. */
#define POWER_RELAY_PORT(conf, member)                                         \
	{                                                                      \
		.name = "port", .type = DRV_INT, .min = 1, .max = 8,           \
		.required = true, .what = "the relay, 1 to 8",                 \
		DRV_FIELD(conf, member)                                        \
	}

/* Checks t's binding against table and fills conf. Errors, one line:
 *   FILE:LINE: dut1 power (driver X): unknown setting 'k' (known: ...)
 *   FILE:LINE: dut1 power (driver X): setting k is missing (WHAT)
 *   FILE:LINE: dut1 power (driver X): k 'v' is not a whole number from
 *   1 to 8
 * with the setting's line, or the binding's for a missing one. A power
 * binding also takes the DUT's own keys (power_dut_settings) and an
 * attenuator's its `paths`: the layer above the driver reads them. */
int drv_settings_read(const struct drv_target *t,
		      const struct drv_setting *table, void *conf,
		      struct al_err *err);
/* The same without refusing keys table does not list: for keys of a
 * binding that are not its driver's (cell/dut.c). */
int drv_settings_fill(const struct drv_target *t,
		      const struct drv_setting *table, void *conf,
		      struct al_err *err);
/* Whether a table is sound: unique names, a field of its type's size, a
 * range that is one, defaults that read and are in range, no default on
 * a required setting. For the tests: a table is fixed at build time. */
int drv_settings_table_check(const struct drv_setting *table,
			     struct al_err *err);
/* For a driver's own checks of what a table cannot say: the line of
 * setting key, or of the binding when it is absent; and the error for
 * its value, "FILE:LINE: dut1 ap (driver X): key 'v' WHY" (-1). */
int drv_setting_line(const struct drv_target *t, const char *key);
int drv_setting_invalid(const struct drv_target *t, const char *key,
			const char *why, struct al_err *err);
/* The DUT's keys on its host's power binding: boot_timeout_s,
 * ready_marker, off_s, boot_attempts. Defined by cell/dut.c, which reads
 * them into its struct dut. */
extern const struct drv_setting power_dut_settings[];

/* Registry lookups by `driver:` name; on a miss err lists the known
 * names of that kind. */
const struct power_ops *power_driver(const char *name, struct al_err *err);
const struct flash_ops *flash_driver(const char *name, struct al_err *err);
const struct console_ops *console_driver(const char *name, struct al_err *err);
const struct shell_ops *shell_driver(const char *name, struct al_err *err);
const struct atten_ops *atten_driver(const char *name, struct al_err *err);
const struct ap_ops *ap_driver(const char *name, struct al_err *err);

/* The drivers (one file each). */
extern const struct power_ops power_qemu_ops;	    /* power/qemu.c */
extern const struct power_ops power_command_ops;    /* power/command.c */
extern const struct power_ops power_ftdi_relay_ops; /* power/ftdi_relay.c */
extern const struct power_ops
    power_usb_hid_relay_ops;			    /* power/usb_hid_relay.c */
extern const struct flash_ops flash_qemu_image_ops; /* flash/qemu_image.c */
extern const struct flash_ops flash_uboot_tftp_ops; /* flash/uboot_tftp.c */
extern const struct flash_ops flash_sysupgrade_ops; /* flash/sysupgrade.c */
extern const struct console_ops console_serial_ops; /* console/serial.c */
extern const struct shell_ops shell_ssh_ops;	    /* shell/ssh.c */
extern const struct atten_ops atten_medium_ops;	    /* atten/medium.c */
extern const struct atten_ops atten_minicircuits_http_ops;
extern const struct atten_ops atten_minicircuits_telnet_ops;
extern const struct atten_ops atten_minicircuits_usb_ops;
extern const struct ap_ops ap_hostapd_ops; /* ap/hostapd.c */
extern const struct ap_ops ap_virtual_ops; /* ap/virtual.c */

#endif
