/* airlab reassociate STATION: asks a station's wpa_supplicant to
 * reassociate now, on the AP's host (airlab-guest sta NAME REASSOCIATE) or
 * on its station host (wpa_cli reassociate). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmd_reassociate(int argc, char **argv, struct cli_opts *o)
{
	const char *name = NULL;
	int rc = cli_parse("reassociate", argc, argv, o, NULL, &name, 1);
	const struct topo_station *s = NULL;
	struct stahost_set *sh;
	struct al_err err;
	struct cell c;
	struct dut d;

	if (rc >= 0)
		return rc;
	if (!name) {
		fprintf(stderr, "airlab reassociate: which station? (usage: "
				"airlab reassociate STATION)\n");
		return AL_EXIT_USAGE;
	}
	if (cli_cell_load(&c, o) < 0)
		return AL_EXIT_USAGE;
	for (int i = 0; i < c.topo.nstations; i++)
		if (!strcmp(c.topo.stations[i].name, name))
			s = &c.topo.stations[i];
	if (!s) {
		fprintf(stderr, "airlab reassociate: no station '%s' in %s\n",
			name, c.topo.path);
		cell_free(&c);
		return AL_EXIT_USAGE;
	}
	rc = AL_EXIT_LAB;
	if (!cell_station_local(&c, s)) {
		if (!(sh = calloc(1, sizeof(*sh))))
			al_errf(&err, "out of memory");
		if (!sh || stahost_open(sh, &c, false, &err) < 0 ||
		    stahost_reassociate(sh, &c, name, &err) < 0)
			rc = cli_fail(&err);
		else
			rc = 0;
		if (sh)
			stahost_close(sh);
		free(sh);
	} else if ((rc = cli_dut_observe(&d, &c.lab, c.ap_host->name)) ==
		   AL_EXIT_OK) {
		char cmd[128];
		int status;

		rc = AL_EXIT_LAB;
		snprintf(cmd, sizeof(cmd), "airlab-guest sta %s REASSOCIATE",
			 name);
		if (dut_run(&d, cmd, NULL, 0, STDOUT_FILENO, STDERR_FILENO,
			    &status, 30, &err) < 0)
			rc = cli_fail(&err);
		else if (status != 0)
			fprintf(stderr, "airlab: %s: '%s' failed (status %d)\n",
				d.host->name, cmd, status);
		else
			rc = 0;
		dut_close(&d);
	}
	cell_free(&c);
	return rc;
}
