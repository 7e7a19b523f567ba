/* airlab up: flash the variant, boot, bring the cell up, wait for the
 * stations and print one row per station. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double cli_mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Checks that the DUT booted the variant's kernel series ("6.1" matches
 * "6.1.0-40-amd64" but not "6.12..."). */
static int kernel_matches(const char *series, const char *release)
{
	size_t n = strlen(series);
	return strncmp(series, release, n) == 0 &&
	       (release[n] == '.' || release[n] == '-' || !release[n]);
}

int cli_state_fail(struct cell_state *st, const struct al_err *err)
{
	snprintf(st->failure, sizeof(st->failure), "%s", err->msg);
	return cli_fail_neg(err);
}

int cli_report_stations(struct dut *d, const struct cell *c,
			struct stahost_set *sh, int wait_s,
			struct cell_state *st, FILE *show)
{
	struct al_err err;
	char cmd[128], *out = NULL;
	double t0 = cli_mono_s(), left;
	int status;

	snprintf(cmd, sizeof(cmd), "airlab-guest stations --wait %d", wait_s);
	if (dut_run_capture(d, cmd, &out, &status, 60, &err) < 0)
		return cli_state_fail(st, &err);
	if (status != 0 && status != 1) {
		free(out);
		al_errf(&err, "%s: '%s' failed with status %d", d->host->name,
			cmd, status);
		return cli_state_fail(st, &err);
	}
	/* The station hosts' rows follow the AP host's: one table. */
	left = wait_s - (cli_mono_s() - t0);
	if (sh && sh->n &&
	    stahost_report(sh, c, left > 0 ? left : 0, &out, &err) < 0) {
		free(out);
		return cli_state_fail(st, &err);
	}
	st->n = stations_parse(&c->topo, out ? out : "", st->rows,
			       TOPO_MAX_STATIONS, &err);
	free(out);
	if (st->n < 0)
		return cli_state_fail(st, &err);
	if (show)
		stations_print(show, st->rows, st->n);
	st->nassoc = 0;
	for (int i = 0; i < st->n; i++)
		st->nassoc += st->rows[i].associated;
	return st->n;
}

/* Asks the DUT what it runs: kernel release and the flashed variant. */
static int dut_identity(struct dut *d, char *release, size_t rlen,
			char *variant, size_t vlen, struct al_err *err)
{
	char *out = NULL, *nl;
	int status;

	if (dut_run_capture(d,
			    "uname -r; . /etc/airlab/cell.conf && "
			    "echo \"$AIRLAB_VARIANT\"",
			    &out, &status, 60, err) < 0)
		return -1;
	nl = strchr(out, '\n');
	snprintf(release, rlen, "%.*s", nl ? (int)(nl - out) : (int)strlen(out),
		 out);
	variant[0] = 0;
	if (nl)
		snprintf(variant, vlen, "%.*s", (int)strcspn(nl + 1, "\n"),
			 nl + 1);
	free(out);
	if (status != 0)
		return al_errf(err,
			       "%s: cannot read the DUT's kernel and "
			       "variant (status %d)",
			       d->host->name, status);
	return 0;
}

int cli_cell_up(struct cell *c, struct dut *d, int wait_s, bool reuse,
		struct cell_state *st)
{
	static char conf[64 * 1024];
	struct al_err err;
	struct flash_env env;
	char variant[64];
	static struct stahost_set sh;
	int rc, nfailed = 0;
	bool on;

	memset(st, 0, sizeof(*st));
	st->t0 = cli_mono_s();
	if (dut_power_get(d, &on, &err) < 0)
		return cli_state_fail(st, &err);
	/* A DUT already running this variant is used as it is. */
	if (reuse && on &&
	    dut_identity(d, st->release, sizeof(st->release), variant,
			 sizeof(variant), &err) == 0 &&
	    strcmp(variant, c->variant.name) == 0) {
		fprintf(stderr, "%s: already up with %s (kernel %s)\n",
			d->host->name, variant, st->release);
	} else {
		if (cell_conf_render(c, conf, sizeof(conf), &err) < 0)
			return cli_state_fail(st, &err);
		if (d->flash) {
			struct flash_image img = {c->variant.name,
						  c->variant.kernel, conf};
			fprintf(stderr, "%s: flashing %s (kernel %s) for %s\n",
				d->host->name, c->variant.name,
				c->variant.kernel, c->topo.name);
			dut_flash_env(d, &env);
			if (d->flash->flash(&d->flash_t, &img, &env, &err) < 0)
				return cli_state_fail(st, &err);
		}
		if (d->flash && d->flash->boots) {
			/* The driver left the DUT booting its new image. */
			if (dut_wait_ready(d, &err) < 0)
				return cli_state_fail(st, &err);
		} else if (on) {
			/* A running DUT keeps its old image until it
			 * reboots. */
			if (dut_power_cycle(d, &err) < 0)
				return cli_state_fail(st, &err);
		} else {
			fprintf(stderr, "%s: power on\n", d->host->name);
			if (dut_power_set(d, true, &err) < 0 ||
			    dut_wait_ready(d, &err) < 0)
				return cli_state_fail(st, &err);
		}
		if (dut_identity(d, st->release, sizeof(st->release), variant,
				 sizeof(variant), &err) < 0)
			return cli_state_fail(st, &err);
	}
	if (!kernel_matches(c->variant.kernel, st->release)) {
		al_errf(&err, "%s booted kernel '%s' but variant %s wants %s",
			d->host->name, st->release, c->variant.name,
			c->variant.kernel);
		return cli_state_fail(st, &err);
	}
	/* Stations on station hosts start once the AP is up; they
	 * associate while the AP host's own are waited for. */
	if (stahost_open(&sh, c, true, &err) < 0)
		return cli_state_fail(st, &err);
	if (sh.n) {
		/* A run reuses what is up, stations included: a sweep's
		 * rate masks live on their interfaces. */
		nfailed = stahost_start(&sh, c, reuse, &err);
		if (nfailed < 0) {
			stahost_close(&sh);
			return cli_state_fail(st, &err);
		}
	}
	fprintf(stderr,
		"%s: kernel %s (variant %s); waiting up to %d s for %d "
		"stations\n",
		d->host->name, st->release, c->variant.name, wait_s,
		c->topo.nstations);
	rc = cli_report_stations(d, c, &sh, wait_s, st, stdout);
	stahost_close(&sh);
	if (rc < 0)
		return -1;
	printf("%s: %d/%d stations associated, %.1f s after airlab up "
	       "(variant %s, kernel %s)\n",
	       c->topo.name, st->nassoc, st->n, cli_mono_s() - st->t0,
	       c->variant.name, st->release);
	if (nfailed > 0) {
		al_errf(&err,
			"%d station%s on station hosts did not start "
			"(see above)",
			nfailed, nfailed > 1 ? "s" : "");
		return cli_state_fail(st, &err);
	}
	return 0;
}

int cmd_up(int argc, char **argv, struct cli_opts *o)
{
	bool require_all = false;
	const char *wait = NULL;
	const struct cli_flag flags[] = {{"--require-all", NULL, &require_all},
					 {"--wait", &wait, NULL},
					 {NULL, NULL, NULL}};
	int wait_s = 60, rc = cli_parse("up", argc, argv, o, flags, NULL, 0);
	struct cell c;
	struct dut d;
	static struct cell_state st;

	if (rc >= 0)
		return rc;
	if (wait && cli_seconds_arg("up", "--wait", wait, 1, &wait_s) < 0)
		return 2;
	rc = 1;
	if (cli_cell_load(&c, o) < 0)
		return 2;
	if (cli_dut_open(&d, &c.lab, c.ap_host->name) == 0) {
		if (cli_cell_up(&c, &d, wait_s, false, &st) == 0)
			rc = (require_all && st.nassoc < st.n) ? 1 : 0;
		dut_close(&d);
	}
	cell_free(&c);
	return rc;
}
