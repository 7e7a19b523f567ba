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
};

/* Refuses a setting of t's binding that is none of known[0..n) with
 * "file:line: dut1 power (driver X): unknown setting 'k' (known: ...)".
 * A power binding also takes the DUT's own keys (power_dut_settings:
 * boot_timeout_s, ready_marker, off_s, boot_attempts), read by
 * cell/dut.c. */
int drv_check_settings(const struct drv_target *t, const char *const *known,
		       size_t n, struct al_err *err);
/* A relay board's `port:` (the relay, 1 to 8), required. */
int power_relay_port(const struct drv_target *t, long *port,
		     struct al_err *err);
extern const char *const power_dut_settings[];
extern const size_t power_dut_nsettings;

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
