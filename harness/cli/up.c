/* airlab up: flash the variant, boot, bring the cell up, wait for the
 * stations and print one row per station. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double mono_s(void)
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

int cli_report_stations(struct dut *d, const struct topology *t, int wait_s,
			int *nassoc)
{
	struct station_row rows[TOPO_MAX_STATIONS];
	struct al_err err;
	char cmd[128], *out = NULL;
	int status, n;

	snprintf(cmd, sizeof(cmd), "airlab-guest stations --wait %d", wait_s);
	if (dut_run_capture(d, cmd, &out, &status, 60, &err) < 0) {
		cli_fail(&err);
		return -1;
	}
	if (status != 0 && status != 1) {
		free(out);
		fprintf(stderr, "airlab: %s: '%s' failed with status %d\n",
			d->host->name, cmd, status);
		return -1;
	}
	n = stations_parse(t, out, rows, TOPO_MAX_STATIONS, &err);
	free(out);
	if (n < 0) {
		cli_fail(&err);
		return -1;
	}
	stations_print(stdout, rows, n);
	*nassoc = 0;
	for (int i = 0; i < n; i++)
		*nassoc += rows[i].associated;
	return n;
}

int cmd_up(int argc, char **argv, struct cli_opts *o)
{
	bool require_all = false;
	int wait_s = 60, nassoc = 0, n, status, rc = 1;
	double t0 = mono_s();
	struct cell c;
	struct dut d;
	struct al_err err;
	static char conf[64 * 1024];
	char *release = NULL;

	for (int i = 1; i < argc; i++) {
		int r = cli_common_opt(argc, argv, &i, o);
		if (r < 0)
			return 2;
		if (r)
			continue;
		if (cli_is_help(argv[i])) {
			cli_usage(stdout, "up");
			return 0;
		} else if (strcmp(argv[i], "--require-all") == 0) {
			require_all = true;
		} else if (strcmp(argv[i], "--wait") == 0 && i + 1 < argc) {
			char *end;
			wait_s = (int)strtol(argv[++i], &end, 10);
			if (*end || wait_s <= 0) {
				fprintf(stderr,
					"airlab up: --wait '%s' is not "
					"a positive number of seconds\n",
					argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "airlab up: unexpected '%s'\n",
				argv[i]);
			cli_usage(stderr, "up");
			return 2;
		}
	}
	if (cli_cell_load(&c, o) < 0)
		return 2;
	if (cli_dut_open(&d, &c.lab, c.ap_host->name) < 0)
		goto out_cell;
	if (cell_conf_render(&c, conf, sizeof(conf), &err) < 0)
		goto fail;

	if (d.flash) {
		struct flash_image img = {c.variant.name, c.variant.kernel,
					  conf};
		bool on;
		fprintf(stderr, "%s: flashing %s (kernel %s) for %s\n",
			d.host->name, c.variant.name, c.variant.kernel,
			c.topo.name);
		if (d.flash->flash(&d.flash_t, &img, &err) < 0)
			goto fail;
		/* A running DUT keeps its old image until it reboots. */
		if (dut_power_get(&d, &on, &err) < 0)
			goto fail;
		if (on && dut_power_cycle(&d, 1, &err) < 0)
			goto fail;
		if (!on) {
			fprintf(stderr, "%s: power on\n", d.host->name);
			if (dut_power_set(&d, true, &err) < 0 ||
			    dut_wait_ready(&d, &err) < 0)
				goto fail;
		}
	} else if (dut_power_cycle(&d, 1, &err) < 0) {
		goto fail;
	}

	if (dut_run_capture(&d, "uname -r", &release, &status, 60, &err) < 0)
		goto fail;
	release[strcspn(release, "\n")] = 0;
	if (status != 0 || !kernel_matches(c.variant.kernel, release)) {
		fprintf(stderr,
			"airlab: %s booted kernel '%s' but variant %s wants "
			"%s\n",
			d.host->name, release, c.variant.name,
			c.variant.kernel);
		goto out;
	}
	fprintf(stderr,
		"%s: kernel %s (variant %s); waiting up to %d s for "
		"%d stations\n",
		d.host->name, release, c.variant.name, wait_s,
		c.topo.nstations);
	n = cli_report_stations(&d, &c.topo, wait_s, &nassoc);
	if (n < 0)
		goto out;
	printf("%s: %d/%d stations associated, %.1f s after airlab up "
	       "(variant %s, kernel %s)\n",
	       c.topo.name, nassoc, n, mono_s() - t0, c.variant.name, release);
	rc = (require_all && nassoc < n) ? 1 : 0;
	goto out;
fail:
	cli_fail(&err);
out:
	free(release);
	dut_close(&d);
out_cell:
	cell_free(&c);
	return rc;
}
