/* airlab runs: the stored runs (results/airlab.db), oldest first, with
 * their headline figures. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../results/store.h"

static int print_run(void *ctx, const struct store_run *r)
{
	(void)ctx;
	printf("%-48s %-8s %-10s %-14s", r->id, r->status, r->suite,
	       r->variant);
	cli_cell_num(r->lat_median_ms, "%11.1f", 11);
	cli_cell_num(r->lat_p99_ms, "%9.1f", 9);
	cli_cell_num(r->up_mbps, "%13.2f", 13);
	cli_cell_num(r->down_mbps, "%13.2f", 13);
	putchar('\n');
	return 0;
}

int cmd_runs(int argc, char **argv, struct cli_opts *o)
{
	const char *out = NULL, *last = NULL;
	struct store_query q = {0};
	const struct cli_flag flags[] = {
	    {"--suite", &q.suite, NULL, "S\tonly runs of suite S"},
	    {"--variant", &q.variant, NULL, "V\tonly runs of variant V"},
	    {"--status", &q.status, NULL,
	     "S\tonly runs with status S (complete, partial, failed, "
	     "lab-failed)"},
	    {"--last", &last, NULL, "N\tonly the N newest runs"},
	    {"--out", &out, NULL,
	     "DIR\tresults directory (default ROOT/results)"},
	    {NULL, NULL, NULL, NULL}};
	char buf[4200], db[4300];
	const char *results;
	struct store *s;
	struct al_err err;
	int rc = cli_parse("runs", argc, argv, o, flags, NULL, 0), n;

	if (rc >= 0)
		return rc;
	if (last) {
		char *end;
		long v = strtol(last, &end, 10);

		if (!*last || *end || v < 1 || v > 1000000) {
			fprintf(stderr,
				"airlab runs: --last '%s' is not a whole "
				"number from 1 to 1000000\n",
				last);
			return AL_EXIT_USAGE;
		}
		q.last = (size_t)v;
	}
	results = cli_results_dir(o, out, buf, sizeof(buf));
	/* Listing reads: a mistyped --out must not leave an empty database
	 * behind and report "0 runs". */
	snprintf(db, sizeof(db), "%s/airlab.db", results);
	if (access(db, F_OK) != 0) {
		fprintf(stderr,
			"airlab runs: no results database %s (%s; a results "
			"directory without one is indexed by `airlab reindex "
			"--out %s`)\n",
			db, strerror(errno), results);
		return AL_EXIT_USAGE;
	}
	if (store_open(&s, results, &err) < 0)
		return cli_fail(&err);
	/* Latency: the run's median and p99 under load; goodput: the mean
	 * over the run (compare works on the per-step medians). */
	printf("%-48s %-8s %-10s %-14s %11s %9s %13s %13s\n", "run", "status",
	       "suite", "variant", "lat_med_ms", "p99_ms", "up_mean_Mb/s",
	       "down_mean_Mb/s");
	n = store_runs(s, &q, print_run, NULL, &err);
	store_close(s);
	if (n < 0)
		return cli_fail(&err);
	fprintf(stderr, "%d run%s\n", n, n == 1 ? "" : "s");
	return 0;
}
