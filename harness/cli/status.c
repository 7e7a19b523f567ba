/* airlab status: power state, what the DUT booted, its stations and those
 * on station hosts. */
#include "cli.h"

#include <stdlib.h>

int cmd_status(int argc, char **argv, struct cli_opts *o)
{
	struct cell c;
	struct dut d;
	struct al_err err;
	bool on;
	int rc, status, wait_s = 0;
	static struct cell_state st;
	static struct stahost_set sh;
	char *release = NULL;
	const char *wait = NULL;
	const struct cli_flag flags[] = {{"--wait", &wait, NULL},
					 {NULL, NULL, NULL}};

	rc = cli_parse("status", argc, argv, o, flags, NULL, 0);
	if (rc >= 0)
		return rc;
	if (wait && cli_seconds_arg("status", "--wait", wait, 0, &wait_s) < 0)
		return 2;
	rc = 1;
	if (cli_cell_load(&c, o) < 0)
		return 2;
	if (cli_dut_observe(&d, &c.lab, c.ap_host->name) < 0)
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
	if (stahost_open(&sh, &c, false, &err) < 0) {
		cli_fail(&err);
		goto out;
	}
	if (cli_report_stations(&d, &c, &sh, wait_s, &st, stdout) >= 0)
		rc = 0;
	stahost_close(&sh);
out:
	free(release);
	dut_close(&d);
out_cell:
	cell_free(&c);
	return rc;
}
