/* airlab report RUN... [-o DIR]: a static HTML page of the runs (see
 * harness/results/report.h), or of a night (--nightly 2026-12-04, with
 * the trends), or of a sweep (--sweep ID: goodput, latency and rate against
 * the steps); RUN is a run id under the results directory
 * or a run directory. Default DIR: results/reports/<UTC time>. */
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../results/report.h"

#define MAX_RUNS 26

int cmd_report(int argc, char **argv, struct cli_opts *o)
{
	const char *out = NULL, *res = NULL, *night = NULL, *sweep = NULL;
	const char *pos[MAX_RUNS + 1] = {NULL};
	const struct cli_flag flags[] = {
	    {"-o", &out, NULL,
	     "DIR\twhere the page goes (default RESULTS/reports/UTC-TIME)"},
	    {"--out", &res, NULL,
	     "RESULTS\tresults directory (default ROOT/results)"},
	    {"--nightly", &night, NULL,
	     "DATE\ta night of `airlab nightly` with its trends"},
	    {"--sweep", &sweep, NULL,
	     "ID\ta sweep: goodput, latency, rate per step"},
	    {NULL, NULL, NULL, NULL}};
	char dirs[MAX_RUNS][4600]; /* 120 kB: one page of runs */
	const char *list[MAX_RUNS];
	char buf[4200], def[4400], stamp[32];
	const char *results;
	struct al_err err;
	size_t n = 0;
	int rc = cli_parse("report", argc, argv, o, flags, pos, MAX_RUNS + 1);

	if (rc >= 0)
		return rc;
	while (n <= MAX_RUNS && pos[n])
		n++;
	if ((night || sweep) && n) {
		fprintf(stderr, "airlab report: --nightly DATE and --sweep ID "
				"take no runs (their records name them)\n");
		return AL_EXIT_USAGE;
	}
	if (night && sweep) {
		fprintf(stderr, "airlab report: give --nightly or --sweep, not "
				"both\n");
		return AL_EXIT_USAGE;
	}
	if (!night && !sweep && (n == 0 || n > MAX_RUNS)) {
		fprintf(stderr, "airlab report: give 1 to %d runs\n", MAX_RUNS);
		return AL_EXIT_USAGE;
	}
	results = cli_results_dir(o, res, buf, sizeof(buf));
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (strchr(pos[i], '/'))
			snprintf(dirs[i], sizeof(dirs[i]), "%s", pos[i]);
		else
			snprintf(dirs[i], sizeof(dirs[i]), "%s/%s", results,
				 pos[i]);
		if (stat(dirs[i], &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "airlab report: no run directory %s\n",
				dirs[i]);
			return AL_EXIT_USAGE;
		}
		list[i] = dirs[i];
	}
	if (!out) {
		path_utc_stamp(stamp, sizeof(stamp));
		snprintf(def, sizeof(def), "%s/reports", results);
		if ((mkdir(results, 0755) < 0 && errno != EEXIST) ||
		    (mkdir(def, 0755) < 0 && errno != EEXIST)) {
			fprintf(stderr, "airlab report: cannot create %s: %s\n",
				def, strerror(errno));
			return AL_EXIT_LAB;
		}
		snprintf(def, sizeof(def), "%s/reports/%s", results, stamp);
		out = def;
	}
	if (sweep) {
		char sj[4600];
		struct stat sb;

		if (strchr(sweep, '/'))
			snprintf(sj, sizeof(sj), "%s/sweep.json", sweep);
		else
			snprintf(sj, sizeof(sj), "%s/sweeps/%s/sweep.json",
				 results, sweep);
		if (stat(sj, &sb) < 0) {
			fprintf(stderr, "airlab report: no sweep %s (%s: %s)\n",
				sweep, sj, strerror(errno));
			return AL_EXIT_USAGE;
		}
		rc = report_sweep(sj, out, &err);
	} else if (night) {
		char nd[4600];
		struct stat sb;

		snprintf(nd, sizeof(nd), "%s/nightly/%s", results, night);
		if (stat(nd, &sb) < 0) {
			fprintf(stderr, "airlab report: no night %s (%s: %s)\n",
				night, nd, strerror(errno));
			return AL_EXIT_USAGE;
		}
		rc = report_nightly(results, nd, out, &err);
	} else {
		rc = report_write(list, n, out, &err);
	}
	if (rc < 0) {
		/* The page is written with what could be drawn; it is not
		 * passed off as complete. */
		fprintf(stderr, "airlab report: %s\n", err.msg);
		printf("report: %s/index.html (incomplete: see the errors "
		       "above and the page)\n",
		       out);
		return AL_EXIT_WORSE;
	}
	printf("report: %s/index.html (%d image%s)\n", out, rc,
	       rc == 1 ? "" : "s");
	return AL_EXIT_OK;
}
