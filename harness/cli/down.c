/* airlab down: stop the stations on station hosts, then power off the
 * host that carries the cell (--stations: only the former). */
#include "cli.h"

#include <string.h>

int cmd_down(int argc, char **argv, struct cli_opts *o)
{
	struct cell c;
	struct dut d;
	struct al_err err;
	static struct stahost_set sh;
	bool stations_only = false;
	const struct cli_flag flags[] = {{"--stations", NULL, &stations_only},
					 {NULL, NULL, NULL}};
	int rc = cli_parse("down", argc, argv, o, flags, NULL, 0);

	if (rc >= 0)
		return rc;
	rc = 0;
	if (cli_cell_load(&c, o) < 0)
		return 2;
	/* A station host that does not answer is reported; the AP host
	 * still goes off. */
	if (stahost_open(&sh, &c, true, &err) < 0) {
		rc = cli_fail(&err);
	} else {
		if (sh.n && stahost_stop(&sh, &c, &err) < 0)
			rc = cli_fail(&err);
		stahost_close(&sh);
	}
	if (stations_only) {
		cell_free(&c);
		return rc;
	}
	if (cli_dut_open(&d, &c.lab, c.ap_host->name) < 0) {
		cell_free(&c);
		return 1;
	}
	if (dut_power_set(&d, false, &err) < 0)
		rc = cli_fail(&err);
	else
		printf("%s: off\n", d.host->name);
	dut_close(&d);
	cell_free(&c);
	return rc;
}
