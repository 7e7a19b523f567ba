/* airlab bisect --repo DIR --good REV --bad REV --build CMD --metric M
 * [--threshold X] [--runs N] [--max-runs N] [--suite S] [--length S]:
 * the commit of DIR that made metric M worse (strategy/bisect.c: a build
 * per revision, its runs held against the good revision's with `airlab
 * compare`'s statistics, `git bisect run` on a clone in
 * results/bisect/<id>/src), its figures and report printed; and airlab
 * bisect-step DIR, what `git bisect run` calls for each step, whose exit
 * status is git's protocol (0 good, 1 bad, 125 skip, above 127 stop). */
#include "cli.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../strategy/bisect.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* airlab bisect-step STATEDIR: what `git bisect run` calls. */
int cmd_bisect_step(int argc, char **argv, struct cli_opts *o)
{
	/* The lab and topology are the record's. */
	const struct bisect_env env = {
	    .root = o->root, .variant_dir = o->variant_dir, .show = stdout};
	struct al_err err;
	int rc;

	if (argc == 2 && cli_is_help(argv[1])) {
		cli_usage_flags(stdout, "bisect-step", NULL);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "airlab bisect-step: give the bisect's "
				"directory (git bisect run calls this)\n");
		return BISECT_SKIP + 3; /* > 127 stops git bisect */
	}
	rc = bisect_step(argv[1], &env, &err);
	if (rc < 0) {
		fprintf(stderr, "airlab bisect: %s\n", err.msg);
		return 128;
	}
	return rc;
}

static int parse_args(int argc, char **argv, struct cli_opts *o,
		      struct bisect_request *rq, char *res, size_t reslen)
{
	const char *repo = NULL, *good = NULL, *bad = NULL, *cmd = NULL;
	const char *metric = NULL, *thr = NULL, *runs = NULL, *max = NULL;
	const char *suite = "rrul", *length = NULL, *out = NULL;
	const struct cli_flag flags[] = {
	    {"--repo", &repo, NULL,
	     "DIR\tgit repository that builds the variant"},
	    {"--good", &good, NULL, "REV\ta revision without the regression"},
	    {"--bad", &bad, NULL, "REV\ta revision with it"},
	    {"--build", &cmd, NULL,
	     "CMD\tbuilds a revision, leaves NAME.yaml in $AIRLAB_OUT"},
	    {"--metric", &metric, NULL,
	     "M\tthe metric that got worse (latency, goodput, ...)"},
	    {"--threshold", &thr, NULL,
	     "X\trelative change that counts (default: the metric's)"},
	    {"--runs", &runs, NULL, "N\truns per revision (default 1)"},
	    {"--max-runs", &max, NULL,
	     "N\truns before a step is skipped (default 2 x runs)"},
	    {"--suite", &suite, NULL, "S\tthe suite (default rrul)"},
	    {"--length", &length, NULL,
	     "S\tseconds of each run (default: the suite's)"},
	    {"--out", &out, NULL,
	     "RESULTS\tresults directory (default ROOT/results)"},
	    {NULL, NULL, NULL, NULL}};
	const struct cmp_metric *m;
	int rc = cli_parse("bisect", argc, argv, o, flags, NULL, 0);

	if (rc >= 0)
		return rc;
	if (!repo || !good || !bad || !cmd || !metric) {
		fprintf(stderr, "airlab bisect: give --repo, --good, --bad, "
				"--build and --metric\n");
		return AL_EXIT_USAGE;
	}
	if (!(m = cli_metric_arg("bisect", metric)))
		return AL_EXIT_USAGE;
	rq->threshold = NAN;
	if (thr && cli_threshold_arg("bisect", thr, &rq->threshold) < 0)
		return AL_EXIT_USAGE;
	rq->runs = 1;
	if ((runs && cli_count_arg("bisect", "--runs", runs, "runs", 1,
				   &rq->runs) < 0) ||
	    (max && cli_count_arg("bisect", "--max-runs", max, "runs", 1,
				  &rq->max_runs) < 0) ||
	    (length && cli_seconds_arg("bisect", "--length", length, 1,
				       &rq->length_s) < 0))
		return AL_EXIT_USAGE;
	rq->env = (struct bisect_env){.lab = o->lab,
				      .topology = o->topology,
				      .root = o->root,
				      .variant_dir = o->variant_dir,
				      .show = stdout,
				      .stop = &interrupted};
	rq->repo = repo;
	rq->good = good;
	rq->bad = bad;
	rq->build = cmd;
	rq->metric = m->name;
	rq->suite = suite;
	rq->out_dir = cli_results_dir(o, out, res, reslen);
	return -1;
}

/* The first bad commit with both sides' figures, the report. */
static void print_found(const struct bisect_result *r)
{
	printf("first bad commit: %s %s\n", r->first_bad,
	       r->at.found ? r->subject : "");
	if (r->before.found)
		printf("  before (%.12s, %s): %s median %.2f\n", r->parent,
		       r->before.outcome, r->metric, r->before.median);
	if (r->at.found)
		printf("  at     (%.12s, %s): %s median %.2f (vs good "
		       "baseline %+.1f%%)\n",
		       r->first_bad, r->at.outcome, r->metric, r->at.median,
		       100 * r->at.change);
	if (r->report_err[0])
		fprintf(stderr, "airlab bisect: report: %s\n", r->report_err);
	else if (r->report[0])
		printf("report: %s/index.html\n", r->report);
	printf("bisect %s: %d steps (%zu with the two ends), %.0f s; "
	       "record %s\n",
	       r->id, (int)r->steps - 2, r->steps, r->wall_s, r->file);
}

int cmd_bisect(int argc, char **argv, struct cli_opts *o)
{
	struct bisect_request rq = {0};
	struct bisect_result *r;
	struct al_err err;
	char res[4200];
	int rc;

	if ((rc = parse_args(argc, argv, o, &rq, res, sizeof(res))) >= 0)
		return rc;
	if (!(r = calloc(1, sizeof(*r)))) {
		fprintf(stderr, "airlab bisect: out of memory\n");
		return AL_EXIT_LAB;
	}
	/* Ctrl-C ends the step that runs (its processes get it too); this
	 * process stays to record the bisect as interrupted. */
	{
		struct sigaction sa = {.sa_handler = on_signal};

		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	if (bisect_run(&rq, r, &err) < 0) {
		fprintf(stderr, "airlab bisect: %s\n", err.msg);
		rc = err.bad_input ? AL_EXIT_USAGE : AL_EXIT_LAB;
	} else if (r->status == BISECT_NOT_WORSE) {
		fprintf(stderr, "airlab bisect: %s\n", r->why);
		rc = AL_EXIT_WORSE;
	} else if (r->status == BISECT_INTERRUPTED) {
		rc = AL_EXIT_WORSE; /* incomplete */
	} else {
		print_found(r);
		rc = r->status == BISECT_COMPLETE ? AL_EXIT_OK : AL_EXIT_WORSE;
	}
	free(r);
	return rc;
}
