/* airlab run SUITE: one suite run on the cell (strategy/run.c), its
 * summary printed and its record in results/<run-id>/. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include "../strategy/run.h"
#include "../suites/suites.h"

struct run_args {
	const char *suite;
	const char *out_dir;
	struct suite_params p;
	int wait_s;
};

static int parse_double(const char *opt, const char *v, double *out)
{
	char *end;
	double d = strtod(v, &end);

	if (!*v || *end || !(d > 0)) {
		fprintf(stderr,
			"airlab run: %s '%s' is not a positive number\n", opt,
			v);
		return -1;
	}
	*out = d;
	return 0;
}

static int parse_args(int argc, char **argv, struct cli_opts *o,
		      struct run_args *a)
{
	const char *length = NULL, *step = NULL, *streams = NULL, *wait = NULL;
	const struct cli_flag flags[] = {
	    {"--length", &length, NULL,
	     "S\tseconds of traffic (default: the suite's)"},
	    {"--step", &step, NULL,
	     "S\tseconds between samples (default: the suite's)"},
	    {"--streams", &streams, NULL,
	     "N\tbulk flows per direction (default: the suite's)"},
	    {"--cc", &a->p.cc, NULL,
	     "CC\tTCP congestion control (default: the hosts' own)"},
	    {"--out", &a->out_dir, NULL,
	     "DIR\tresults directory (default ROOT/results)"},
	    {"--wait", &wait, NULL,
	     "S\tseconds to wait for association (default 60)"},
	    {NULL, NULL, NULL, NULL}};
	int rc = cli_parse("run", argc, argv, o, flags, &a->suite, 1), n;

	if (rc >= 0)
		return rc;
	if ((length && parse_double("--length", length, &a->p.length_s) < 0) ||
	    (step && parse_double("--step", step, &a->p.step_s) < 0) ||
	    (streams &&
	     cli_count_arg("run", "--streams", streams, "flows", 1, &n) < 0) ||
	    (wait && cli_seconds_arg("run", "--wait", wait, 1, &a->wait_s) < 0))
		return AL_EXIT_USAGE;
	if (streams)
		a->p.streams = (unsigned)n;
	if (!a->suite) {
		return cli_usage_error(
		    "run", "which suite? (airlab suites lists them)");
	}
	return -1; /* go on */
}

int cmd_run(int argc, char **argv, struct cli_opts *o)
{
	struct run_args a = {.wait_s = 60};
	char results[4200];
	struct run_result r;
	struct al_err err;
	int rc;

	if ((rc = parse_args(argc, argv, o, &a)) >= 0)
		return rc;
	const struct run_request rq = {
	    .cell = {o->lab, o->topology, o->variant, o->variant_dir},
	    .root = o->root,
	    .suite = a.suite,
	    .params = a.p,
	    .out_dir = cli_results_dir(o, a.out_dir, results, sizeof(results)),
	    .wait_s = a.wait_s,
	    .show = stdout};
	rc = run_suite(&rq, &r, &err);
	if (rc < 0)
		fprintf(stderr, "airlab run: %s\n", err.msg);
	if (r.dir[0])
		printf("run %s: %s, results in %s\n", r.id,
		       run_status_name(r.status), r.dir);
	if (rc < 0)
		return err.bad_input ? AL_EXIT_USAGE : AL_EXIT_LAB;
	return r.status == RUN_PARTIAL ? AL_EXIT_PARTIAL : AL_EXIT_OK;
}

int cmd_suites(int argc, char **argv, struct cli_opts *o)
{
	size_t n;
	struct al_err err;
	const struct suite *s;
	int rc = cli_parse("suites", argc, argv, o, NULL, NULL, 0);

	if (rc >= 0)
		return rc;
	if (!(s = suite_list(&n, &err))) {
		fprintf(stderr, "airlab suites: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	/* The file each is read from; a user's that replaces the tree's
	 * says so. */
	for (size_t i = 0; i < n; i++)
		printf("%-10s %5.0f s  %s  [%s%s%s]\n", s[i].name,
		       s[i].length_s, s[i].description, s[i].path,
		       s[i].overrides ? ", overrides " : "",
		       s[i].overrides ? s[i].overrides : "");
	return 0;
}
