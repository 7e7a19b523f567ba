/* power=command: a PDU or relay driven by commands on this machine, as
 * LAVA's power_on_command / power_off_command: templates run with sh -c,
 * their fields filled in with shell-quoted values.
 *
 *   power:
 *     driver: command
 *     on:  "pdu-ctl --host {host} --outlet {port} on"
 *     off: "pdu-ctl --host {host} --outlet {port} off"
 *     get: "pdu-ctl --host {host} --outlet {port} status"   # optional
 *     host: 192.168.10.2      # {host}
 *     port: 3                 # {port}
 *     pdu: rack1-pdu          # {pdu}
 *     timeout_s: 30           # per command; then its process group dies
 *
 * get's output must say on or off (the first word, any case: on/off,
 * 1/0, true/false). Without get, the state is the last one a command set
 * (kept in the host's state dir as power.state) and is reported as that:
 * a lab whose PDU cannot be read is told apart. {state} and {images}
 * expand as everywhere in the lab file. */
#include "../driver.h"
#include "../../util/proc.h"
#include "../../util/shquote.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define CMD_MAX 4096

struct command_conf {
	char on[CMD_MAX], off[CMD_MAX], get[CMD_MAX]; /* the templates */
	char host[256], port[256], pdu[256];
	int timeout_s;
};

static const struct drv_setting settings[] = {
    {.name = "on",
     .required = true,
     .what = "the command template that switches the DUT on",
     DRV_FIELD(struct command_conf, on)},
    {.name = "off",
     .required = true,
     .what = "the command template that switches the DUT off",
     DRV_FIELD(struct command_conf, off)},
    {.name = "get", DRV_FIELD(struct command_conf, get)},
    {.name = "host", DRV_FIELD(struct command_conf, host)}, /* {host} */
    {.name = "port", DRV_FIELD(struct command_conf, port)}, /* {port} */
    {.name = "pdu", DRV_FIELD(struct command_conf, pdu)},   /* {pdu} */
    {.name = "timeout_s",
     .type = DRV_INT,
     .default_value = "30",
     .min = 1,
     .max = 3600,
     DRV_FIELD(struct command_conf, timeout_s)},
    {0},
};

struct power_dev {
	const struct lab *lab;
	const struct lab_host *host;
	char on[CMD_MAX], off[CMD_MAX], get[CMD_MAX]; /* as run */
	char state_file[PATH_MAX + 32];
	int timeout_s;
};

/* The value of a field a template may use, NULL for any other. */
static const char *field_value(const struct command_conf *c, const char *field)
{
	return !strcmp(field, "host")	? c->host
	       : !strcmp(field, "port") ? c->port
	       : !strcmp(field, "pdu")	? c->pdu
					: NULL;
}

/* Fills {host}, {port}, {pdu} in template key with quoted values, {state}
 * and {images} through lab_expand. */
static int render(const struct drv_target *t, const struct command_conf *c,
		  const char *key, const char *tpl, char *out, size_t len,
		  struct al_err *err)
{
	int line = drv_setting_line(t, key);
	char expanded[CMD_MAX];
	size_t off = 0;

	out[0] = 0;
	for (const char *s = tpl; *s;) {
		const char *close = *s == '{' ? strchr(s, '}') : NULL;
		char field[16];
		const char *v = NULL;

		if (close && close - s - 1 < (long)sizeof(field)) {
			snprintf(field, sizeof(field), "%.*s",
				 (int)(close - s - 1), s + 1);
			v = field_value(c, field);
		}
		if (v) {
			if (!*v)
				return al_err_input(
				    err,
				    "%s:%d: %s power %s uses {%s}, but the "
				    "binding has no %s",
				    t->lab->path, line, t->host->name, key,
				    field, field);
			if (sh_quote(out, len, &off, v) < 0)
				goto long_cmd;
			s = close + 1;
			continue;
		}
		if (off + 1 >= len)
			goto long_cmd;
		out[off++] = *s++;
		out[off] = 0;
	}
	/* Then {state} and {images}, as in every lab setting. */
	if (lab_expand(t->lab, t->host, out, expanded, sizeof(expanded), err) <
	    0)
		return al_err_prefix(err, "%s:%d: %s power %s", t->lab->path,
				     line, t->host->name, key);
	snprintf(out, len, "%s", expanded);
	return 0;
long_cmd:
	return al_err_input(err, "%s:%d: %s power %s: the command is too long",
			    t->lab->path, line, t->host->name, key);
}

/* One template run; its output in out. -1 names host, key, command. */
static int run(struct power_dev *d, const char *key, const char *cmd, char *out,
	       size_t len, struct al_err *err)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	int timed_out, rc;

	rc = proc_capture_timeout(argv, out, len, d->timeout_s * 1000,
				  &timed_out);
	if (timed_out)
		return al_errf(err,
			       "%s: power %s: '%s' did not finish within %d s "
			       "(killed)",
			       d->host->name, key, cmd, d->timeout_s);
	if (rc != 0)
		return al_errf(err, "%s: power %s: '%s' exited %d: %.300s",
			       d->host->name, key, cmd, rc,
			       out[0] ? out : "(no output)");
	return 0;
}

static int cmd_open(struct power_dev **out, const struct drv_target *t,
		    struct al_err *err)
{
	struct command_conf *c = calloc(1, sizeof(*c));
	struct power_dev *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!c || !d) {
		al_errf(err, "%s power: out of memory", t->host->name);
		goto fail;
	}
	if (drv_settings_read(t, settings, c, err) < 0 ||
	    render(t, c, "on", c->on, d->on, sizeof(d->on), err) < 0 ||
	    render(t, c, "off", c->off, d->off, sizeof(d->off), err) < 0 ||
	    render(t, c, "get", c->get, d->get, sizeof(d->get), err) < 0)
		goto fail;
	d->lab = t->lab;
	d->host = t->host;
	d->timeout_s = c->timeout_s;
	snprintf(d->state_file, sizeof(d->state_file), "%s/power.state",
		 t->host->state_dir);
	free(c);
	*out = d;
	return 0;
fail:
	free(c);
	free(d);
	return -1;
}

static int cmd_set(struct power_dev *d, bool on, struct al_err *err)
{
	char out[1024];
	FILE *f;

	if (run(d, on ? "on" : "off", on ? d->on : d->off, out, sizeof(out),
		err) < 0)
		return -1;
	/* What was commanded, for a PDU without a get. */
	mkdir(d->lab->state_dir, 0755);
	mkdir(d->host->state_dir, 0755);
	f = fopen(d->state_file, "w");
	if (f) {
		fprintf(f, "%s\n", on ? "on" : "off");
		fclose(f);
	}
	return 0;
}

/* on/off, 1/0, true/false as the first word of s. */
static int parse_state(const char *s, bool *on)
{
	static const char *const yes[] = {"on", "1", "true"};
	static const char *const no[] = {"off", "0", "false"};
	size_t len;

	s += strspn(s, " \t\r\n");
	len = strcspn(s, " \t\r\n:,");
	for (size_t i = 0; i < 3; i++) {
		if (len == strlen(yes[i]) && !strncasecmp(s, yes[i], len)) {
			*on = true;
			return 0;
		}
		if (len == strlen(no[i]) && !strncasecmp(s, no[i], len)) {
			*on = false;
			return 0;
		}
	}
	return -1;
}

static int cmd_get(struct power_dev *d, bool *on, struct al_err *err)
{
	char out[1024];
	FILE *f;

	if (d->get[0]) {
		if (run(d, "get", d->get, out, sizeof(out), err) < 0)
			return -1;
		if (parse_state(out, on) < 0)
			return al_errf(err,
				       "%s: power get: '%s' said '%.200s', "
				       "neither on nor off",
				       d->host->name, d->get, out);
		return 0;
	}
	f = fopen(d->state_file, "r");
	if (!f)
		return al_errf(err,
			       "%s: power get: no 'get' template and no state "
			       "set by airlab yet (%s): the PDU's state is "
			       "unknown",
			       d->host->name, d->state_file);
	if (!fgets(out, sizeof(out), f) || parse_state(out, on) < 0) {
		fclose(f);
		return al_errf(err, "%s: power get: %s is not on or off",
			       d->host->name, d->state_file);
	}
	fclose(f);
	return 0;
}

static void cmd_close(struct power_dev *d)
{
	free(d);
}

const struct power_ops power_command_ops = {"command", cmd_open,  cmd_set,
					    cmd_get,   cmd_close, settings};
