#include "dut.h"
#include "../util/lock.h"
#include "../util/path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SSH_WAIT_S 60

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void bind_target(struct drv_target *t, const struct lab *lab,
			const struct lab_host *h, const struct lab_binding *b)
{
	t->lab = lab;
	t->host = h;
	t->binding = b;
}

#define STRINGIFY(x) #x
#define TEXT_OF(x)   STRINGIFY(x)

const struct drv_setting power_dut_settings[] = {
    {.name = "boot_timeout_s",
     .type = DRV_INT,
     .default_value = "120",
     .min = 1,
     .max = 86400,
     DRV_FIELD(struct dut, boot_timeout_s)},
    {.name = "ready_marker",
     .type = DRV_TEXT,
     .default_value = DUT_READY_MARKER,
     DRV_FIELD(struct dut, ready_marker)},
    {.name = "off_s",
     .type = DRV_INT,
     .default_value = TEXT_OF(DUT_OFF_S),
     .min = 0,
     .max = 86400,
     DRV_FIELD(struct dut, off_s)},
    {.name = "boot_attempts",
     .type = DRV_INT,
     .default_value = TEXT_OF(DUT_BOOT_ATTEMPTS),
     .min = 1,
     .max = 86400,
     DRV_FIELD(struct dut, boot_attempts)},
    {0},
};

static int open_host(struct dut *d, const struct lab *lab, const char *name,
		     bool lock, struct al_err *err)
{
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->host = lab_host_find(lab, name);
	if (!d->host)
		return al_errf(err, "%s: no host '%s' in this lab", lab->path,
			       name);
	bind_target(&d->power_t, lab, d->host, &d->host->power);
	snprintf(d->lock, sizeof(d->lock), "dut-%s", lock ? name : "");
	if (!lock)
		d->lock[0] = 0;
	else if (lock_take(lab->state_dir, d->lock, name, err) < 0) {
		d->lock[0] = 0;
		return -1;
	}
	bind_target(&d->flash_t, lab, d->host, &d->host->flash);
	bind_target(&d->console_t, lab, d->host, &d->host->console);
	bind_target(&d->shell_t, lab, d->host, &d->host->shell);
	/* The console log lives with the host's state, for every driver. */
	if (path_mkdirs(d->host->state_dir) < 0)
		return al_errf(err, "%s: cannot create state dir %s: %s", name,
			       d->host->state_dir, strerror(errno));
	snprintf(d->console_log, sizeof(d->console_log), "%s/console.log",
		 d->host->state_dir);
	d->console_log_start =
	    stat(d->console_log, &st) == 0 ? (long long)st.st_size : 0;
	/* The power driver only lets these through; they are the DUT's. */
	if (drv_settings_fill(&d->power_t, power_dut_settings, d, err) < 0)
		return -1;

	/* A station host may have only a shell: no power driver. */
	if (d->host->power.driver[0] &&
	    (!(d->power = power_driver(d->host->power.driver, err)) ||
	     d->power->open(&d->power_dev, &d->power_t, err) < 0))
		return al_err_prefix(err, "%s:%d: %s power", lab->path,
				     d->host->power.line, name);
	if (d->host->flash.driver[0] &&
	    !(d->flash = flash_driver(d->host->flash.driver, err)))
		return al_err_prefix(err, "%s:%d: %s", lab->path,
				     d->host->flash.line, name);
	if (d->host->console.driver[0] &&
	    !(d->console = console_driver(d->host->console.driver, err)))
		return al_err_prefix(err, "%s:%d: %s", lab->path,
				     d->host->console.line, name);
	if (!(d->shell = shell_driver(d->host->shell.driver, err)))
		return al_err_prefix(err, "%s:%d: %s", lab->path,
				     d->host->shell.line, name);
	return 0;
}

int dut_open(struct dut *d, const struct lab *lab, const char *name,
	     struct al_err *err)
{
	return open_host(d, lab, name, true, err);
}

int dut_observe(struct dut *d, const struct lab *lab, const char *name,
		struct al_err *err)
{
	return open_host(d, lab, name, false, err);
}

static void shell_drop(struct dut *d)
{
	if (d->shell_dev)
		d->shell->close(d->shell_dev);
	d->shell_dev = NULL;
}

void dut_close(struct dut *d)
{
	shell_drop(d);
	if (d->power_dev)
		d->power->close(d->power_dev);
	d->power_dev = NULL;
	if (d->lock[0] && d->power_t.lab)
		lock_give(d->power_t.lab->state_dir, d->lock);
	d->lock[0] = 0;
}

static int no_power(const struct dut *d, struct al_err *err)
{
	return al_errf(err, "%s: no power driver for this host in %s",
		       d->host->name, d->power_t.lab->path);
}

int dut_power_get(struct dut *d, bool *on, struct al_err *err)
{
	if (!d->power)
		return no_power(d, err);
	return d->power->get(d->power_dev, on, err);
}

int dut_power_set(struct dut *d, bool on, struct al_err *err)
{
	bool now;

	if (!d->power)
		return no_power(d, err);
	/* A session to a host that loses power is dead. */
	shell_drop(d);
	if (d->power->set(d->power_dev, on, err) < 0)
		return -1;
	if (dut_power_get(d, &now, err) < 0)
		return -1;
	if (now != on)
		return al_errf(err,
			       "%s: power %s did not take: the %s driver "
			       "still reads it %s",
			       d->host->name, on ? "on" : "off", d->power->name,
			       now ? "on" : "off");
	return 0;
}

int dut_power_cycle(struct dut *d, struct al_err *err)
{
	fprintf(stderr, "%s: power off\n", d->host->name);
	if (dut_power_set(d, false, err) < 0)
		return -1;
	/* Long enough for the board's capacitors to drain (off_s). */
	if (d->off_s > 0) {
		fprintf(stderr, "%s: off for %d s\n", d->host->name, d->off_s);
		sleep((unsigned)d->off_s);
	}
	fprintf(stderr, "%s: power on\n", d->host->name);
	if (dut_power_set(d, true, err) < 0)
		return -1;
	return dut_wait_ready(d, err);
}

int dut_console_open(struct dut *d, struct console_session *s,
		     struct al_err *err)
{
	if (!d->console)
		return al_errf(err, "%s: no console configured", d->host->name);
	return console_session_open(s, d->console, &d->console_t,
				    d->console_log, err);
}

int dut_console_expect(struct dut *d, const char *marker, int timeout_s,
		       struct al_err *err)
{
	struct console_session s;
	int rc;

	if (dut_console_open(d, &s, err) < 0)
		return -1;
	rc = console_expect(&s, &marker, 1, timeout_s * 1000, err);
	console_session_close(&s);
	return rc < 0 ? -1 : 0;
}

int dut_console_log_save(struct dut *d, const char *dir, struct al_err *err)
{
	char dest[4096 + 32], buf[65536];
	FILE *in, *out;
	size_t n;
	int rc = 0;

	snprintf(dest, sizeof(dest), "%s/console.log", dir);
	in = fopen(d->console_log, "re");
	if (!in)
		return errno == ENOENT
			   ? 0
			   : al_errf(err, "%s: %s: %s", d->host->name,
				     d->console_log, strerror(errno));
	out = fopen(dest, "wxe");
	if (!out) {
		fclose(in);
		return al_errf(err, "%s: %s: %s", d->host->name, dest,
			       strerror(errno));
	}
	if (fseeko(in, (off_t)d->console_log_start, SEEK_SET) < 0)
		rc = al_errf(err, "%s: %s: seek: %s", d->host->name,
			     d->console_log, strerror(errno));
	while (rc == 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = al_errf(err, "%s: %s: %s", d->host->name, dest,
				     strerror(errno));
	if (fclose(out) != 0 && rc == 0)
		rc = al_errf(err, "%s: %s: %s", d->host->name, dest,
			     strerror(errno));
	fclose(in);
	return rc;
}

static int power_set_cb(void *ctx, bool on, struct al_err *err)
{
	return dut_power_set(ctx, on, err);
}

void dut_flash_env(struct dut *d, struct flash_env *env)
{
	memset(env, 0, sizeof(*env));
	env->dut = d->host->name;
	env->console = d->console;
	env->console_t = &d->console_t;
	env->console_log = d->console_log;
	env->shell = d->shell;
	env->shell_t = &d->shell_t;
	env->power_set = power_set_cb;
	env->power_ctx = d;
	env->boot_timeout_s = d->boot_timeout_s;
	env->off_s = d->off_s;
}

static int shell_ensure(struct dut *d, int timeout_s, struct al_err *err)
{
	if (d->shell_dev)
		return 0;
	if (d->shell->open(&d->shell_dev, &d->shell_t, timeout_s * 1000, err) <
	    0) {
		d->shell_dev = NULL;
		return -1;
	}
	return 0;
}

/* The ready marker on the console, or a kernel panic: that boot is
 * over, said at once with the panic's own line (d->boot_panic). */
static int wait_boot_marker(struct dut *d, struct al_err *err)
{
	const char *const marks[] = {d->ready_marker, DUT_PANIC_MARKER};
	const char *const eol[] = {"\n"};
	struct console_session s;
	struct al_err rest;
	int rc;

	d->boot_panicked = false;
	d->boot_panic[0] = 0;
	if (dut_console_open(d, &s, err) < 0)
		return -1;
	rc = console_expect(&s, marks, 2, d->boot_timeout_s * 1000, err);
	if (rc == 1) {
		/* The reason follows on the same line; a console that goes
		 * silent mid-line leaves just the marker. */
		if (console_expect(&s, eol, 1, 2000, &rest) < 0)
			s.before[0] = 0;
		s.before[strcspn(s.before, "\r\n")] = 0;
		snprintf(d->boot_panic, sizeof(d->boot_panic), "%s%.200s",
			 DUT_PANIC_MARKER, s.before);
		d->boot_panicked = true;
		rc = al_errf(err,
			     "%s: the kernel panicked while booting: '%s' "
			     "(the whole trace is in %s)",
			     d->host->name, d->boot_panic, d->console_log);
	}
	console_session_close(&s);
	return rc < 0 ? -1 : 0;
}

int dut_wait_ready(struct dut *d, struct al_err *err)
{
	double t0 = now_s();

	/* A session opened before the reboot (a flash driver that boots
	 * the image itself reboots the DUT under it) is dead. */
	shell_drop(d);
	if (!d->console) {
		/* Nothing to watch the boot on: the SSH answer is the sign. */
		fprintf(stderr,
			"%s: no console configured, waiting up to %d s for "
			"SSH\n",
			d->host->name, d->boot_timeout_s);
		return shell_ensure(d, d->boot_timeout_s, err);
	}
	fprintf(stderr, "%s: waiting for '%s' on the console (up to %d s)\n",
		d->host->name, d->ready_marker, d->boot_timeout_s);
	if (wait_boot_marker(d, err) < 0)
		return -1;
	fprintf(stderr, "%s: booted in %.1f s, waiting for SSH\n",
		d->host->name, now_s() - t0);
	return shell_ensure(d, SSH_WAIT_S, err);
}

int dut_run(struct dut *d, const char *cmd, const void *in, size_t inlen,
	    int out_fd, int err_fd, int *status, int timeout_s,
	    struct al_err *err)
{
	if (shell_ensure(d, timeout_s, err) < 0)
		return -1;
	return d->shell->run(d->shell_dev, cmd, in, inlen, out_fd, err_fd,
			     status, err);
}

int dut_upload(struct dut *d, const char *local, const char *remote, int mode,
	       int timeout_s, struct al_err *err)
{
	if (shell_ensure(d, timeout_s, err) < 0)
		return -1;
	if (!d->shell->upload)
		return al_errf(err,
			       "%s: shell driver %s cannot copy files (%s to "
			       "%s)",
			       d->host->name, d->shell->name, local, remote);
	return d->shell->upload(d->shell_dev, local, remote, mode, NULL, NULL,
				err);
}

/* The whole of a temp file as a malloc'd string. */
static int slurp_tmp(FILE *tmp, char **out, struct al_err *err)
{
	FILE *mem;
	size_t len = 0;

	*out = NULL;
	mem = open_memstream(out, &len);
	if (!mem)
		return al_errf(err, "open_memstream: %s", strerror(errno));
	rewind(tmp);
	for (int ch; (ch = fgetc(tmp)) != EOF;)
		fputc(ch, mem);
	fclose(mem);
	return 0;
}

int dut_run_io(struct dut *d, const char *cmd, const char *in, char **out,
	       char **err_out, int *status, int timeout_s, struct al_err *err)
{
	FILE *tmp, *etmp = NULL;
	int rc;

	*out = NULL;
	if (err_out)
		*err_out = NULL;
	/* A pipe could fill and block the driver; a temp file cannot. */
	tmp = tmpfile();
	if (!tmp || (err_out && !(etmp = tmpfile()))) {
		rc = al_errf(err, "%s: tmpfile: %s", d->host->name,
			     strerror(errno));
		goto out;
	}
	rc = dut_run(d, cmd, in, in ? strlen(in) : 0, fileno(tmp),
		     etmp ? fileno(etmp) : STDERR_FILENO, status, timeout_s,
		     err);
	if (rc == 0 && slurp_tmp(tmp, out, err) < 0)
		rc = -1;
	if (rc == 0 && etmp && slurp_tmp(etmp, err_out, err) < 0)
		rc = -1;
out:
	if (tmp)
		fclose(tmp);
	if (etmp)
		fclose(etmp);
	return rc;
}

int dut_run_capture(struct dut *d, const char *cmd, char **out, int *status,
		    int timeout_s, struct al_err *err)
{
	return dut_run_io(d, cmd, NULL, out, NULL, status, timeout_s, err);
}

int dut_spawn(struct dut *d, const char *cmd, int *to_fd, int *from_fd,
	      pid_t *pid, int timeout_s, struct al_err *err)
{
	int in[2], out[2];

	if (!d->shell->stream)
		return al_errf(err, "%s: shell driver %s cannot stream stdin",
			       d->host->name, d->shell->name);
	if (pipe2(in, O_CLOEXEC) < 0)
		return al_errf(err, "pipe: %s", strerror(errno));
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return al_errf(err, "pipe: %s", strerror(errno));
	}
	*pid = fork();
	if (*pid < 0) {
		al_errf(err, "fork: %s", strerror(errno));
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return -1;
	}
	if (*pid == 0) {
		struct shell_dev *s;
		struct al_err e;
		int status = 255;

		/* Other agents' pipe ends must not stay open here, or their
		 * EOF never comes. */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != in[0] && fd != out[1])
				close(fd);
		/* The parent's session shares our socket; a session of our
		 * own keeps the two conversations apart. */
		if (d->shell->open(&s, &d->shell_t, timeout_s * 1000, &e) < 0 ||
		    d->shell->stream(s, cmd, in[0], out[1], STDERR_FILENO,
				     &status, &e) < 0) {
			fprintf(stderr, "airlab: %s: '%s': %s\n", d->host->name,
				cmd, e.msg);
			_exit(255);
		}
		d->shell->close(s);
		_exit(status & 0xff);
	}
	close(in[0]);
	close(out[1]);
	*to_fd = in[1];
	*from_fd = out[0];
	return 0;
}
