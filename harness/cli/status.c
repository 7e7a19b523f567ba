/* airlab status: power state, what the DUT booted, its stations. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int cmd_status(int argc, char **argv, struct cli_opts *o)
{
	struct cell c;
	struct dut d;
	struct al_err err;
	bool on;
	int rc = 1, status, wait_s = 0;
	static struct cell_state st;
	char *release = NULL;

	for (int i = 1; i < argc; i++) {
		int r = cli_common_opt(argc, argv, &i, o);
		if (r < 0)
			return 2;
		if (r)
			continue;
		if (cli_is_help(argv[i])) {
			cli_usage(stdout, "status");
			return 0;
		}
		if (strcmp(argv[i], "--wait") == 0 && i + 1 < argc) {
			if (cli_seconds_arg("status", "--wait", argv[++i], 0,
					    &wait_s) < 0)
				return 2;
			continue;
		}
		fprintf(stderr, "airlab status: unexpected '%s'\n", argv[i]);
		return 2;
	}
	if (cli_cell_load(&c, o) < 0)
		return 2;
	if (cli_dut_open(&d, &c.lab, c.ap_host->name) < 0)
		goto out_cell;
	if (dut_power_get(&d, &on, &err) < 0) {
		cli_fail(&err);
		goto out;
	}
	printf("%s: power %s\n", d.host->name, on ? "on" : "off");
	if (!on) {
		rc = 0;
		goto out;
	}
	if (dut_run_capture(&d,
			    "uname -r; . /etc/airlab/cell.conf && "
			    "echo \"$AIRLAB_VARIANT $AIRLAB_CELL\"",
			    &release, &status, 10, &err) < 0) {
		cli_fail(&err);
		goto out;
	}
	printf("%s: kernel/variant/cell: %s", d.host->name, release);
	if (cli_report_stations(&d, &c.topo, wait_s, &st) >= 0)
		rc = 0;
out:
	free(release);
	dut_close(&d);
out_cell:
	cell_free(&c);
	return rc;
}
