/* Flash driver `uboot-tftp`: a board whose bootloader is U-Boot, reached
 * over its serial console, fetches the image from a TFTP server airlab
 * runs for the flash (Debian's tftpd-hpa, /usr/sbin/in.tftpd, in the
 * foreground), then boots it from RAM (mode: ram, `bootm`) or writes it to
 * flash with the lab file's commands and resets (mode: flash).
 *
 * Sequence: power off; open the console; power on; wait for the autoboot
 * prompt and send the stop key; at U-Boot's prompt set ipaddr, serverip
 * (and tftpdstp for a port other than 69: U-Boot's CONFIG_TFTP_PORT),
 * netretry=no (so a lost transfer ends instead of starting over forever);
 * tftpboot and check "Bytes transferred = N" against the image's size;
 * boot. The driver returns while the DUT boots; airlab then waits for the
 * ready marker on the console and for SSH.
 *
 * in.tftpd serves a fresh directory under the host's state dir holding a
 * copy of the image, chrooted there (--secure); it is started in a process
 * group of its own (it forks one child per transfer) and that group is
 * ended when the flash ends, whatever happened. tftpd-hpa 5.2 only serves
 * when started as root: each transfer's child drops to user nobody with
 * setgroups(), which fails otherwise (exit 71, logged to syslog only). */
#include "image.h"
#include "../console/expect.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TFTPD_PATH	   "/usr/sbin/in.tftpd"
#define TFTP_DEFAULT_PORT  69
#define TFTPD_READY_MS	   3000
#define TFTPD_STOP_MS	   2000
#define PROBE_FILE	   "airlab-probe-no-such-file"
#define DEFAULT_TIMEOUT_S  60
#define DEFAULT_AUTOBOOT   "Hit any key to stop autoboot"
#define DEFAULT_PROMPT	   "=> "
#define DEFAULT_STOP_KEY   "\n"
#define DEFAULT_FLASH_BOOT "reset"
#define MAX_COMMANDS	   16
#define CMD_MAX		   512

struct uboot_conf {
	/* The settings as given. */
	char image_setting[PATH_MAX];
	char version_setting[256];
	char tftp_listen[80];
	char server_setting[64];
	char dut_ip[64];
	char load_addr[64];
	char autoboot_prompt[256];
	char stop_key_setting[16];
	char prompt_setting[64];
	int flash_mode; /* mode: 0 ram, 1 flash */
	char flash_commands[MAX_COMMANDS * CMD_MAX];
	char boot[CMD_MAX]; /* boot_command, else by the mode */
	int timeout_s;
	/* What they come to. */
	char image[PATH_MAX];
	const char *file; /* the image's name on the TFTP server */
	off_t size;
	char version[256];
	char listen_ip[64];
	int listen_port;
	char server_ip[64];
	const char *autoboot;
	const char *stop_key;
	const char *prompt;
	char commands[MAX_COMMANDS][CMD_MAX];
	int ncommands;
	int timeout_ms;
};

static const struct drv_setting settings[] = {
    {.name = "image",
     .required = true,
     .what = "the image file, e.g. {images}/openwrt/{variant}.bin",
     DRV_FIELD(struct uboot_conf, image_setting)},
    {.name = "version", DRV_FIELD(struct uboot_conf, version_setting)},
    /* ADDRESS:PORT or ADDRESS (port 69) */
    {.name = "tftp_listen",
     .default_value = "0.0.0.0",
     DRV_FIELD(struct uboot_conf, tftp_listen)},
    {.name = "server_ip", DRV_FIELD(struct uboot_conf, server_setting)},
    {.name = "dut_ip",
     .required = true,
     .what = "the address U-Boot gets as ipaddr, IPv4",
     DRV_FIELD(struct uboot_conf, dut_ip)},
    {.name = "load_addr",
     .required = true,
     .what = "where U-Boot puts the image in RAM, e.g. 0x81000000",
     DRV_FIELD(struct uboot_conf, load_addr)},
    {.name = "autoboot_prompt",
     .default_value = DEFAULT_AUTOBOOT,
     DRV_FIELD(struct uboot_conf, autoboot_prompt)},
    {.name = "stop_key",
     .default_value = DEFAULT_STOP_KEY,
     DRV_FIELD(struct uboot_conf, stop_key_setting)},
    {.name = "prompt",
     .default_value = DEFAULT_PROMPT,
     DRV_FIELD(struct uboot_conf, prompt_setting)},
    {.name = "mode",
     .type = DRV_CHOICE,
     .default_value = "ram",
     .choices = (const struct drv_choice[]){{"ram", 0}, {"flash", 1}, {0}},
     DRV_FIELD(struct uboot_conf, flash_mode)},
    {.name = "flash_commands", DRV_FIELD(struct uboot_conf, flash_commands)},
    {.name = "boot_command", DRV_FIELD(struct uboot_conf, boot)},
    {.name = "timeout_s",
     .type = DRV_INT,
     .default_value = "60",
     .min = 1,
     .max = 86400,
     DRV_FIELD(struct uboot_conf, timeout_s)},
    {0},
};

struct tftpd {
	pid_t pid; /* also its process group */
	char dir[PATH_MAX];
	char file[2 * PATH_MAX];
};

/* A value U-Boot's command line takes as one word. */
static bool uboot_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._+-:/", *s))
			return false;
	return true;
}

static int parse_ipv4(const char *s, char *out, size_t len)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -1;
	snprintf(out, len, "%s", s);
	return 0;
}

/* tftp_listen: ADDRESS:PORT or ADDRESS (port 69). */
static int parse_listen(const struct drv_target *t, struct uboot_conf *c,
			struct al_err *err)
{
	const char *v = c->tftp_listen;
	const char *colon = strrchr(v, ':');
	char addr[64];
	char *end;
	long port = TFTP_DEFAULT_PORT;

	snprintf(addr, sizeof(addr), "%.*s",
		 colon ? (int)(colon - v) : (int)strlen(v), v);
	if (colon) {
		errno = 0;
		port = strtol(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end || port < 1 ||
		    port > 65535)
			port = -1;
	}
	if (port < 0 || parse_ipv4(addr, c->listen_ip, sizeof(c->listen_ip)))
		return al_err_input(err,
				    "%s:%d: %s flash: tftp_listen '%s' is not "
				    "IPV4ADDRESS[:PORT] (port 1 to 65535)",
				    t->lab->path,
				    drv_setting_line(t, "tftp_listen"),
				    t->host->name, v);
	c->listen_port = (int)port;
	return 0;
}

/* flash_commands: U-Boot commands separated by ';', run one at a time;
 * {load_addr} and {size} (the image's size in hex) are filled in. */
static int parse_commands(const struct drv_target *t, struct uboot_conf *c,
			  struct al_err *err)
{
	const char *s = c->flash_commands;
	int line = drv_setting_line(t, "flash_commands");
	char size_hex[32];

	snprintf(size_hex, sizeof(size_hex), "0x%llx",
		 (unsigned long long)c->size);
	c->ncommands = 0;
	while (*s) {
		size_t n = strcspn(s, ";"), o = 0;
		char *cmd;

		while (n && isspace((unsigned char)*s))
			s++, n--;
		if (n == 0) {
			s += *s ? 1 : 0;
			continue;
		}
		if (c->ncommands == MAX_COMMANDS)
			return al_err_input(
			    err,
			    "%s:%d: %s flash: flash_commands: more "
			    "than %d commands",
			    t->lab->path, line, t->host->name, MAX_COMMANDS);
		cmd = c->commands[c->ncommands++];
		for (size_t i = 0; i < n; i++) {
			const char *fill = NULL;
			size_t skip = 0;

			if (!strncmp(s + i, "{load_addr}", 11))
				fill = c->load_addr, skip = 11;
			else if (!strncmp(s + i, "{size}", 6))
				fill = size_hex, skip = 6;
			if (fill) {
				o += (size_t)snprintf(cmd + o, CMD_MAX - o,
						      "%s", fill);
				i += skip - 1;
			} else if (o + 1 < CMD_MAX) {
				cmd[o++] = s[i];
				cmd[o] = 0;
			}
			if (o >= CMD_MAX - 1)
				return al_err_input(err,
						    "%s:%d: %s flash: "
						    "flash_commands: a command "
						    "longer than %d characters",
						    t->lab->path, line,
						    t->host->name, CMD_MAX - 1);
		}
		while (o && isspace((unsigned char)cmd[o - 1]))
			cmd[--o] = 0;
		s += n + (s[n] ? 1 : 0);
	}
	return 0;
}

static int load_conf(const struct drv_target *t, const struct flash_image *img,
		     struct uboot_conf *c, struct al_err *err)
{
	const char *dev = t->host->name;

	memset(c, 0, sizeof(*c));
	if (drv_settings_read(t, settings, c, err) < 0 ||
	    flash_image_file(t, img, c->image_setting, c->image,
			     sizeof(c->image), &c->size, err) < 0 ||
	    flash_image_version(t, img, c->version_setting, c->image,
				c->version, sizeof(c->version), err) < 0 ||
	    parse_listen(t, c, err) < 0)
		return -1;
	c->timeout_ms = c->timeout_s * 1000;
	c->file =
	    strrchr(c->image, '/') ? strrchr(c->image, '/') + 1 : c->image;
	if (!uboot_word(c->file))
		return al_err_input(
		    err,
		    "%s:%d: %s flash: image name '%s' would not "
		    "be one word on U-Boot's command line "
		    "(letters, digits and ._+-: only)",
		    t->lab->path, drv_setting_line(t, "image"), dev, c->file);
	if (inet_pton(AF_INET, c->dut_ip, &(struct in_addr){0}) != 1)
		return al_err_input(
		    err,
		    "%s:%d: %s flash: dut_ip '%s' is not an IPv4 address "
		    "(the address U-Boot gets as ipaddr)",
		    t->lab->path, drv_setting_line(t, "dut_ip"), dev,
		    c->dut_ip);
	if (!uboot_word(c->load_addr))
		return al_err_input(
		    err,
		    "%s:%d: %s flash: load_addr is not one word (where U-Boot "
		    "puts the image in RAM, e.g. 0x81000000)",
		    t->lab->path, drv_setting_line(t, "load_addr"), dev);
	if (c->server_setting[0]) {
		if (parse_ipv4(c->server_setting, c->server_ip,
			       sizeof(c->server_ip)) < 0)
			return al_err_input(
			    err,
			    "%s:%d: %s flash: server_ip '%s' is "
			    "not an IPv4 address",
			    t->lab->path, drv_setting_line(t, "server_ip"), dev,
			    c->server_setting);
	} else if (strcmp(c->listen_ip, "0.0.0.0") == 0) {
		return al_err_input(
		    err,
		    "%s:%d: %s flash: server_ip is needed when "
		    "tftp_listen is 0.0.0.0 (the address the DUT "
		    "reaches the TFTP server at)",
		    t->lab->path, t->binding->line, dev);
	} else {
		snprintf(c->server_ip, sizeof(c->server_ip), "%s",
			 c->listen_ip);
	}
	c->autoboot = c->autoboot_prompt;
	c->stop_key = c->stop_key_setting;
	c->prompt = c->prompt_setting;
	if (parse_commands(t, c, err) < 0)
		return -1;
	if (c->flash_mode && c->ncommands == 0)
		return al_err_input(err,
				    "%s:%d: %s flash: mode flash needs "
				    "flash_commands (e.g. \"erase 0x9f050000 "
				    "+{size}; cp.b {load_addr} 0x9f050000 "
				    "{size}\")",
				    t->lab->path, t->binding->line, dev);
	if (!c->flash_mode && c->ncommands)
		return al_err_input(err,
				    "%s:%d: %s flash: flash_commands given but "
				    "mode is ram (set mode: flash)",
				    t->lab->path,
				    drv_setting_line(t, "flash_commands"), dev);
	if (c->boot[0])
		return 0;
	if (c->flash_mode)
		snprintf(c->boot, sizeof(c->boot), DEFAULT_FLASH_BOOT);
	else
		snprintf(c->boot, sizeof(c->boot), "bootm %s", c->load_addr);
	return 0;
}

/* ---- the TFTP server ---- */

static int copy_image(const char *dev, const char *src, const char *dst,
		      struct al_err *err)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	ssize_t n = 0;

	if (in < 0)
		return al_errf(err, "%s flash: open %s: %s", dev, src,
			       strerror(errno));
	/* World-readable: in.tftpd sends only files "nobody" may read. */
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		al_errf(err, "%s flash: create %s: %s", dev, dst,
			strerror(errno));
		close(in);
		return -1;
	}
	fchmod(out, 0644);
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				n = -1;
				break;
			}
			off += w;
		}
		if (n < 0)
			break;
	}
	if (n < 0 || close(out) < 0) {
		al_errf(err, "%s flash: copy %s to %s: %s", dev, src, dst,
			strerror(errno));
		close(in);
		return -1;
	}
	close(in);
	return 0;
}

/* Whether a live (not zombie) process is left in process group pgid. */
static bool group_alive(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool alive = false;

	if (!d)
		return kill(-pgid, 0) == 0;
	while (!alive && (e = readdir(d))) {
		char path[300], stat[512], *paren;
		FILE *f;
		char state;
		int ppid, pgrp;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(stat, sizeof(stat), f))
			stat[0] = 0;
		fclose(f);
		/* "pid (comm) state ppid pgrp ...": comm may hold spaces. */
		paren = strrchr(stat, ')');
		if (paren &&
		    sscanf(paren + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 &&
		    pgrp == pgid && state != 'Z' && state != 'X')
			alive = true;
	}
	closedir(d);
	return alive;
}

static void tftpd_stop(struct tftpd *s)
{
	if (s->pid > 0) {
		struct timespec tick = {0, 20 * 1000000};
		int status, waited = 0;

		kill(-s->pid, SIGTERM);
		while (waitpid(s->pid, &status, WNOHANG) == 0) {
			if (waited >= TFTPD_STOP_MS) {
				kill(-s->pid, SIGKILL);
				waitpid(s->pid, &status, 0);
				break;
			}
			nanosleep(&tick, NULL);
			waited += 20;
		}
		/* Its per-transfer children are in the same group and do not
		 * end with it: a transfer in flight goes on until it times
		 * out. They are gone once this returns. */
		kill(-s->pid, SIGKILL);
		for (waited = 0; group_alive(s->pid) && waited < TFTPD_STOP_MS;
		     waited += 20)
			nanosleep(&tick, NULL);
		s->pid = 0;
	}
	if (s->file[0])
		unlink(s->file);
	if (s->dir[0])
		rmdir(s->dir);
	s->file[0] = s->dir[0] = 0;
}

/* Asks for a file that is not there: an ERROR packet back means in.tftpd
 * is up on that address and serving requests. */
static int tftpd_probe(int sock, const struct sockaddr_in *to)
{
	static const char rrq[] = "\0\1" PROBE_FILE "\0octet";
	unsigned char reply[516];
	struct pollfd p = {.fd = sock, .events = POLLIN};

	if (sendto(sock, rrq, sizeof(rrq), 0, (const struct sockaddr *)to,
		   sizeof(*to)) < 0)
		return -1;
	if (poll(&p, 1, 100) != 1)
		return 0;
	if (recv(sock, reply, sizeof(reply), 0) >= 4 && reply[0] == 0 &&
	    reply[1] == 5)
		return 1;
	return 0;
}

static int tftpd_start(const struct drv_target *t, const struct uboot_conf *c,
		       struct tftpd *s, struct al_err *err)
{
	const char *dev = t->host->name;
	char listen[96];
	struct sockaddr_in to = {.sin_family = AF_INET};
	int sock, status, up = 0;
	struct timespec t0, now;

	memset(s, 0, sizeof(*s));
	if (access(TFTPD_PATH, X_OK) < 0)
		return al_errf(err,
			       "%s flash: %s: %s (install Debian's tftpd-hpa: "
			       "make deps)",
			       dev, TFTPD_PATH, strerror(errno));
	if (snprintf(s->dir, sizeof(s->dir), "%s/tftp.XXXXXX",
		     t->host->state_dir) >= (int)sizeof(s->dir) ||
	    !mkdtemp(s->dir)) {
		al_errf(err, "%s flash: mkdtemp %s: %s", dev, s->dir,
			strerror(errno));
		s->dir[0] = 0;
		return -1;
	}
	/* chroot'ed there, nobody must get in. */
	chmod(s->dir, 0755);
	snprintf(s->file, sizeof(s->file), "%s/%s", s->dir, c->file);
	if (copy_image(dev, c->image, s->file, err) < 0) {
		s->file[0] = 0;
		tftpd_stop(s);
		return -1;
	}
	snprintf(listen, sizeof(listen), "%s:%d", c->listen_ip, c->listen_port);
	s->pid = fork();
	if (s->pid < 0) {
		s->pid = 0;
		tftpd_stop(s);
		return al_errf(err, "%s flash: fork: %s", dev, strerror(errno));
	}
	if (s->pid == 0) {
		int null = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		execl(TFTPD_PATH, TFTPD_PATH, "--foreground", "--address",
		      listen, "--secure", s->dir, (char *)NULL);
		fprintf(stderr, "%s: exec %s: %s\n", dev, TFTPD_PATH,
			strerror(errno));
		_exit(127);
	}
	setpgid(s->pid, s->pid);

	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	to.sin_port = htons((uint16_t)c->listen_port);
	inet_pton(AF_INET,
		  strcmp(c->listen_ip, "0.0.0.0") ? c->listen_ip : "127.0.0.1",
		  &to.sin_addr);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (sock >= 0 && !up) {
		long ms;

		if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
			s->pid = 0;
			close(sock);
			tftpd_stop(s);
			return al_errf(
			    err,
			    "%s flash: %s --address %s exited at start "
			    "(%s %d; the address may be in use, it says "
			    "why in syslog only)",
			    dev, TFTPD_PATH, listen,
			    WIFEXITED(status) ? "status" : "signal",
			    WIFEXITED(status) ? WEXITSTATUS(status)
					      : WTERMSIG(status));
		}
		up = tftpd_probe(sock, &to);
		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (now.tv_sec - t0.tv_sec) * 1000 +
		     (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (!up && ms > TFTPD_READY_MS)
			break;
	}
	if (sock >= 0)
		close(sock);
	if (!up) {
		tftpd_stop(s);
		return al_errf(err,
			       "%s flash: %s on %s did not answer a probe "
			       "request within %d ms%s",
			       dev, TFTPD_PATH, listen, TFTPD_READY_MS,
			       geteuid() != 0
				   ? " (tftpd-hpa serves only when started as "
				     "root: each transfer drops to user "
				     "nobody)"
				   : "");
	}
	return 0;
}

/* ---- the console conversation ---- */

/* Copies the first line of text (printable) into out. */
static const char *first_line(const char *text, char *out, size_t len)
{
	size_t o = 0;

	while (*text == '\r' || *text == '\n' || *text == ' ')
		text++;
	for (; *text && *text != '\r' && *text != '\n' && o + 1 < len; text++)
		out[o++] = isprint((unsigned char)*text) ? *text : '.';
	out[o] = 0;
	return out;
}

/* Sends cmd and waits for the prompt; s->before then holds its output. */
static int run_cmd(struct console_session *s, const struct uboot_conf *c,
		   const char *cmd, struct al_err *err)
{
	char line[CMD_MAX + 2];

	snprintf(line, sizeof(line), "%s\n", cmd);
	console_log_note(s, "sending '%s'", cmd);
	if (console_send(s, line, err) < 0 ||
	    console_expect(s, &c->prompt, 1, c->timeout_ms, err) < 0)
		return al_err_prefix(err, "step '%s'", cmd);
	return 0;
}

/* What U-Boot prints when a command failed. */
static const char *failure_in(const char *out)
{
	static const char *const marks[] = {
	    "Unknown command", "rror", "ERROR", "failed",
	    "Usage:",	       "Bad ", "Wrong",
	};

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		const char *m = strstr(out, marks[i]);

		if (m) {
			while (m > out && m[-1] != '\n')
				m--;
			return m;
		}
	}
	return NULL;
}

static int checked_cmd(struct console_session *s, const struct uboot_conf *c,
		       const char *cmd, struct al_err *err)
{
	const char *bad;
	char said[200];

	if (run_cmd(s, c, cmd, err) < 0)
		return -1;
	bad = failure_in(s->before);
	if (bad)
		return al_errf(err, "step '%s': %s: U-Boot said '%s'", cmd,
			       s->who, first_line(bad, said, sizeof(said)));
	return 0;
}

static int stop_autoboot(struct console_session *s, const struct uboot_conf *c,
			 struct al_err *err)
{
	const char *waits[] = {c->autoboot, c->prompt};
	int hit;

	console_log_note(s, "waiting for '%s'", c->autoboot);
	hit = console_expect(s, waits, 2, c->timeout_ms, err);
	if (hit < 0)
		return al_err_prefix(err,
				     "step 'stop autoboot' (after power on)");
	if (hit == 1)
		return 0; /* no countdown on this board: already there */
	console_log_note(s, "stopping autoboot");
	if (console_send(s, c->stop_key, err) < 0 ||
	    console_expect(s, &c->prompt, 1, c->timeout_ms, err) < 0)
		return al_err_prefix(err, "step 'stop autoboot' (key sent, "
					  "waiting for the prompt)");
	return 0;
}

static int tftpboot(struct console_session *s, const struct uboot_conf *c,
		    const char *dev, struct al_err *err)
{
	static const char *const answers[] = {
	    "Bytes transferred = ",
	    "TFTP error",
	    "ARP Retry count exceeded",
	    "Retry count exceeded",
	    "Unknown command",
	    "not set",
	    "#", /* progress: U-Boot prints one per few blocks */
	};
	char cmd[CMD_MAX], said[200], line[CMD_MAX + 2], step[CMD_MAX + 160];
	int hit;
	unsigned long long got;
	char *end;

	snprintf(cmd, sizeof(cmd), "tftpboot %s %s", c->load_addr, c->file);
	snprintf(step, sizeof(step), "step '%s' (%.1f MB from %s:%d)", cmd,
		 (double)c->size / 1e6, c->server_ip, c->listen_port);
	fprintf(stderr, "%s: tftpboot %s %s (%.1f MB)\n", dev, c->load_addr,
		c->file, (double)c->size / 1e6);
	console_log_note(s, "sending '%s'", cmd);
	snprintf(line, sizeof(line), "%s\n", cmd);
	if (console_send(s, line, err) < 0)
		return al_err_prefix(err, "%s", step);
	/* A big image takes longer than a step: timeout_s bounds the silence
	 * between progress marks, not the whole transfer. */
	do
		hit = console_expect(s, answers,
				     sizeof(answers) / sizeof(answers[0]),
				     c->timeout_ms, err);
	while (hit == 6);
	if (hit < 0)
		return al_err_prefix(err, "%s", step);
	if (hit == 0) {
		if (console_expect(s, &c->prompt, 1, c->timeout_ms, err) < 0)
			return al_err_prefix(err, "%s", step);
		errno = 0;
		got = strtoull(s->before, &end, 10);
		if (errno || end == s->before)
			return al_errf(
			    err,
			    "%s: %s: cannot read the byte count "
			    "in 'Bytes transferred = %s'",
			    step, s->who,
			    first_line(s->before, said, sizeof(said)));
		if (got != (unsigned long long)c->size)
			return al_errf(err,
				       "%s: %s: U-Boot got %llu bytes, the "
				       "image has %lld",
				       step, s->who, got, (long long)c->size);
		return 0;
	}
	/* What U-Boot said, up to the end of its line. */
	{
		char rest[200];
		const char *ans = answers[hit];

		if (hit == 2 || hit == 3)
			console_send(s, "\003", NULL); /* in case it retries */
		if (console_expect(s, &c->prompt, 1, 2000, NULL) < 0)
			s->before[0] = 0;
		first_line(s->before, rest, sizeof(rest));
		return al_errf(err, "%s: %s: U-Boot said '%s%s'", step, s->who,
			       ans, hit == 5 ? "" : rest);
	}
}

/* bootm answers with "## Booting ..." (legacy image) or "## Loading ..."
 * (FIT) before it starts the kernel; anything else is a refusal. */
static int boot_ram(struct console_session *s, const struct uboot_conf *c,
		    struct al_err *err)
{
	static const char *const answers[] = {
	    "Starting kernel", "Bad ",	"Wrong Image", "Unknown command",
	    "ERROR",	       "Error", "rror:",       "Usage:",
	};
	char line[CMD_MAX + 2], said[200];
	int hit;

	snprintf(line, sizeof(line), "%s\n", c->boot);
	console_log_note(s, "sending '%s'", c->boot);
	if (console_send(s, line, err) < 0)
		return al_err_prefix(err, "step '%s'", c->boot);
	hit = console_expect(s, answers, sizeof(answers) / sizeof(answers[0]),
			     c->timeout_ms, err);
	if (hit < 0)
		return al_err_prefix(err, "step '%s'", c->boot);
	if (hit > 0) {
		const char *ans = answers[hit];
		char rest[160];

		first_line(s->window, rest, sizeof(rest));
		snprintf(said, sizeof(said), "%s%s", ans, rest);
		return al_errf(err, "step '%s': %s: U-Boot said '%s'", c->boot,
			       s->who, said);
	}
	return 0;
}

static int talk_to_uboot(const struct drv_target *t,
			 const struct flash_env *env,
			 const struct uboot_conf *c, struct al_err *err)
{
	const char *dev = t->host->name;
	struct console_session s;
	char cmd[CMD_MAX];
	int rc = -1;

	fprintf(stderr, "%s: power off\n", dev);
	if (env->power_set(env->power_ctx, false, err) < 0)
		return al_err_prefix(err, "%s flash: step 'power off'", dev);
	if (console_session_open(&s, env->console, env->console_t,
				 env->console_log, err) < 0)
		return al_err_prefix(err, "%s flash: step 'open console'", dev);
	console_log_note(&s, "uboot-tftp: flashing %s (%lld bytes)", c->file,
			 (long long)c->size);
	/* The board's supply drains before it comes back (power off_s). */
	if (env->off_s > 0)
		sleep((unsigned)env->off_s);
	fprintf(stderr, "%s: power on, waiting for '%s' on %s\n", dev,
		c->autoboot, s.who);
	if (env->power_set(env->power_ctx, true, err) < 0) {
		al_err_prefix(err, "%s flash: step 'power on'", dev);
		goto out;
	}
	if (stop_autoboot(&s, c, err) < 0)
		goto fail;
	snprintf(cmd, sizeof(cmd), "setenv ipaddr %s", c->dut_ip);
	if (checked_cmd(&s, c, cmd, err) < 0)
		goto fail;
	snprintf(cmd, sizeof(cmd), "setenv serverip %s", c->server_ip);
	if (checked_cmd(&s, c, cmd, err) < 0)
		goto fail;
	if (c->listen_port != TFTP_DEFAULT_PORT) {
		snprintf(cmd, sizeof(cmd), "setenv tftpdstp %d",
			 c->listen_port);
		if (checked_cmd(&s, c, cmd, err) < 0)
			goto fail;
	}
	if (checked_cmd(&s, c, "setenv netretry no", err) < 0 ||
	    tftpboot(&s, c, dev, err) < 0)
		goto fail;
	for (int i = 0; i < c->ncommands; i++) {
		fprintf(stderr, "%s: %s\n", dev, c->commands[i]);
		if (checked_cmd(&s, c, c->commands[i], err) < 0)
			goto fail;
	}
	fprintf(stderr, "%s: %s%s%s\n", dev, c->boot,
		c->version[0] ? ", expecting " : "", c->version);
	if (c->flash_mode) {
		char line[CMD_MAX + 2];

		snprintf(line, sizeof(line), "%s\n", c->boot);
		console_log_note(&s, "sending '%s'", c->boot);
		if (console_send(&s, line, err) < 0) {
			al_err_prefix(err, "step '%s'", c->boot);
			goto fail;
		}
	} else if (boot_ram(&s, c, err) < 0) {
		goto fail;
	}
	rc = 0;
	goto out;
fail:
	al_err_prefix(err, "%s flash", dev);
out:
	console_session_close(&s);
	return rc;
}

static int uboot_tftp_flash(const struct drv_target *t,
			    const struct flash_image *img,
			    const struct flash_env *env, struct al_err *err)
{
	const char *dev = t->host->name;
	struct uboot_conf *c;
	struct tftpd server;
	int rc;

	if (!env || !env->console || !env->console_t)
		return al_err_input(
		    err,
		    "%s:%d: %s flash: driver uboot-tftp talks to "
		    "U-Boot over the console: configure the "
		    "host's console",
		    t->lab->path, t->binding->line, dev);
	if (!env->power_set)
		return al_errf(err,
			       "%s flash: driver uboot-tftp needs to switch "
			       "the DUT's power",
			       dev);
	c = malloc(sizeof(*c));
	if (!c)
		return al_errf(err, "%s flash: out of memory", dev);
	if (load_conf(t, img, c, err) < 0) {
		free(c);
		return -1;
	}
	if (tftpd_start(t, c, &server, err) < 0) {
		free(c);
		return -1;
	}
	fprintf(stderr, "%s: %s serving %s on %s:%d\n", dev, TFTPD_PATH,
		c->file, c->listen_ip, c->listen_port);
	rc = talk_to_uboot(t, env, c, err);
	tftpd_stop(&server);
	free(c);
	return rc;
}

const struct flash_ops flash_uboot_tftp_ops = {
    .name = "uboot-tftp",
    .boots = true,
    .flash = uboot_tftp_flash,
    .settings = settings,
};
