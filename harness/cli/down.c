/* airlab down: stop the stations on station hosts, the AP (its driver
 * undoes what it made), then power off the host that carries the cell
 * (--stations: only the stations). */
#include "cli.h"

#include <string.h>

int cmd_down(int argc, char **argv, struct cli_opts *o)
{
	struct cell c;
	struct dut d;
	struct al_err err;
	bool stations_only = false;
	const struct cli_flag flags[] = {
	    {"--stations", NULL, &stations_only,
	     "only stop the stations; the hosts stay on"},
	    {NULL, NULL, NULL, NULL}};
	int rc = cli_parse("down", argc, argv, o, flags, NULL, 0);

	if (rc >= 0)
		return rc;
	if (cli_cell_load(&c, o) < 0)
		return AL_EXIT_USAGE;
	if ((rc = cli_dut_open(&d, &c.lab, c.ap_host->name)) != AL_EXIT_OK) {
		cell_free(&c);
		return rc;
	}
	/* Each part's failure is printed; the others are still done. */
	rc = bringup_down(&c, &d, stations_only, &err) < 0 ? AL_EXIT_LAB
							   : AL_EXIT_OK;
	dut_close(&d);
	cell_free(&c);
	return rc;
}
