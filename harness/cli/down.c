/* airlab down: power off the host that carries the cell. */
#include "cli.h"

#include <string.h>

int cmd_down(int argc, char **argv, struct cli_opts *o)
{
	struct cell c;
	struct dut d;
	struct al_err err;
	int rc = cli_parse("down", argc, argv, o, NULL, NULL, 0);

	if (rc >= 0)
		return rc;
	rc = 0;
	if (cli_cell_load(&c, o) < 0)
		return 2;
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
