/* airlab down: power off the host that carries the cell. */
#include "cli.h"

#include <string.h>

int cmd_down(int argc, char **argv, struct cli_opts *o)
{
	struct cell c;
	struct dut d;
	struct al_err err;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		int r = cli_common_opt(argc, argv, &i, o);
		if (r < 0)
			return 2;
		if (r)
			continue;
		if (cli_is_help(argv[i])) {
			cli_usage(stdout, "down");
			return 0;
		}
		fprintf(stderr, "airlab down: unexpected '%s'\n", argv[i]);
		return 2;
	}
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
