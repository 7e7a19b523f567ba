/* Power driver `qemu`: the DUT is a QEMU guest, powering it on starts a
 * daemonized QEMU that boots what the qemu-image flash driver left in
 * <state>/flash/, powering it off is QMP `quit` (pulling the plug).
 * State lives in the host's state directory:
 *   qmp.sock     QMP monitor          qemu.pid  QEMU's pid
 *   console      symlink to the serial pty     serial.log   serial history
 * serial.log is QEMU's own byte-for-byte record from power-on; airlab's
 * timestamped console.log (console/expect.h) is a different file, since
 * two writers appending to one file interleave mid-line.
 * QMP takes one client at a time, so every operation connects and closes
 * again rather than holding the monitor. */
#include "../driver.h"
#include "../../util/clock.h"
#include "../../qmp/qmp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QEMU_START_TIMEOUT_MS  60000 /* until the daemonizing parent exits */
#define QMP_CONNECT_TIMEOUT_MS 5000
#define QMP_CMD_TIMEOUT_MS     5000
#define QUIT_EXIT_TIMEOUT_MS   5000 /* quit → process gone */
#define KILL_EXIT_TIMEOUT_MS   2000 /* SIGKILL → process gone */
#define STDERR_KEEP	       2048

struct power_dev {
	char name[LAB_NAME_MAX];
	char state_dir[PATH_MAX];
	char flash_dir[PATH_MAX];
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char pidfile[PATH_MAX];
	char console_link[PATH_MAX];
	char console_log[PATH_MAX];
	char qemu[PATH_MAX];
	char accel[64];
	char cpu[64];
	char append[1024];
	int memory_mb;
	int cpus;
	int icount_shift;  /* -1: not given */
	int icount_sleep;  /* -1: not given (on), else 0 off, 1 on */
	char icount[64];   /* QEMU -icount value; empty: wall-clock time */
	char forward[80];  /* ssh_forward as given, "" none */
	char fwd_host[64]; /* empty: no ssh forward */
	int fwd_port;
};

static const struct drv_setting settings[] = {
    {.name = "memory_mb",
     .type = DRV_INT,
     .min = 1,
     .max = 4194304,
     .required = true,
     .what = "the guest's RAM in MiB",
     DRV_FIELD(struct power_dev, memory_mb)},
    {.name = "cpus",
     .type = DRV_INT,
     .min = 1,
     .max = 1024,
     .required = true,
     .what = "the guest's CPUs",
     DRV_FIELD(struct power_dev, cpus)},
    {.name = "ssh_forward", DRV_FIELD(struct power_dev, forward)},
    {.name = "qemu",
     .default_value = "qemu-system-x86_64",
     DRV_FIELD(struct power_dev, qemu)},
    /* KVM hangs the Debian kernels on these hosts: TCG unless told. */
    {.name = "accel",
     .default_value = "tcg",
     DRV_FIELD(struct power_dev, accel)},
    {.name = "append",
     .default_value = "",
     DRV_FIELD(struct power_dev, append)},
    /* The CPU model (QEMU's own default, qemu64, unless told): "max"
     * gives the guest every extension TCG emulates. */
    /* RDRAND seeds the guest's crng at early boot: seeded late (crng
     * init done as hostapd starts), 6.12's static-key patching of
     * get_random_u32 oopsed on int3 under TCG in one boot of five. */
    {.name = "cpu",
     .default_value = "qemu64,+rdrand",
     DRV_FIELD(struct power_dev, cpu)},
    {.name = "icount_shift",
     .type = DRV_INT,
     .min = 0,
     .max = 10,
     DRV_FIELD(struct power_dev, icount_shift)},
    {.name = "icount_sleep",
     .type = DRV_CHOICE,
     .choices = drv_on_off,
     DRV_FIELD(struct power_dev, icount_sleep)},
    {0},
};

static int path_in(char *out, size_t len, const char *dir, const char *leaf,
		   const char *dev, struct al_err *err)
{
	int n = snprintf(out, len, "%s/%s", dir, leaf);

	if (n < 0 || (size_t)n >= len)
		return al_errf(err, "%s: path too long: %s/%s", dev, dir, leaf);
	return 0;
}

static int copy_setting(char *out, size_t len, const char *v, const char *key,
			const char *dev, struct al_err *err)
{
	if (snprintf(out, len, "%s", v) >= (int)len)
		return al_errf(err, "%s: %s is longer than %zu bytes", dev, key,
			       len - 1);
	return 0;
}

/* ssh_forward: "127.0.0.1:10022" */
static int parse_forward(struct power_dev *d, const struct drv_target *t,
			 struct al_err *err)
{
	const char *v = d->forward, *colon = strrchr(v, ':');
	struct in_addr a;
	char *end;
	long port;

	if (!colon || (size_t)(colon - v) >= sizeof(d->fwd_host))
		return al_err_input(err,
				    "%s:%d: %s: ssh_forward '%s' is not "
				    "host:port",
				    t->lab->path,
				    drv_setting_line(t, "ssh_forward"), d->name,
				    v);
	memcpy(d->fwd_host, v, (size_t)(colon - v));
	d->fwd_host[colon - v] = 0;
	port = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || port < 1 || port > 65535 ||
	    inet_pton(AF_INET, d->fwd_host, &a) != 1)
		return al_err_input(err,
				    "%s:%d: %s: ssh_forward '%s' is not "
				    "IPv4-address:port",
				    t->lab->path,
				    drv_setting_line(t, "ssh_forward"), d->name,
				    v);
	d->fwd_port = (int)port;
	return 0;
}

/* Virtual time (QEMU icount): the guest's clock advances 2^shift ns per
 * instruction, so the guest sees a CPU of fixed speed however fast the
 * host emulates it, and the medium's air, timed by the guest's clock,
 * keeps pace with that CPU. sleep=off skips the guest's idle time. */
static int set_icount(struct power_dev *d, const struct drv_target *t,
		      struct al_err *err)
{
	if (d->icount_shift < 0) {
		if (d->icount_sleep >= 0)
			return al_err_input(err,
					    "%s:%d: %s: icount_sleep is set "
					    "without icount_shift",
					    t->lab->path,
					    drv_setting_line(t, "icount_sleep"),
					    d->name);
		return 0;
	}
	if (strcmp(d->accel, "tcg"))
		return al_err_input(err,
				    "%s:%d: %s: icount_shift needs accel tcg, "
				    "not '%s'",
				    t->lab->path,
				    drv_setting_line(t, "icount_shift"),
				    d->name, d->accel);
	snprintf(d->icount, sizeof(d->icount), "shift=%d,sleep=%s",
		 d->icount_shift, d->icount_sleep == 0 ? "off" : "on");
	return 0;
}

static int qemu_open(struct power_dev **out, const struct drv_target *t,
		     struct al_err *err)
{
	struct power_dev *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return al_errf(err, "%s: out of memory", t->host->name);
	snprintf(d->name, sizeof(d->name), "%s", t->host->name);
	d->icount_shift = -1;
	d->icount_sleep = -1;
	if (drv_settings_read(t, settings, d, err) < 0 ||
	    (d->forward[0] && parse_forward(d, t, err) < 0) ||
	    set_icount(d, t, err) < 0)
		goto fail;
	if (copy_setting(d->state_dir, sizeof(d->state_dir), t->host->state_dir,
			 "state_dir", d->name, err) < 0 ||
	    !d->state_dir[0] ||
	    path_in(d->flash_dir, sizeof(d->flash_dir), d->state_dir, "flash",
		    d->name, err) < 0 ||
	    path_in(d->sock, sizeof(d->sock), d->state_dir, "qmp.sock", d->name,
		    err) < 0 ||
	    path_in(d->pidfile, sizeof(d->pidfile), d->state_dir, "qemu.pid",
		    d->name, err) < 0 ||
	    path_in(d->console_link, sizeof(d->console_link), d->state_dir,
		    "console", d->name, err) < 0 ||
	    path_in(d->console_log, sizeof(d->console_log), d->state_dir,
		    "serial.log", d->name, err) < 0) {
		if (!d->state_dir[0])
			al_errf(err, "%s: host has no state directory",
				d->name);
		goto fail;
	}
	*out = d;
	return 0;
fail:
	free(d);
	return -1;
}

static void qemu_close(struct power_dev *d)
{
	free(d);
}

/* ---- the QEMU process ---- */

enum proc_state { PROC_GONE, PROC_OURS, PROC_OTHER, PROC_EXITING };

/* Is pid a live process that is our QEMU (its command line names our QMP
 * socket)? A recycled pid belongs to someone else; a zombie is gone. A
 * process that is dying but not yet a zombie has already dropped its
 * memory, so its command line reads empty: that is PROC_EXITING. */
static enum proc_state proc_state(const struct power_dev *d, pid_t pid)
{
	char path[64], buf[8192], stat_line[512];
	FILE *f;
	size_t n;
	const char *p;
	enum proc_state st = PROC_OTHER;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return PROC_GONE;
	n = fread(stat_line, 1, sizeof(stat_line) - 1, f);
	fclose(f);
	stat_line[n] = 0;
	/* "pid (comm) S ..." - comm may hold anything, so use the last ')' */
	p = strrchr(stat_line, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return PROC_GONE;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return PROC_GONE;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (n == 0)
		return PROC_EXITING;
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
		buf[n] = 0;
		if (strstr(buf + i, d->sock)) {
			st = PROC_OURS;
			break;
		}
	}
	return st;
}

/* 0 with *pid = 0 when there is no pidfile. */
static int read_pidfile(const struct power_dev *d, pid_t *pid,
			struct al_err *err)
{
	FILE *f = fopen(d->pidfile, "r");
	long v;

	*pid = 0;
	if (!f)
		return errno == ENOENT
			   ? 0
			   : al_errf(err, "%s: open %s: %s", d->name,
				     d->pidfile, strerror(errno));
	if (fscanf(f, "%ld", &v) != 1 || v <= 0 || v > INT32_MAX) {
		fclose(f);
		/* A half-written pidfile from a QEMU that died starting. */
		return 0;
	}
	fclose(f);
	*pid = (pid_t)v;
	return 0;
}

static void unlink_quiet(const char *dev, const char *path)
{
	if (unlink(path) < 0 && errno != ENOENT)
		fprintf(stderr, "%s: cannot remove %s: %s\n", dev, path,
			strerror(errno));
}

static void clean_state(const struct power_dev *d)
{
	unlink_quiet(d->name, d->sock);
	unlink_quiet(d->name, d->pidfile);
	unlink_quiet(d->name, d->console_link);
}

static bool wait_gone(const struct power_dev *d, pid_t pid, int timeout_ms)
{
	int64_t deadline = mono_ms() + timeout_ms;

	enum proc_state st;

	while ((st = proc_state(d, pid)) == PROC_OURS || st == PROC_EXITING) {
		if (mono_ms() >= deadline)
			return false;
		usleep(20 * 1000);
	}
	return true;
}

static int qmp_status(const struct power_dev *d, char *status, size_t len,
		      struct al_err *err)
{
	struct qmp *q;
	json_t *ret;
	const char *s;

	if (qmp_connect(&q, d->sock, QMP_CONNECT_TIMEOUT_MS, err) < 0)
		return -1;
	if (qmp_execute(q, "query-status", NULL, &ret, QMP_CMD_TIMEOUT_MS,
			err) < 0) {
		qmp_close(q);
		return -1;
	}
	s = json_string_value(json_object_get(ret, "status"));
	snprintf(status, len, "%s", s ? s : "(no status)");
	json_decref(ret);
	qmp_close(q);
	return 0;
}

static int qemu_get(struct power_dev *d, bool *on, struct al_err *err)
{
	char status[64];
	pid_t pid;

	*on = false;
	if (read_pidfile(d, &pid, err) < 0)
		return -1;
	if (!pid || proc_state(d, pid) != PROC_OURS) {
		/* Stale state of a QEMU that is gone. */
		clean_state(d);
		return 0;
	}
	if (qmp_status(d, status, sizeof(status), err) < 0)
		return al_err_prefix(err,
				     "%s: qemu pid %d is running but its "
				     "monitor does not answer",
				     d->name, (int)pid);
	*on = true;
	return 0;
}

static int power_off(struct power_dev *d, pid_t pid, struct al_err *err);

/* ---- power on ---- */

static int need_flashed(const struct power_dev *d, const char *leaf, char *path,
			size_t len, struct al_err *err)
{
	struct stat st;

	if (path_in(path, len, d->flash_dir, leaf, d->name, err) < 0)
		return -1;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return al_errf(err,
			       "%s: nothing flashed in %s (run flash "
			       "first; %s is missing)",
			       d->name, d->flash_dir, leaf);
	return 0;
}

/* The flashed kernel command line, whitespace folded to single spaces. */
static int read_cmdline(const struct power_dev *d, char *out, size_t len,
			struct al_err *err)
{
	char path[PATH_MAX], buf[2048];
	FILE *f;
	size_t n, o = 0;

	out[0] = 0;
	if (path_in(path, sizeof(path), d->flash_dir, "cmdline", d->name, err) <
	    0)
		return -1;
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT
			   ? 0
			   : al_errf(err, "%s: open %s: %s", d->name, path,
				     strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (char *tok = strtok(buf, " \t\r\n"); tok;
	     tok = strtok(NULL, " \t\r\n")) {
		int w = snprintf(out + o, len - o, "%s%s", o ? " " : "", tok);
		if (w < 0 || (size_t)w >= len - o)
			return al_errf(err, "%s: %s is too long", d->name,
				       path);
		o += (size_t)w;
	}
	return 0;
}

/* QEMU's slirp binds its forward with SO_REUSEADDR; so do we, so only a
 * listener (not a TIME_WAIT leftover) counts as "in use". */
static int check_port_free(const struct power_dev *d, struct al_err *err)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)d->fwd_port)};
	int one = 1, fd, rc;

	inet_pton(AF_INET, d->fwd_host, &sa.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return al_errf(err, "%s: socket: %s", d->name, strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (rc < 0) {
		int e = errno;

		close(fd);
		return al_errf(err,
			       "%s: ssh_forward port %s:%d is not free (%s); "
			       "is another QEMU or sshd using it?",
			       d->name, d->fwd_host, d->fwd_port, strerror(e));
	}
	close(fd);
	return 0;
}

/* QEMU's stderr as one line: lines joined with "; ", without the pty
 * notice (link_console reports the pty). */
static void fold_lines(char *s)
{
	char out[STDERR_KEEP + 1];
	size_t o = 0;

	out[0] = 0;
	for (char *line = strtok(s, "\r\n"); line;
	     line = strtok(NULL, "\r\n")) {
		if (strstr(line, "char device redirected to"))
			continue;
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s",
				      o ? "; " : "", line);
		if (o >= sizeof(out))
			break;
	}
	strcpy(s, out);
}

/* Runs the daemonizing QEMU and waits for its parent to exit, which it
 * does once the guest is set up (or on an error). */
static int run_qemu(const struct power_dev *d, char *const argv[],
		    struct al_err *err)
{
	char errbuf[STDERR_KEEP + 1];
	size_t elen = 0;
	int pfd[2], status = 0;
	int64_t deadline = mono_ms() + QEMU_START_TIMEOUT_MS;
	bool exited = false, eof = false;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return al_errf(err, "%s: pipe: %s", d->name, strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return al_errf(err, "%s: fork: %s", d->name, strerror(errno));
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execvp(argv[0], argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	/* Read until the parent exited and (briefly after) nothing more
	 * comes: the daemon child keeps the pipe until it is set up. */
	while (!eof) {
		struct pollfd p = {.fd = pfd[0], .events = POLLIN};
		int64_t left = deadline - mono_ms();
		char chunk[512];
		ssize_t n;

		if (!exited && waitpid(pid, &status, WNOHANG) == pid)
			exited = true;
		if (left <= 0) {
			if (!exited) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
			}
			close(pfd[0]);
			return al_errf(err,
				       "%s: %s did not finish starting within "
				       "%d s",
				       d->name, argv[0],
				       QEMU_START_TIMEOUT_MS / 1000);
		}
		if (poll(&p, 1, exited ? 200 : 50) <= 0) {
			if (exited)
				break;
			continue;
		}
		n = read(pfd[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			eof = true;
			continue;
		}
		/* Keep the tail (chunk < STDERR_KEEP): the last lines say
		 * what went wrong. */
		if (elen + (size_t)n > STDERR_KEEP) {
			size_t drop = elen + (size_t)n - STDERR_KEEP;
			memmove(errbuf, errbuf + drop, elen - drop);
			elen -= drop;
		}
		memcpy(errbuf + elen, chunk, (size_t)n);
		elen += (size_t)n;
	}
	close(pfd[0]);
	if (!exited)
		waitpid(pid, &status, 0);
	errbuf[elen] = 0;
	fold_lines(errbuf);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char how[32];

		if (WIFEXITED(status))
			snprintf(how, sizeof(how), "exit %d",
				 WEXITSTATUS(status));
		else
			snprintf(how, sizeof(how), "signal %d",
				 WTERMSIG(status));
		return al_errf(err, "%s: %s failed to start (%s): %s", d->name,
			       argv[0], how,
			       errbuf[0] ? errbuf : "(no output on stderr)");
	}
	if (errbuf[0]) /* warnings */
		fprintf(stderr, "%s: qemu: %s\n", d->name, errbuf);
	return 0;
}

/* Points <state>/console at the serial pty, replacing the link in one
 * rename so a reader never sees it missing or half made. */
static int link_console(const struct power_dev *d, struct al_err *err)
{
	struct qmp *q;
	json_t *ret;
	const char *pty = NULL;
	char tmp[PATH_MAX + 8];
	size_t i;
	json_t *c;
	int rc = -1;

	if (qmp_connect(&q, d->sock, QMP_CONNECT_TIMEOUT_MS, err) < 0)
		return al_err_prefix(err, "%s", d->name);
	if (qmp_execute(q, "query-chardev", NULL, &ret, QMP_CMD_TIMEOUT_MS,
			err) < 0) {
		qmp_close(q);
		return al_err_prefix(err, "%s", d->name);
	}
	json_array_foreach(ret, i, c)
	{
		const char *label =
		    json_string_value(json_object_get(c, "label"));
		const char *fn =
		    json_string_value(json_object_get(c, "filename"));

		if (label && fn && strcmp(label, "ser0") == 0 &&
		    strncmp(fn, "pty:", 4) == 0)
			pty = fn + 4;
	}
	if (!pty) {
		al_errf(err,
			"%s: QMP %s: query-chardev lists no pty for chardev "
			"ser0",
			d->name, d->sock);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->console_link);
	unlink(tmp);
	if (symlink(pty, tmp) < 0 || rename(tmp, d->console_link) < 0) {
		al_errf(err, "%s: link %s -> %s: %s", d->name, d->console_link,
			pty, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	json_decref(ret);
	qmp_close(q);
	return rc;
}

static void discard_started(struct power_dev *d)
{
	struct al_err off_err = {0};
	pid_t pid;

	if (read_pidfile(d, &pid, &off_err) == 0 && pid &&
	    proc_state(d, pid) == PROC_OURS && power_off(d, pid, &off_err) < 0)
		fprintf(stderr, "%s: %s\n", d->name, off_err.msg);
}

static int power_on(struct power_dev *d, struct al_err *err)
{
	char kernel[PATH_MAX], initrd[PATH_MAX], cmdline[2048];
	char append[4096], mem[32], smp[32], name[LAB_NAME_MAX + 8];
	char serial[PATH_MAX + 64], qmp[PATH_MAX + 32], netdev[160];
	char status[64];
	const char *argv[40];
	int argc = 0;

	if (need_flashed(d, "vmlinuz", kernel, sizeof(kernel), err) < 0 ||
	    need_flashed(d, "initrd.img", initrd, sizeof(initrd), err) < 0 ||
	    read_cmdline(d, cmdline, sizeof(cmdline), err) < 0)
		return -1;
	if (d->fwd_port && check_port_free(d, err) < 0)
		return -1;
	clean_state(d);

	snprintf(append, sizeof(append), "console=ttyS0%s%s%s%s",
		 cmdline[0] ? " " : "", cmdline, d->append[0] ? " " : "",
		 d->append);
	snprintf(mem, sizeof(mem), "%d", d->memory_mb);
	snprintf(smp, sizeof(smp), "%d", d->cpus);
	snprintf(name, sizeof(name), "airlab-%s", d->name);
	snprintf(serial, sizeof(serial), "pty,id=ser0,logfile=%s,logappend=on",
		 d->console_log);
	snprintf(qmp, sizeof(qmp), "unix:%s,server=on,wait=off", d->sock);
	argv[argc++] = d->qemu;
	argv[argc++] = "-name";
	argv[argc++] = name;
	argv[argc++] = "-accel";
	argv[argc++] = d->accel;
	argv[argc++] = "-cpu";
	argv[argc++] = d->cpu;
	if (d->icount[0]) {
		argv[argc++] = "-icount";
		argv[argc++] = d->icount;
	}
	argv[argc++] = "-nodefaults";
	argv[argc++] = "-display";
	argv[argc++] = "none";
	argv[argc++] = "-m";
	argv[argc++] = mem;
	argv[argc++] = "-smp";
	argv[argc++] = smp;
	argv[argc++] = "-kernel";
	argv[argc++] = kernel;
	argv[argc++] = "-initrd";
	argv[argc++] = initrd;
	argv[argc++] = "-append";
	argv[argc++] = append;
	argv[argc++] = "-chardev";
	argv[argc++] = serial;
	argv[argc++] = "-serial";
	argv[argc++] = "chardev:ser0";
	argv[argc++] = "-qmp";
	argv[argc++] = qmp;
	if (d->fwd_port) {
		snprintf(netdev, sizeof(netdev),
			 "user,id=n0,hostfwd=tcp:%s:%d-:22", d->fwd_host,
			 d->fwd_port);
		argv[argc++] = "-netdev";
		argv[argc++] = netdev;
		argv[argc++] = "-device";
		argv[argc++] = "virtio-net-pci,netdev=n0";
	}
	argv[argc++] = "-daemonize";
	argv[argc++] = "-pidfile";
	argv[argc++] = d->pidfile;
	argv[argc] = NULL;

	if (run_qemu(d, (char *const *)argv, err) < 0)
		return -1;
	if (qmp_status(d, status, sizeof(status), err) < 0)
		al_err_prefix(err, "%s: QEMU started", d->name);
	else if (strcmp(status, "running") != 0)
		al_errf(err,
			"%s: QEMU started but QMP %s query-status says '%s', "
			"not 'running'",
			d->name, d->sock, status);
	else if (link_console(d, err) == 0)
		return 0;
	/* Half on is worse than off: take it down again. */
	discard_started(d);
	return -1;
}

/* ---- power off ---- */

static int power_off(struct power_dev *d, pid_t pid, struct al_err *err)
{
	struct al_err qerr = {0};
	struct qmp *q;

	/* quit is the plug being pulled: no guest shutdown. */
	if (qmp_connect(&q, d->sock, QMP_CONNECT_TIMEOUT_MS, &qerr) == 0) {
		qmp_execute(q, "quit", NULL, NULL, QMP_CMD_TIMEOUT_MS, &qerr);
		qmp_close(q);
	}
	if (qerr.msg[0]) {
		fprintf(stderr, "%s: %s; sending SIGTERM to qemu pid %d\n",
			d->name, qerr.msg, (int)pid);
		kill(pid, SIGTERM);
	}
	if (!wait_gone(d, pid, QUIT_EXIT_TIMEOUT_MS)) {
		fprintf(stderr,
			"%s: qemu pid %d still there %d ms after quit; "
			"sending SIGKILL\n",
			d->name, (int)pid, QUIT_EXIT_TIMEOUT_MS);
		if (proc_state(d, pid) == PROC_OURS)
			kill(pid, SIGKILL);
		if (!wait_gone(d, pid, KILL_EXIT_TIMEOUT_MS))
			return al_errf(err,
				       "%s: qemu pid %d survived quit and "
				       "SIGKILL (waited %d ms)",
				       d->name, (int)pid,
				       QUIT_EXIT_TIMEOUT_MS +
					   KILL_EXIT_TIMEOUT_MS);
	}
	clean_state(d);
	return 0;
}

static int qemu_set(struct power_dev *d, bool on, struct al_err *err)
{
	pid_t pid;
	bool live;

	if (read_pidfile(d, &pid, err) < 0)
		return -1;
	live = pid && proc_state(d, pid) == PROC_OURS;
	if (!on)
		return live ? power_off(d, pid, err) : (clean_state(d), 0);
	if (live) {
		char status[64];

		/* Already on, if the monitor confirms it. */
		if (qmp_status(d, status, sizeof(status), err) < 0)
			return al_err_prefix(err,
					     "%s: qemu pid %d is running but "
					     "its monitor does not answer",
					     d->name, (int)pid);
		return 0;
	}
	return power_on(d, err);
}

const struct power_ops power_qemu_ops = {
    .name = "qemu",
    .open = qemu_open,
    .set = qemu_set,
    .get = qemu_get,
    .close = qemu_close,
    .settings = settings,
};
