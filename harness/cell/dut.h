/* A lab host with its drivers opened: what the CLI verbs act on. */
#ifndef AIRLAB_DUT_H
#define AIRLAB_DUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../drivers/console/expect.h"
#include "../drivers/driver.h"

/* What the console says once a DUT has booted: airlab's virtual image
 * prints it, and so does the OpenWrt image's rc.local
 * (dut-images/openwrt/); a lab sets another with power `ready_marker:`. */
#define DUT_READY_MARKER "airlab-init: ready"
/* How long a power cycle leaves the DUT off unless power `off_s:` says. */
#define DUT_OFF_S 1
/* What a Linux kernel prints when it gives up: on the console during a
 * boot wait, the boot has failed and waiting out boot_timeout_s is
 * pointless. */
#define DUT_PANIC_MARKER "Kernel panic - not syncing"
/* Boots a bring-up tries before a kernel panic fails it, unless power
 * `boot_attempts:` says. */
#define DUT_BOOT_ATTEMPTS 2

struct dut {
	struct drv_target power_t, flash_t, console_t, shell_t;
	const struct lab_host *host;
	const struct power_ops *power;
	struct power_dev *power_dev;
	const struct flash_ops *flash;
	const struct console_ops *console;
	const struct shell_ops *shell;
	struct shell_dev *shell_dev;
	int boot_timeout_s;
	int off_s; /* a power cycle's time off */
	int boot_attempts;
	char ready_marker[128];
	/* The last boot wait ended in a kernel panic (its line). */
	bool boot_panicked;
	char boot_panic[256];
	/* <host state dir>/console.log: everything read from the console,
	 * timestamped (console/expect.h). */
	char console_log[4096 + 16];
	long long console_log_start; /* its size when this dut was opened */
	char lock[LAB_NAME_MAX + 8]; /* "dut-NAME" while held, else "" */
};

/* Takes the host's lock (one airlab process drives a DUT at a time,
 * util/lock.h), looks the drivers up and opens power (console and shell
 * open on use). dut_close gives the lock back, also after a failed open. */
int dut_open(struct dut *d, const struct lab *lab, const char *host,
	     struct al_err *err);
/* The same without the lock, to watch a DUT another airlab drives
 * (console, shell, status). */
int dut_observe(struct dut *d, const struct lab *lab, const char *host,
		struct al_err *err);
void dut_close(struct dut *d);

int dut_power_set(struct dut *d, bool on, struct al_err *err);
int dut_power_get(struct dut *d, bool *on, struct al_err *err);
/* Off, proven off, off_s seconds, on, proven back (console ready marker
 * and an SSH answer). */
int dut_power_cycle(struct dut *d, struct al_err *err);

/* Opens the console as an expect session logging to d->console_log. */
int dut_console_open(struct dut *d, struct console_session *s,
		     struct al_err *err);
/* Waits on the console for `marker` within timeout_s. */
int dut_console_expect(struct dut *d, const char *marker, int timeout_s,
		       struct al_err *err);
/* Copies what the console log gained since dut_open to DIR/console.log. */
int dut_console_log_save(struct dut *d, const char *dir, struct al_err *err);
/* What a flash driver may use of this DUT (driver.h). */
void dut_flash_env(struct dut *d, struct flash_env *env);
/* Waits for the boot to finish: the ready marker on the console, then an
 * SSH answer; without a console, an SSH answer within boot_timeout_s.
 * A kernel panic on the console fails it at once, with boot_panicked
 * set. */
int dut_wait_ready(struct dut *d, struct al_err *err);

/* Runs cmd over the shell driver (opened on first use, waiting up to
 * timeout_s for it to answer). */
int dut_run(struct dut *d, const char *cmd, const void *in, size_t inlen,
	    int out_fd, int err_fd, int *status, int timeout_s,
	    struct al_err *err);
/* Copies a local file to remote_path on the host (permission bits mode)
 * through the shell driver's upload op. */
int dut_upload(struct dut *d, const char *local, const char *remote, int mode,
	       int timeout_s, struct al_err *err);
/* Runs cmd and captures stdout into a malloc'd string (*out). */
int dut_run_capture(struct dut *d, const char *cmd, char **out, int *status,
		    int timeout_s, struct al_err *err);

/* The same with in (may be NULL) on its stdin and, when err_out is not
 * NULL, its stderr captured there too (else passed to ours). */
int dut_run_io(struct dut *d, const char *cmd, const char *in, char **out,
	       char **err_out, int *status, int timeout_s, struct al_err *err);
/* Starts cmd on the host with its stdin and stdout as local pipes, for
 * long-lived line protocols (airlab-agent). A child process holds its own
 * shell session and pumps; *pid is that child: its exit status is the
 * remote command's (255: the session failed, reason on stderr). Closing
 * *to_fd ends the remote command's input. */
int dut_spawn(struct dut *d, const char *cmd, int *to_fd, int *from_fd,
	      pid_t *pid, int timeout_s, struct al_err *err);

#endif
