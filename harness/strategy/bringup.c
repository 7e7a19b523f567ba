/* The cell bring-up sequence (bringup.h). */
#include "bringup.h"
#include "../util/clock.h"
#include "../util/shquote.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool bringup_kernel_matches(const char *series, const char *release)
{
	size_t n = strlen(series);

	return strncmp(series, release, n) == 0 &&
	       (release[n] == '.' || release[n] == '-' || !release[n]);
}

static int fail(struct cell_state *st, struct al_err *err)
{
	snprintf(st->failure, sizeof(st->failure), "%s", err->msg);
	return -1;
}

static void ap_target(const struct cell *c, struct drv_target *t)
{
	t->lab = &c->lab;
	t->host = c->ap_host;
	t->binding = &c->ap_host->ap;
}

int bringup_check(const struct cell *c, const struct ap_ops **ops,
		  struct al_err *err)
{
	const struct lab_binding *b = &c->ap_host->ap;
	struct drv_target t;
	bool virtual_ap;

	if (!b->driver[0])
		return al_errf(err,
			       "%s:%d: host %s carries the AP of %s but has no "
			       "ap: binding (driver: hostapd for a Linux or "
			       "OpenWrt AP, virtual for airlab's virtual DUT)",
			       c->lab.path, c->ap_host->line, c->ap_host->name,
			       c->topo.path);
	if (!(*ops = ap_driver(b->driver, err)))
		return al_err_prefix(err, "%s:%d: %s ap", c->lab.path, b->line,
				     c->ap_host->name);
	ap_target(c, &t);
	if ((*ops)->check(&t, err) < 0)
		return -1;
	virtual_ap = cell_ap_by_image(c);
	for (int i = 0; i < c->topo.nstations && !virtual_ap; i++) {
		const struct topo_station *s = &c->topo.stations[i];

		if (cell_station_local(c, s))
			return al_errf(err,
				       "%s:%d: station %s is on the AP's host "
				       "%s, whose AP (driver %s) runs no "
				       "stations: put it on a station host",
				       c->topo.path, s->line, s->name, s->host,
				       b->driver);
	}
	if (c->topo.ap.address[0] && virtual_ap)
		return al_errf(err,
			       "%s:%d: ap: address: is for an AP that airlab "
			       "sets up (driver hostapd); the virtual DUT's "
			       "AP is 10.42.0.1/24",
			       c->topo.path, c->topo.ap.line);
	for (int i = 0; i < c->variant.nknobs; i++) {
		const struct variant_knob *k = &c->variant.knobs[i];

		if (strstr(k->target, "{wired}") && !lab_param(b, "wired") &&
		    !virtual_ap)
			return al_errf(err,
				       "%s:%d: knob %s needs the AP's wired "
				       "side, and %s:%d (%s ap) has no wired: "
				       "setting",
				       c->variant.path, k->line, k->name,
				       c->lab.path, b->line, c->ap_host->name);
	}
	return 0;
}

void bringup_ap_config(const struct cell *c, struct ap_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->variant = c->variant.name;
	cfg->radio = c->topo.ap.radio;
	cfg->ssid = c->topo.ap.ssid;
	cfg->passphrase = c->topo.ap.passphrase;
	cfg->channel = c->topo.ap.channel;
	cfg->ht = c->topo.ap.ht != 0;
	cfg->basic_rates = c->topo.ap.basic_rates;
	cfg->nbasic_rates = c->topo.ap.nbasic_rates;
	cfg->address = c->topo.ap.address;
}

static int env_run(void *ctx, const char *cmd, const char *in, char **out,
		   char **err_out, int *status, int timeout_s,
		   struct al_err *err)
{
	return dut_run_io(ctx, cmd, in, out, err_out, status, timeout_s, err);
}

void bringup_ap_env(struct dut *d, struct ap_env *env)
{
	env->host = d->host->name;
	env->run = env_run;
	env->ctx = d;
}

/* ---- knobs ---- */

/* Expands {phy}, {iface}, {wired} in a knob's target. */
static int knob_expand(const struct cell *c, const struct variant_knob *k,
		       const struct ap_info *info, char *out, size_t len,
		       struct al_err *err)
{
	const struct {
		const char *field, *value;
	} f[] = {{"{phy}", info->phy},
		 {"{iface}", info->iface},
		 {"{wired}", info->wired}};
	size_t o = 0;

	for (const char *p = k->target; *p;) {
		size_t i, n = 0;

		for (i = 0; i < 3; i++)
			if (!strncmp(p, f[i].field, strlen(f[i].field)))
				break;
		if (i < 3) {
			if (!f[i].value[0])
				return al_errf(
				    err,
				    "%s:%d: knob %s: the AP's driver "
				    "did not tell its %.*s",
				    c->variant.path, k->line, k->name,
				    (int)strlen(f[i].field) - 2,
				    f[i].field + 1);
			n = strlen(f[i].value);
			if (o + n >= len)
				break;
			memcpy(out + o, f[i].value, n);
			o += n;
			p += strlen(f[i].field);
			continue;
		}
		if (o + 1 >= len)
			break;
		out[o++] = *p++;
	}
	out[o] = 0;
	if (o + 1 >= len)
		return al_errf(err, "%s:%d: knob %s: path too long",
			       c->variant.path, k->line, k->name);
	return 0;
}

/* What a knob is done with: a file written and read back, or a root
 * qdisc replaced and shown. Exit 3: the file or interface is missing. */
#define KNOB_FILE_CMD                                                          \
	"; case \"$f\" in /sys/kernel/debug/*) [ -d "                          \
	"/sys/kernel/debug/ieee80211 ] || mount -t debugfs debugfs "           \
	"/sys/kernel/debug 2>/dev/null;; esac; [ -e \"$f\" ] || exit 3; "      \
	"printf '%s\\n' \"$v\" >\"$f\" || exit 4; cat \"$f\""
#define KNOB_QDISC_CMD                                                         \
	"; TC=tc; for x in /usr/sbin/tc /sbin/tc; do [ -x $x ] && TC=$x && "   \
	"break; done; [ -e \"/sys/class/net/$f\" ] || exit 3; $TC qdisc "      \
	"replace dev \"$f\" root $v || exit 4; $TC qdisc show dev \"$f\" root"

static void first_line(const char *text, char *out, size_t len)
{
	const char *p = text ? text : "";
	size_t n;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	n = strcspn(p, "\n");
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	snprintf(out, len, "%.*s", (int)n, p);
}

/* The first word of s into out. */
static void first_word(const char *s, char *out, size_t len)
{
	while (*s == ' ')
		s++;
	snprintf(out, len, "%.*s", (int)strcspn(s, " "), s);
}

static int knob_apply(struct dut *d, const struct cell *c,
		      const struct variant_knob *k, const struct ap_info *info,
		      struct knob_result *r, struct al_err *err)
{
	char target[256], cmd[1400], *out = NULL, *eout = NULL;
	size_t off = 0;
	int status = -1, bad = 0;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", k->name);
	snprintf(r->set, sizeof(r->set), "%s", k->value);
	r->line = k->line;
	if (knob_expand(c, k, info, target, sizeof(target), err) < 0)
		return -1;
	snprintf(r->target, sizeof(r->target), "%s", target);
	off = (size_t)snprintf(cmd, sizeof(cmd),
			       "PATH=$PATH:/usr/sbin:/sbin; f=");
	bad |= sh_quote(cmd, sizeof(cmd), &off, target) < 0;
	bad |= off + 4 >= sizeof(cmd);
	if (!bad) {
		memcpy(cmd + off, " v=", 4);
		off += 3;
	}
	/* A qdisc spec is words for tc (checked to be plain tokens). */
	bad |= sh_quote(cmd, sizeof(cmd), &off, k->value) < 0;
	bad |=
	    off + sizeof(KNOB_FILE_CMD) + sizeof(KNOB_QDISC_CMD) >= sizeof(cmd);
	if (bad)
		return al_errf(err, "%s:%d: knob %s: command too long",
			       c->variant.path, k->line, k->name);
	strcat(cmd, k->kind == KNOB_QDISC ? KNOB_QDISC_CMD : KNOB_FILE_CMD);
	if (dut_run_io(d, cmd, NULL, &out, &eout, &status, 30, err) < 0)
		return al_err_prefix(err, "%s:%d: knob %s", c->variant.path,
				     k->line, k->name);
	first_line(out, r->read, sizeof(r->read));
	if (status == 3)
		al_errf(err, "%s:%d: knob %s: %s has no %s%s", c->variant.path,
			k->line, k->name, d->host->name,
			k->kind == KNOB_QDISC ? "interface " : "", target);
	else if (status != 0) {
		char why[300];

		first_line(eout, why, sizeof(why));
		al_errf(
		    err, "%s:%d: knob %s: %s on %s '%s' failed (exit %d)%s%s",
		    c->variant.path, k->line, k->name,
		    k->kind == KNOB_QDISC ? "tc qdisc replace root" : "writing",
		    target, k->value, status, why[0] ? ": " : "", why);
	} else if (k->kind == KNOB_QDISC) {
		/* "qdisc pfifo 8001: root ...": the kind is the 2nd word. */
		char want[64], got[64];

		first_word(k->value, want, sizeof(want));
		first_word(r->read + (strncmp(r->read, "qdisc ", 6) ? 0 : 6),
			   got, sizeof(got));
		if (strcmp(want, got))
			status = al_errf(err,
					 "%s:%d: knob %s: %s reads back '%s', "
					 "not a %s",
					 c->variant.path, k->line, k->name,
					 target, r->read, want);
	} else if (k->exact && strcmp(r->read, k->value)) {
		status = al_errf(err,
				 "%s:%d: knob %s: %s reads back '%s' after "
				 "'%s' was written",
				 c->variant.path, k->line, k->name, target,
				 r->read, k->value);
	}
	free(out);
	free(eout);
	return status == 0 ? 0 : -1;
}

int bringup_knobs(struct dut *d, const struct cell *c,
		  const struct ap_info *info, struct cell_state *st,
		  struct al_err *err)
{
	st->nknobs = 0;
	for (int i = 0; i < c->variant.nknobs; i++) {
		struct knob_result *r = &st->knobs[st->nknobs];

		if (knob_apply(d, c, &c->variant.knobs[i], info, r, err) < 0)
			return -1;
		st->nknobs++;
		fprintf(stderr, "%s: knob %s: %s = %s (reads %s)\n",
			d->host->name, r->name, r->target, r->set, r->read);
	}
	return 0;
}

/* ---- stations ---- */

/* The MACs in an `iw dev IF station dump`, lower case, one per line. */
#define AP_STATIONS                                                            \
	" station dump | sed -n 's/^Station \\([0-9a-fA-F:]*\\) .*/\\1/p' | "  \
	"tr 'A-F' 'a-f'"

/* A station on a station host is associated only when the AP lists it
 * too: a supplicant's COMPLETED against another AP would pass for one. */
static int check_in_ap(struct dut *d, const struct cell *c,
		       struct cell_state *st, struct al_err *err)
{
	char cmd[256], *out = NULL, mac[18];
	int status;

	size_t off = (size_t)snprintf(cmd, sizeof(cmd),
				      "PATH=$PATH:/usr/sbin:/sbin; iw dev ");

	if (sh_quote(cmd, sizeof(cmd), &off, st->ap.iface) < 0 ||
	    off + sizeof(AP_STATIONS) > sizeof(cmd))
		return al_errf(err, "%s: interface name too long",
			       d->host->name);
	strcat(cmd, AP_STATIONS);
	if (dut_run_capture(d, cmd, &out, &status, 30, err) < 0)
		return -1;
	if (status != 0) {
		free(out);
		return al_errf(err, "%s: 'iw dev %s station dump' exited %d",
			       d->host->name, st->ap.iface, status);
	}
	for (int i = 0; i < st->n; i++) {
		struct station_row *r = &st->rows[i];
		const struct topo_station *s = &c->topo.stations[i];

		if (cell_station_local(c, s) || !r->associated)
			continue;
		snprintf(mac, sizeof(mac), "%s", r->addr);
		for (char *p = mac; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		if (!mac[0] || !strstr(out ? out : "", mac)) {
			r->associated = false;
			snprintf(r->wpa_state, sizeof(r->wpa_state),
				 "NOT_IN_AP_TABLE");
		}
	}
	free(out);
	return 0;
}

int bringup_stations(struct dut *d, const struct cell *c,
		     const struct ap_ops *ap, struct stahost_set *sh,
		     int wait_s, struct cell_state *st, FILE *show,
		     struct al_err *err)
{
	struct drv_target t;
	struct ap_env env;
	char *out = NULL;
	double t0 = mono_s(), left;
	bool local = false;

	for (int i = 0; i < c->topo.nstations; i++)
		local |= cell_station_local(c, &c->topo.stations[i]);
	/* Only an AP host that runs stations (the virtual DUT) has rows. */
	if (local && ap->stations) {
		ap_target(c, &t);
		bringup_ap_env(d, &env);
		if (ap->stations(&t, &env, wait_s, &out, err) < 0)
			return -1;
	}
	/* The station hosts' rows follow the AP host's: one table. */
	left = wait_s - (mono_s() - t0);
	if (sh && sh->n &&
	    stahost_report(sh, c, left > 0 ? left : 0, &out, err) < 0) {
		free(out);
		return -1;
	}
	st->n = stations_parse(&c->topo, out ? out : "", st->rows,
			       TOPO_MAX_STATIONS, err);
	free(out);
	if (st->n < 0)
		return -1;
	if (sh && sh->n && st->ap.iface[0] && check_in_ap(d, c, st, err) < 0)
		return -1;
	if (show)
		stations_print(show, st->rows, st->n);
	st->nassoc = 0;
	for (int i = 0; i < st->n; i++)
		st->nassoc += st->rows[i].associated;
	return st->n;
}

/* ---- the sequence ---- */

static int dut_release(struct dut *d, char *out, size_t len, struct al_err *err)
{
	char *text = NULL;
	int status;

	if (dut_run_capture(d, "uname -r", &text, &status, 60, err) < 0)
		return -1;
	first_line(text, out, len);
	free(text);
	if (status != 0 || !out[0])
		return al_errf(err, "%s: 'uname -r' exited %d", d->host->name,
			       status);
	return 0;
}

/* Flashes the variant and boots it. */
static int boot_variant(struct cell *c, struct dut *d, bool on,
			struct al_err *err)
{
	const size_t conf_len = 64 * 1024;
	char *conf = malloc(conf_len);
	struct flash_env env;
	int rc = 0;

	if (!conf)
		return al_errf(err, "out of memory");
	if (cell_conf_render(c, conf, conf_len, err) < 0) {
		rc = -1;
	} else if (d->flash) {
		struct flash_image img = {c->variant.name, c->variant.kernel,
					  conf};

		fprintf(stderr, "%s: flashing %s (kernel %s) for %s\n",
			d->host->name, c->variant.name, c->variant.kernel,
			c->topo.name);
		dut_flash_env(d, &env);
		rc = d->flash->flash(&d->flash_t, &img, &env, err);
	}
	free(conf);
	if (rc < 0)
		return -1;
	if (d->flash && d->flash->boots)
		/* The driver left the DUT booting its new image. */
		return dut_wait_ready(d, err);
	if (on)
		/* A running DUT keeps its old image until it reboots. */
		return dut_power_cycle(d, err);
	fprintf(stderr, "%s: power on\n", d->host->name);
	if (dut_power_set(d, true, err) < 0)
		return -1;
	return dut_wait_ready(d, err);
}

/* A kernel that panics at boot is tried again, up to the DUT's
 * boot_attempts, flashed and booted anew; each panic is said and the
 * first kept for the record (a flaky boot is a finding, not a secret). */
static int boot_with_retry(struct cell *c, struct dut *d, bool on,
			   struct cell_state *st, struct al_err *err)
{
	for (;;) {
		st->boots++;
		if (boot_variant(c, d, on, err) == 0)
			return 0;
		if (!d->boot_panicked || st->boots >= d->boot_attempts)
			return -1;
		if (!st->boot_panic[0])
			snprintf(st->boot_panic, sizeof(st->boot_panic), "%s",
				 d->boot_panic);
		fprintf(stderr,
			"airlab: %s\n%s: booting again (attempt %d of "
			"%d)\n",
			err->msg, d->host->name, st->boots + 1,
			d->boot_attempts);
		on = true;
	}
}

int bringup_cell(struct cell *c, struct dut *d, const struct bringup_opts *o,
		 struct cell_state *st, struct al_err *err)
{
	const struct ap_ops *ap;
	struct drv_target t;
	struct ap_config cfg;
	struct ap_env env;
	struct stahost_set *sh;
	int rc, nfailed = 0;
	bool on, up = false;

	memset(st, 0, sizeof(*st));
	st->t0 = mono_s();
	if (bringup_check(c, &ap, err) < 0)
		return fail(st, err);
	snprintf(st->ap_driver, sizeof(st->ap_driver), "%s", ap->name);
	ap_target(c, &t);
	bringup_ap_config(c, &cfg);
	bringup_ap_env(d, &env);
	if (dut_power_get(d, &on, err) < 0)
		return fail(st, err);
	/* A DUT already serving this variant's cell is used as it is. */
	if (o->reuse && on &&
	    dut_release(d, st->release, sizeof(st->release), err) == 0 &&
	    ap->status(&t, &env, &cfg, &st->ap, err) == 0 &&
	    !strcmp(st->ap.state, "ENABLED") &&
	    !strcmp(st->ap.variant, c->variant.name)) {
		up = true;
		fprintf(stderr, "%s: already up with %s (kernel %s)\n",
			d->host->name, st->ap.variant, st->release);
	} else {
		if (boot_with_retry(c, d, on, st, err) < 0 ||
		    dut_release(d, st->release, sizeof(st->release), err) < 0)
			return fail(st, err);
	}
	if (!bringup_kernel_matches(c->variant.kernel, st->release)) {
		al_errf(err, "%s booted kernel '%s' but variant %s wants %s",
			d->host->name, st->release, c->variant.name,
			c->variant.kernel);
		return fail(st, err);
	}
	if (!up && ap->start(&t, &env, &cfg, &st->ap, err) < 0)
		return fail(st, err);
	fprintf(stderr, "%s: ap (%s) %s on %s (%s), %s\n", d->host->name,
		ap->name, st->ap.state, st->ap.iface, st->ap.phy,
		st->ap.version[0] ? st->ap.version : "hostapd version unknown");
	/* Knobs every time: the record reads them back for each run. */
	if (bringup_knobs(d, c, &st->ap, st, err) < 0) {
		struct al_err e2;

		/* Nothing half set up stays: the AP goes (the virtual
		 * DUT's with its power, at the next bring-up). */
		if (ap->stop(&t, &env, &cfg, &e2) < 0)
			fprintf(stderr, "airlab: %s\n", e2.msg);
		return fail(st, err);
	}
	/* Stations on station hosts start once the AP is up; they
	 * associate while the AP host's own are waited for. */
	sh = calloc(1, sizeof(*sh));
	if (!sh) {
		al_errf(err, "out of memory");
		return fail(st, err);
	}
	if (stahost_open(sh, c, true, err) < 0) {
		free(sh);
		return fail(st, err);
	}
	if (sh->n) {
		/* A run reuses what is up, stations included: a sweep's
		 * rate masks live on their interfaces. */
		nfailed = stahost_start(sh, c, o->reuse, err);
		if (nfailed < 0) {
			stahost_close(sh);
			free(sh);
			return fail(st, err);
		}
	}
	fprintf(stderr,
		"%s: kernel %s (variant %s); waiting up to %d s for %d "
		"stations\n",
		d->host->name, st->release, c->variant.name, o->wait_s,
		c->topo.nstations);
	rc = bringup_stations(d, c, ap, sh, o->wait_s, st, o->show, err);
	stahost_close(sh);
	free(sh);
	if (rc < 0)
		return fail(st, err);
	if (o->show)
		fprintf(o->show,
			"%s: %d/%d stations associated, %.1f s after airlab "
			"up (variant %s, kernel %s)\n",
			c->topo.name, st->nassoc, st->n, mono_s() - st->t0,
			c->variant.name, st->release);
	if (nfailed > 0) {
		al_errf(err,
			"%d station%s on station hosts did not start "
			"(see above)",
			nfailed, nfailed > 1 ? "s" : "");
		return fail(st, err);
	}
	return 0;
}

int bringup_down(struct cell *c, struct dut *d, bool stations_only,
		 struct al_err *err)
{
	struct stahost_set *sh = calloc(1, sizeof(*sh));
	const struct ap_ops *ap = NULL;
	struct al_err e;
	struct drv_target t;
	struct ap_config cfg;
	struct ap_env env;
	int rc = 0;
	bool on = true;

#define DOWN_FAIL()                                                            \
	do {                                                                   \
		fprintf(stderr, "airlab: %s\n", e.msg);                        \
		if (!rc)                                                       \
			*err = e;                                              \
		rc = -1;                                                       \
	} while (0)

	if (!sh)
		return al_errf(err, "out of memory");
	/* A station host that does not answer is reported; the AP host
	 * still goes down. */
	if (stahost_open(sh, c, true, &e) < 0) {
		DOWN_FAIL();
	} else {
		if (sh->n && stahost_stop(sh, c, &e) < 0)
			DOWN_FAIL();
		stahost_close(sh);
	}
	free(sh);
	if (stations_only)
		return rc;
	if (d->power && dut_power_get(d, &on, &e) < 0)
		DOWN_FAIL();
	/* The AP's driver undoes what it made while the host still runs. */
	if (on && c->ap_host->ap.driver[0]) {
		if (bringup_check(c, &ap, &e) < 0)
			DOWN_FAIL();
		else {
			ap_target(c, &t);
			bringup_ap_config(c, &cfg);
			bringup_ap_env(d, &env);
			if (ap->stop(&t, &env, &cfg, &e) < 0)
				DOWN_FAIL();
			else if (!ap->stations)
				printf("%s: ap (%s) stopped\n", d->host->name,
				       ap->name);
		}
	}
	if (!d->power) {
		printf("%s: no power driver: left on\n", d->host->name);
	} else if (dut_power_set(d, false, &e) < 0) {
		DOWN_FAIL();
	} else {
		printf("%s: off\n", d->host->name);
	}
#undef DOWN_FAIL
	return rc;
}
