/* airlab nightly PLAN.yaml: every suite of the plan on every variant
 * (repeat times), each run stored; then each run against the last good
 * run of its suite and variant before tonight, with the plan's
 * thresholds; a report; summary.json and JUnit XML for CI systems in
 * results/nightly/<date>[-N]/ (progress.json as it goes: --resume DATE
 * finishes a night that was stopped). The night is strategy/nightly.c;
 * this parses, calls it, prints its table. Exit 0 nothing regressed, 1 a
 * regression, 3 a run partial, 4 the lab or a run failed, 2 a bad plan. */
#include "cli.h"

#include "../strategy/nightly.h"

/* How each step of a night's start words its error. */
static const char *const start_says[] = {
    [NIGHT_AT_PLAN] = "airlab nightly: ",
    [NIGHT_AT_CELL] = "airlab: ",
    [NIGHT_AT_LOCK] = "airlab: ",
    [NIGHT_AT_PROGRESS] = "nightly: ",
};

/* A night that did not start: its error line, its exit status. */
static int start_failed(const struct night *nt, const struct al_err *err)
{
	if (nt->failed_at == NIGHT_AT_REQUEST)
		return cli_usage_error("nightly", err->msg);
	fprintf(stderr, "%s%s\n", start_says[nt->failed_at], err->msg);
	return err->bad_input ? AL_EXIT_USAGE : AL_EXIT_LAB;
}

static void print_table(const struct night *nt)
{
	printf("\nnightly %s: %s\n", nt->p.name, nt->dir);
	printf("%-10s %-14s %-9s %11s %9s %13s %10s  %s\n", "suite", "variant",
	       "status", "lat_med_ms", "p99_ms", "goodput_Mb/s", "vs base",
	       "verdict");
	for (int i = 0; i < nt->n; i++) {
		const struct night_run *r = &nt->runs[i];

		/* A run that never got going has no figures: "-", not
		 * "nan". */
		printf("%-10s %-14s %-9s", r->suite, r->variant,
		       night_run_status(r));
		cli_cell_num(r->lat_ms, "%11.2f", 11);
		cli_cell_num(r->p99_ms, "%9.2f", 9);
		cli_cell_num(r->goodput_mbps, "%13.2f", 13);
		if (r->nr)
			printf(" %+9.1f%%  %s\n", 100 * r->r[0].change,
			       r->worse ? "REGRESSED" : "ok");
		else
			printf(" %10s  %s\n", "-",
			       r->exit_code ? "run not complete"
					    : "no baseline yet");
	}
	printf("report: %s/report/index.html\n", nt->dir);
}

static int night_exit(const struct night *nt, enum night_status st)
{
	switch (st) {
	case NIGHT_LAB_FAILED:
		fprintf(stderr, "airlab nightly: lab failed: %s\n", nt->why);
		return AL_EXIT_LAB;
	case NIGHT_REGRESSED:
		fprintf(stderr,
			"airlab nightly: a metric regressed (see the table)\n");
		return AL_EXIT_WORSE;
	case NIGHT_PARTIAL:
	case NIGHT_FAILED:
		fprintf(stderr, "airlab nightly: a run did not complete\n");
		return st == NIGHT_PARTIAL ? AL_EXIT_PARTIAL : AL_EXIT_LAB;
	case NIGHT_OK:
		break;
	}
	return AL_EXIT_OK;
}

int cmd_nightly(int argc, char **argv, struct cli_opts *o)
{
	const char *out = NULL, *resume = NULL, *pos[1] = {NULL};
	const struct cli_flag flags[] = {
	    {"--out", &out, NULL,
	     "RESULTS\tresults directory (default ROOT/results)"},
	    {"--resume", &resume, NULL,
	     "DATE\tfinish the night RESULTS/nightly/DATE that was stopped"},
	    {NULL, NULL, NULL, NULL}};
	char buf[4200];
	struct night *nt;
	struct al_err err;
	int rc = cli_parse("nightly", argc, argv, o, flags, pos, 1);
	/* (after cli_parse, which fills pos, out and resume) */
	struct night_request rq = {
	    .plan_file = pos[0],
	    .resume = resume,
	    .cell = {o->lab, o->topology, NULL, o->variant_dir},
	    .root = o->root,
	    .results = cli_results_dir(o, out, buf, sizeof(buf)),
	    .show = stdout};

	if (rc >= 0)
		return rc;
	if (!(nt = night_new())) {
		fprintf(stderr, "airlab nightly: out of memory\n");
		return AL_EXIT_LAB;
	}
	rc = nightly(nt, &rq, &err);
	if (rc < 0) {
		rc = start_failed(nt, &err);
	} else {
		print_table(nt);
		rc = night_exit(nt, (enum night_status)rc);
	}
	night_free(nt);
	return rc;
}
