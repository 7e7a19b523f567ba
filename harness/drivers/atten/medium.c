/* atten=medium: the RF paths of the virtual lab. airlab-medium (in the DUT
 * guest) applies a per-path attenuation to every frame; its control
 * socket is reached by running `airlab-medium -s SOCKET -C 'COMMAND'`
 * over the shell of the lab host that runs it.
 *
 * Settings: host (the lab host, required), socket (the daemon's control
 * socket, /run/airlab/medium.sock), command (the client on that host,
 * airlab-medium), paths (generic: channel N is the Nth path, see
 * harness/lab/rfpath.h; the medium knows the same names from cell.conf's
 * AIRLAB_STA_<i>_PATH). */
#include "medium.h"
#include "../../lab/rfpath.h"
#include "../../lab/ydoc.h"
#include "../../util/shquote.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#define DEFAULT_SOCKET	"/run/airlab/medium.sock"
#define DEFAULT_COMMAND "airlab-medium"
#define PLAIN_CHARS                                                            \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-/"
#define SHELL_TIMEOUT_MS 20000
#define REPLY_MAX	 (1024 * 1024)
#define STDERR_KEEP	 512
#define QUOTE_KEEP	 200 /* of a reply or stderr quoted in an error */

struct atten_dev {
	const struct lab *lab;
	const struct lab_atten *atten;
	char host_name[LAB_NAME_MAX];
	const struct lab_host *host;
	char socket[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char command[256];
	struct drv_target shell_t;
	const struct shell_ops *shell;
	struct shell_dev *sh;
};

static const struct drv_setting settings[] = {
    {.name = "host",
     .required = true,
     .what = "the lab host whose shell reaches airlab-medium",
     DRV_FIELD(struct atten_dev, host_name)},
    {.name = "socket",
     .default_value = DEFAULT_SOCKET,
     DRV_FIELD(struct atten_dev, socket)},
    {.name = "command",
     .default_value = DEFAULT_COMMAND,
     DRV_FIELD(struct atten_dev, command)},
    {0},
};

/* One line of text from its start to '\n' or the end. */
static size_t line_len(const char *s)
{
	return strcspn(s, "\n");
}

static int set_msg(char *msg, size_t msglen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int set_msg(char *msg, size_t msglen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !msglen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < ' ')
			*p = '?';
	return rc;
}

/* "PATH DB" with PATH == path; -1 when the line is something else. */
static int parse_db_line(const char *s, size_t len, const char *path,
			 double *db)
{
	size_t plen = strlen(path);
	char num[64];
	char *end;

	if (len <= plen + 1 || strncmp(s, path, plen) != 0 || s[plen] != ' ' ||
	    len - plen - 1 >= sizeof(num))
		return -1;
	memcpy(num, s + plen + 1, len - plen - 1);
	num[len - plen - 1] = 0;
	errno = 0;
	*db = strtod(num, &end);
	if (errno || end == num || *end || num[0] == ' ' || !isfinite(*db))
		return -1;
	return 0;
}

int medium_reply_parse(const char *text, const char *path, double *db,
		       char *msg, size_t msglen)
{
	int found = 0;
	double v = 0;

	if (!text || !*text)
		return set_msg(msg, msglen, -2, "no reply");
	for (const char *s = text; *s;) {
		size_t len = line_len(s);
		const char *next = s + len + (s[len] == '\n');

		if (len == 2 && !strncmp(s, "ok", 2)) {
			size_t after = line_len(next);

			if (*next)
				return set_msg(
				    msg, msglen, -2, "text after 'ok': '%.*s'",
				    (int)(after > 80 ? 80 : after), next);
			if (path && found != 1)
				return set_msg(msg, msglen, -2,
					       "%s '%s DB' line in the reply",
					       found ? "more than one" : "no",
					       path);
			if (path && db)
				*db = v;
			return 0;
		}
		if (len >= 7 && !strncmp(s, "error: ", 7))
			return set_msg(msg, msglen, -1, "%.*s",
				       (int)(len - 7 > 300 ? 300 : len - 7),
				       s + 7);
		if (path) {
			if (parse_db_line(s, len, path, &v) < 0)
				return set_msg(msg, msglen, -2,
					       "unexpected line '%.*s' (want "
					       "'%s DB')",
					       (int)(len > 80 ? 80 : len), s,
					       path);
			found++;
		}
		s = next;
	}
	return set_msg(msg, msglen, -2, "reply ended without an 'ok' line");
}

/* The first max bytes of what was written to fd (a temp file). */
static char *read_back(int fd, size_t max, bool *cut)
{
	char *buf = malloc(max + 1);
	size_t len = 0;
	ssize_t n;

	*cut = false;
	if (!buf || lseek(fd, 0, SEEK_SET) < 0) {
		free(buf);
		return NULL;
	}
	while (len < max && (n = read(fd, buf + len, max - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		len += (size_t)n;
	}
	if (len == max) {
		char c;

		*cut = read(fd, &c, 1) > 0;
	}
	buf[len] = 0;
	return buf;
}

/* Text quoted in an error: one line, at most QUOTE_KEEP bytes. */
static const char *quote(const char *text, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *p = text ? text : ""; *p && o + 3 < len; p++) {
		if (*p == '\n') {
			if (p[1])
				o += (size_t)snprintf(buf + o, len - o, " | ");
			continue;
		}
		buf[o++] = (unsigned char)*p < ' ' ? '?' : *p;
	}
	buf[o] = 0;
	return buf;
}

/* The shell command that sends line to the daemon. */
static int build_cmd(const struct atten_dev *d, const char *line, char *out,
		     size_t len)
{
	size_t off = (size_t)snprintf(out, len, "%s -s ", d->command);

	if (off >= len || sh_quote(out, len, &off, d->socket) < 0 ||
	    off + 4 >= len)
		return -1;
	memcpy(out + off, " -C ", 5);
	off += 4;
	return sh_quote(out, len, &off, line);
}

/* "attenuator NAME (host H, socket S): 'LINE' (channel N)" */
static const char *context(const struct atten_dev *d, const char *line,
			   int channel, char *buf, size_t len)
{
	char ch[32] = "";

	if (channel > 0)
		snprintf(ch, sizeof(ch), " (channel %d)", channel);
	snprintf(buf, len, "attenuator %s (host %s, socket %s): '%.200s'%s",
		 d->atten->name, d->host->name, d->socket, line, ch);
	return buf;
}

/* Runs line on the daemon; 0 with the ok'd reply in *reply (and *db from
 * the "PATH DB" line when path is given), or -1 naming what failed. */
static int exec_line(struct atten_dev *d, const char *line, int channel,
		     const char *path, double *db, char **reply,
		     struct al_err *err)
{
	char cmd[1024], ctx[512], msg[400], q1[QUOTE_KEEP + 4],
	    q2[QUOTE_KEEP + 4];
	FILE *out = NULL, *errf = NULL;
	char *text = NULL, *etext = NULL;
	bool cut = false, ecut;
	int status = -1, rc = -1, prc;

	*reply = NULL;
	context(d, line, channel, ctx, sizeof(ctx));
	if (build_cmd(d, line, cmd, sizeof(cmd)) < 0)
		return al_errf(err, "%s: command too long", ctx);
	out = tmpfile();
	errf = tmpfile();
	if (!out || !errf) {
		al_errf(err, "%s: tmpfile: %s", ctx, strerror(errno));
		goto done;
	}
	if (d->shell->run(d->sh, cmd, NULL, 0, fileno(out), fileno(errf),
			  &status, err) < 0) {
		al_err_prefix(err, "%s", ctx);
		goto done;
	}
	text = read_back(fileno(out), REPLY_MAX, &cut);
	etext = read_back(fileno(errf), STDERR_KEEP, &ecut);
	if (!text || !etext) {
		al_errf(err, "%s: reading the reply back: %s", ctx,
			strerror(errno));
		goto done;
	}
	if (cut) {
		al_errf(err, "%s: reply longer than %d bytes", ctx, REPLY_MAX);
		goto done;
	}
	prc = medium_reply_parse(text, path, db, msg, sizeof(msg));
	if (prc == 0 && status == 0) {
		*reply = text;
		text = NULL;
		rc = 0;
	} else if (prc == -1) {
		al_errf(err, "%s: the medium refused: %s", ctx, msg);
	} else if (status == 127) {
		al_errf(err, "%s: %s is not installed on %s (exit 127: %s)",
			ctx, d->command, d->host->name,
			quote(etext, q1, sizeof(q1)));
	} else if (status != 0) {
		al_errf(err, "%s: '%s' exited %d: %s (reply: '%s')", ctx, cmd,
			status,
			etext[0] ? quote(etext, q1, sizeof(q1)) : "no message",
			quote(text, q2, sizeof(q2)));
	} else {
		al_errf(err, "%s: unexpected reply: %s (reply: '%s')", ctx, msg,
			quote(text, q2, sizeof(q2)));
	}
done:
	free(text);
	free(etext);
	if (out)
		fclose(out);
	if (errf)
		fclose(errf);
	return rc;
}

int medium_ctrl(struct atten_dev *d, const char *line, char **reply,
		struct al_err *err)
{
	return exec_line(d, line, 0, NULL, NULL, reply, err);
}

/* The path of channel, or -1 naming the attenuator's channels. */
static int channel_path(struct atten_dev *d, int channel, char *path,
			size_t len, struct al_err *err)
{
	return atten_channel_path(d->lab, d->atten, channel, path, len, err);
}

static int medium_set_db(struct atten_dev *d, int channel, double db,
			 struct al_err *err)
{
	char path[LAB_NAME_MAX], line[LAB_NAME_MAX + 64];
	char *reply;

	if (channel_path(d, channel, path, sizeof(path), err) < 0)
		return -1;
	if (!isfinite(db) || db < 0 || db > MEDIUM_ATTEN_MAX_DB)
		return al_err_input(
		    err,
		    "attenuator %s (host %s, socket %s): channel %d "
		    "(%s): %g dB is outside 0..%g dB, nothing sent",
		    d->atten->name, d->host->name, d->socket, channel, path, db,
		    MEDIUM_ATTEN_MAX_DB);
	snprintf(line, sizeof(line), "set-atten %s %.2f", path, db);
	if (exec_line(d, line, channel, NULL, NULL, &reply, err) < 0)
		return -1;
	free(reply);
	return 0;
}

static int medium_get_db(struct atten_dev *d, int channel, double *db,
			 struct al_err *err)
{
	char path[LAB_NAME_MAX], line[LAB_NAME_MAX + 64];
	char *reply;

	if (channel_path(d, channel, path, sizeof(path), err) < 0)
		return -1;
	snprintf(line, sizeof(line), "get-atten %s", path);
	if (exec_line(d, line, channel, path, db, &reply, err) < 0)
		return -1;
	free(reply);
	return 0;
}

static void medium_close(struct atten_dev *d)
{
	if (!d)
		return;
	if (d->sh)
		d->shell->close(d->sh);
	free(d);
}

/* A setting that goes into a shell command must be plain characters. */
static int plain_setting(const struct atten_dev *d, const struct drv_target *t,
			 const char *key, const char *v, bool absolute,
			 struct al_err *err)
{
	if ((absolute && v[0] != '/') || strspn(v, PLAIN_CHARS) != strlen(v)) {
		al_err_input(err,
			     "%s:%d: attenuator %s: %s '%.120s' must be %s of "
			     "[A-Za-z0-9_./-]",
			     t->lab->path, drv_setting_line(t, key),
			     d->atten->name, key, v,
			     absolute ? "an absolute path" : "a path");
		if (err)
			al_one_line(err->msg);
		return -1;
	}
	return 0;
}

/* Every setting is known; host is a lab host. */
static int read_settings(struct atten_dev *d, const struct drv_target *t,
			 struct al_err *err)
{
	if (drv_settings_read(t, settings, d, err) < 0)
		return -1;
	d->host = lab_host_find(t->lab, d->host_name);
	if (!d->host)
		return al_err_input(
		    err,
		    "%s:%d: attenuator %s: host '%.80s' is not a "
		    "host of this lab",
		    t->lab->path, t->binding->line, d->atten->name,
		    d->host_name);
	if (plain_setting(d, t, "socket", d->socket, true, err) < 0)
		return -1;
	return plain_setting(d, t, "command", d->command, false, err);
}

static int medium_open(struct atten_dev **out, const struct drv_target *t,
		       struct al_err *err)
{
	const struct lab_atten *a = atten_of_binding(t->lab, t->binding);
	struct atten_dev *d;

	*out = NULL;
	if (!a)
		return al_errf(err,
			       "%s: the medium attenuator driver was "
			       "given a binding that is no attenuator "
			       "of this lab",
			       t->lab->path);
	d = calloc(1, sizeof(*d));
	if (!d)
		return al_errf(err, "attenuator %s: out of memory", a->name);
	d->lab = t->lab;
	d->atten = a;
	if (read_settings(d, t, err) < 0)
		goto fail;
	d->shell_t.lab = t->lab;
	d->shell_t.host = d->host;
	d->shell_t.binding = &d->host->shell;
	if (!d->host->shell.driver[0]) {
		al_err_input(
		    err,
		    "%s:%d: attenuator %s: host %s has no shell, and the "
		    "medium is reached through it",
		    t->lab->path, t->binding->line, a->name, d->host->name);
		goto fail;
	}
	d->shell = shell_driver(d->host->shell.driver, err);
	if (!d->shell) {
		al_err_prefix(err, "%s:%d: attenuator %s: host %s shell",
			      t->lab->path, d->host->shell.line, a->name,
			      d->host->name);
		goto fail;
	}
	if (d->shell->open(&d->sh, &d->shell_t, SHELL_TIMEOUT_MS, err) < 0) {
		d->sh = NULL;
		al_err_prefix(err, "attenuator %s: shell of host %s", a->name,
			      d->host->name);
		goto fail;
	}
	*out = d;
	return 0;
fail:
	medium_close(d);
	return -1;
}

const struct atten_ops atten_medium_ops = {
    .name = "medium",
    .open = medium_open,
    .set_db = medium_set_db,
    .get_db = medium_get_db,
    .close = medium_close,
    .settings = settings,
};
