/* airlab up: flash the variant, boot, bring the AP and the stations up
 * (strategy/bringup.c) and print one row per station. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_up(int argc, char **argv, struct cli_opts *o)
{
	bool require_all = false;
	const char *wait = NULL;
	const struct cli_flag flags[] = {
	    {"--require-all", NULL, &require_all,
	     "exit 3 unless every station associated"},
	    {"--wait", &wait, NULL,
	     "S\tseconds to wait for the stations to associate (default 60)"},
	    {NULL, NULL, NULL, NULL}};
	int wait_s = 60, rc = cli_parse("up", argc, argv, o, flags, NULL, 0);
	struct al_err err;
	struct cell c;
	struct dut d;
	struct cell_state *st;

	if (rc >= 0)
		return rc;
	if (wait && cli_seconds_arg("up", "--wait", wait, 1, &wait_s) < 0)
		return AL_EXIT_USAGE;
	rc = AL_EXIT_LAB;
	if (!(st = calloc(1, sizeof(*st))))
		return AL_EXIT_LAB;
	if (cli_cell_load(&c, o) < 0) {
		free(st);
		return AL_EXIT_USAGE;
	}
	if ((rc = cli_dut_open(&d, &c.lab, c.ap_host->name)) == AL_EXIT_OK) {
		rc = AL_EXIT_LAB;
		const struct bringup_opts bo = {wait_s, false, stdout};

		if (bringup_cell(&c, &d, &bo, st, &err) < 0)
			cli_fail(&err);
		else
			rc = (require_all && st->nassoc < st->n)
				 ? AL_EXIT_PARTIAL
				 : AL_EXIT_OK;
		dut_close(&d);
	}
	cell_free(&c);
	free(st);
	return rc;
}
