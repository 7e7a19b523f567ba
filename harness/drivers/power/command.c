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

static const char *const known[] = {"on",   "off", "get",      "host",
				    "port", "pdu", "timeout_s"};

struct power_dev {
	const struct lab *lab;
	const struct lab_host *host;
	const struct lab_binding *b;
	char on[CMD_MAX], off[CMD_MAX], get[CMD_MAX];
	char state_file[PATH_MAX + 32];
	int timeout_s;
};

/* Fills {host}, {port}, {pdu} in tpl with quoted values, {state} and
 * {images} through lab_expand. */
static int render(struct power_dev *d, const char *key, char *out, size_t len,
		  struct al_err *err)
{
	const struct lab_param *p = lab_param_entry(d->b, key);
	char expanded[CMD_MAX];
	size_t off = 0;

	out[0] = 0;
	if (!p)
		return 0;
	for (const char *s = p->value; *s;) {
		const char *close = *s == '{' ? strchr(s, '}') : NULL;
		char field[16];
		const char *v;

		if (close && close - s - 1 < (long)sizeof(field)) {
			snprintf(field, sizeof(field), "%.*s",
				 (int)(close - s - 1), s + 1);
			if (!strcmp(field, "host") || !strcmp(field, "port") ||
			    !strcmp(field, "pdu")) {
				v = lab_param(d->b, field);
				if (!v)
					return al_err_input(
					    err,
					    "%s:%d: %s power %s uses {%s}, "
					    "but the binding has no %s",
					    d->lab->path, p->line,
					    d->host->name, key, field, field);
				if (sh_quote(out, len, &off, v) < 0)
					goto long_cmd;
				s = close + 1;
				continue;
			}
		}
		if (off + 1 >= len)
			goto long_cmd;
		out[off++] = *s++;
		out[off] = 0;
	}
	/* Then {state} and {images}, as in every lab setting. */
	if (lab_expand(d->lab, d->host, out, expanded, sizeof(expanded), err) <
	    0)
		return al_err_prefix(err, "%s:%d: %s power %s", d->lab->path,
				     p->line, d->host->name, key);
	snprintf(out, len, "%s", expanded);
	return 0;
long_cmd:
	return al_err_input(err, "%s:%d: %s power %s: the command is too long",
			    d->lab->path, p->line, d->host->name, key);
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
	const struct lab_binding *b = t->binding;
	struct power_dev *d;
	const char *tmo = lab_param(b, "timeout_s");
	char *end;

	*out = NULL;
	if (drv_check_settings(t, known, sizeof(known) / sizeof(known[0]),
			       err) < 0)
		return -1;
	if (!lab_param(b, "on") || !lab_param(b, "off"))
		return al_err_input(
		    err,
		    "%s:%d: %s power: driver command needs both "
		    "'on' and 'off' command templates",
		    t->lab->path, b->line, t->host->name);
	d = calloc(1, sizeof(*d));
	if (!d)
		return al_errf(err, "%s power: out of memory", t->host->name);
	d->lab = t->lab;
	d->host = t->host;
	d->b = b;
	d->timeout_s = 30;
	if (tmo) {
		long v = strtol(tmo, &end, 10);

		if (end == tmo || *end || v < 1 || v > 3600) {
			al_err_input(
			    err,
			    "%s:%d: %s power: timeout_s '%.40s' is not 1 "
			    "to 3600",
			    t->lab->path, lab_param_entry(b, "timeout_s")->line,
			    t->host->name, tmo);
			free(d);
			return -1;
		}
		d->timeout_s = (int)v;
	}
	if (render(d, "on", d->on, sizeof(d->on), err) < 0 ||
	    render(d, "off", d->off, sizeof(d->off), err) < 0 ||
	    render(d, "get", d->get, sizeof(d->get), err) < 0) {
		free(d);
		return -1;
	}
	snprintf(d->state_file, sizeof(d->state_file), "%s/power.state",
		 t->host->state_dir);
	*out = d;
	return 0;
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

const struct power_ops power_command_ops = {"command", cmd_open, cmd_set,
					    cmd_get, cmd_close};
