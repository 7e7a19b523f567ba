/* airlab sweep: one suite run per attenuation step (--path P[,P...] --from
 * DB --to DB --step DB) or per fixed rate (--rates mcs:0,3,7 |
 * legacy:6,12,54), on one or more variants (strategy/sweep.c); a line per
 * step and moved station. `airlab report --sweep ID` draws it. */
#include "cli.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../strategy/sweep.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int parse_args(struct sweep *sw, struct sweep_args *a, int argc,
		      char **argv, struct cli_opts *o, char *results,
		      size_t rlen)
{
	const char *dwell = NULL, *length = NULL, *out = NULL;
	const struct cli_flag flags[] = {
	    {"--path", &a->paths, NULL,
	     "P[,P...]\tRF paths to move (attenuation sweep)"},
	    {"--from", &a->from, NULL, "DB\tfirst attenuation"},
	    {"--to", &a->to, NULL, "DB\tlast attenuation"},
	    {"--step", &a->step, NULL, "DB\tattenuation step (above 0)"},
	    {"--rates", &a->rates, NULL,
	     "mcs:N,...|legacy:R,...\tfixed rates to step through (rate "
	     "sweep)"},
	    {"--suite", &a->suite, NULL,
	     "S\tthe suite run at each step (default rtt_fair)"},
	    {"--dwell", &dwell, NULL,
	     "S\tat most S seconds for the link to settle (default 20)"},
	    {"--length", &length, NULL,
	     "S\tseconds of each run (default: the suite's)"},
	    {"--variant", &a->variants, NULL,
	     "V[,V...]\tvariants, each over all steps (default the common "
	     "--variant)"},
	    {"--station", &a->stations, NULL,
	     "S,...\tstations whose rate is fixed (default all)"},
	    {"--out", &out, NULL,
	     "RESULTS\tresults directory (default ROOT/results)"},
	    {NULL, NULL, NULL, NULL}};
	struct al_err err;
	int rc = cli_parse("sweep", argc, argv, o, flags, NULL, 0), n;

	if (rc >= 0)
		return rc;
	if ((dwell &&
	     cli_seconds_arg("sweep", "--dwell", dwell, 1, &a->dwell_s) < 0) ||
	    (length && cli_seconds_arg("sweep", "--length", length, 1, &n) < 0))
		return AL_EXIT_USAGE;
	if (length)
		a->length_s = n;
	sw->cell = (struct cell_paths){o->lab, o->topology, o->variant,
				       o->variant_dir};
	sw->root = o->root;
	sw->results = cli_results_dir(o, out, results, rlen);
	if (sweep_plan(sw, a, &err) < 0) {
		fprintf(stderr, "airlab sweep: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	return -1;
}

int cmd_sweep(int argc, char **argv, struct cli_opts *o)
{
	struct sweep *sw = calloc(1, sizeof(*sw));
	struct sweep_args a = {0};
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	enum sweep_status status;
	char results[4200];
	struct al_err err;
	int rc;

	if (!sw)
		return AL_EXIT_LAB;
	if ((rc = parse_args(sw, &a, argc, argv, o, results,
			     sizeof(results))) >= 0) {
		free(sw);
		return rc;
	}
	sw->show = stdout;
	sw->stop = &interrupted;
	printf("%-16s %-10s %-8s %-5s %7s %8s %8s %7s %8s %8s %s\n", "variant",
	       "step", "station", "assoc", "sig_dBm", "rate_Mbs", "txbr_Mbs",
	       "up_Mbs", "down_Mbs", "lat_ms", "outcome");
	interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = sweep_run(sw, &status, &err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	free(sw);
	if (rc < 0) {
		fprintf(stderr, "airlab sweep: %s\n", err.msg);
		return AL_EXIT_LAB;
	}
	return status == SWEEP_LAB_FAILED    ? AL_EXIT_LAB
	       : status == SWEEP_INTERRUPTED ? AL_EXIT_WORSE /* incomplete */
	       : status == SWEEP_PARTIAL     ? AL_EXIT_PARTIAL
					     : AL_EXIT_OK;
}
