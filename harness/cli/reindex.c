/* airlab reindex: rebuilds results/airlab.db from the run directories
 * (their run.json), in one transaction; a database that does not open is
 * moved aside first. Exit 1 when some run.json could not be read or a
 * run's Flent file is missing or unreadable (each said on stderr). */
#include "cli.h"

#include "../results/store.h"

int cmd_reindex(int argc, char **argv, struct cli_opts *o)
{
	const char *out = NULL;
	const struct cli_flag flags[] = {
	    {"--out", &out, NULL,
	     "DIR\tresults directory (default ROOT/results)"},
	    {NULL, NULL, NULL, NULL}};
	char buf[4200];
	const char *dir;
	size_t indexed, skipped, damaged;
	struct al_err err;
	int rc = cli_parse("reindex", argc, argv, o, flags, NULL, 0);

	if (rc >= 0)
		return rc;
	dir = cli_results_dir(o, out, buf, sizeof(buf));
	if (store_reindex(dir, &indexed, &skipped, &damaged, &err) < 0)
		return cli_fail(&err);
	printf("reindex: %zu run%s into %s/airlab.db", indexed,
	       indexed == 1 ? "" : "s", dir);
	if (skipped)
		printf(", %zu skipped (see above)", skipped);
	if (damaged)
		printf(", %zu with %s Flent file missing or unreadable (see "
		       "above)",
		       damaged, damaged == 1 ? "its" : "their");
	putchar('\n');
	return skipped || damaged ? AL_EXIT_WORSE : AL_EXIT_OK;
}
