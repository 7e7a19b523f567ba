/* airlab lava export|submit|results: labs as LAVA devices, plans as LAVA
 * jobs, finished jobs stored like local runs (harness/lava/). */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../strategy/plan.h"
#include "../lava/bench.h"
#include "../lava/export.h"
#include "../lava/job.h"
#include "../lava/log.h"
#include "../lava/results.h"
#include "../lava/submit.h"
#include "../suites/suites.h"
#include "../util/proc.h"

#define MAX_IDS 64

static int server_from(const char *cmd, const char *url, const char *token,
		       struct lava_server *s)
{
	struct al_err err;

	if (!url || !token) {
		fprintf(stderr,
			"airlab lava %s: give --server URL and --token-file "
			"FILE\n",
			cmd);
		return AL_EXIT_USAGE;
	}
	if (lava_server_init(s, url, token, &err) < 0) {
		fprintf(stderr, "airlab lava %s: %s\n", cmd, err.msg);
		return AL_EXIT_USAGE;
	}
	return 0;
}

/* Stores each finished job (lava_jobs_store): 0 when every run is
 * complete, 3 when the worst is partial, 4 otherwise. */
static int store_jobs(const struct lava_server *s, const long *ids, size_t n,
		      const char *results, const char *root)
{
	char commit[64];

	proc_git_commit(root, commit, sizeof(commit));
	switch (lava_jobs_store(s, ids, n, results, commit, stdout)) {
	case LAVA_ALL_COMPLETE:
		return AL_EXIT_OK;
	case LAVA_SOME_PARTIAL:
		return AL_EXIT_PARTIAL;
	case LAVA_SOME_FAILED:
		break;
	}
	return AL_EXIT_LAB;
}

static int lava_export(int argc, char **argv, struct cli_opts *o)
{
	const char *out = NULL, *worker = NULL, *plan_file = NULL;
	bool apply = false, bench = false;
	const struct cli_flag flags[] = {
	    {"--out", &out, NULL,
	     "DIR\tdevice and job files (default ROOT/results/lava/LAB)"},
	    {"--worker", &worker, NULL,
	     "W\tthe LAVA worker the devices are on (default worker1)"},
	    {"--plan", &plan_file, NULL,
	     "PLAN\talso a device type and job per plan run"},
	    {"--apply", NULL, &apply,
	     "load the devices into the local lava-server"},
	    {"--bench", NULL, &bench,
	     "devices for bench jobs (airlab runs the suite)"},
	    {NULL}};
	struct plan p; /* 18 kB */
	char buf[4200], buf2[4200], bin[PATH_MAX];
	struct al_err err;
	struct lab lab;
	int rc = cli_parse("lava", argc, argv, o, flags, NULL, 0);

	if (rc >= 0)
		return rc;
	if (worker && !lava_plain_name(worker)) {
		fprintf(stderr,
			"airlab lava export: --worker '%s' is not a plain name "
			"(letters, digits, . _ - +)\n",
			worker);
		return AL_EXIT_USAGE;
	}
	if (plan_file && plan_load(&p, plan_file, &err) < 0) {
		fprintf(stderr, "airlab lava export: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	if (lab_load(&lab, o->lab, &err) < 0) {
		fprintf(stderr, "airlab lava export: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	if (!out) {
		snprintf(buf, sizeof(buf), "%s/results/lava/%s", o->root,
			 lab.name);
		out = buf;
	}
	/* LAVA runs airlab as this very binary, by its real path. */
	snprintf(buf2, sizeof(buf2), "%s/build/airlab", o->root);
	if (!realpath(buf2, bin)) {
		fprintf(stderr, "airlab lava export: %s: %s\n", buf2,
			strerror(errno));
		lab_free(&lab);
		return AL_EXIT_LAB;
	}
	rc = lava_export_lab(&lab, bin, out, worker ? worker : "worker1", apply,
			     bench, plan_file ? &p : NULL, &err);
	lab_free(&lab);
	if (rc < 0) {
		fprintf(stderr, "airlab lava export: %s\n", err.msg);
		return AL_EXIT_LAB;
	}
	return 0;
}

/* airlab lava bench-run PLAN SUITE VARIANT (lava/bench.h): kept under
 * results/lava/bench, apart from the runs the store compares. */
static int bench_run(int argc, char **argv, struct cli_opts *o)
{
	const char *pos[3] = {NULL, NULL, NULL}, *out = NULL;
	const struct cli_flag flags[] = {
	    {"--out", &out, NULL,
	     "RESULTS\tresults directory (default ROOT/results)"},
	    {NULL}};
	char rbuf[4200];
	struct run_result r;
	struct al_err err;
	int rc = cli_parse("lava", argc, argv, o, flags, pos, 3);

	if (rc >= 0)
		return rc;
	if (!pos[2])
		return cli_usage_error("lava bench-run",
				       "which plan, suite and variant?");
	if (!out) {
		snprintf(rbuf, sizeof(rbuf), "%s/results/lava/bench", o->root);
		out = rbuf;
	}
	const struct lava_bench b = {
	    pos[0],  pos[1],
	    pos[2],  {o->lab, o->topology, o->variant, o->variant_dir},
	    o->root, out,
	    stdout};
	if (lava_bench_run(&b, &r, &err) < 0) {
		fprintf(stderr, "airlab lava bench-run: %s\n", err.msg);
		return err.bad_input ? AL_EXIT_USAGE : AL_EXIT_LAB;
	}
	return AL_EXIT_OK;
}

static int lava_submit(int argc, char **argv, struct cli_opts *o)
{
	const char *pos[1] = {NULL}, *url = NULL, *token = NULL, *out = NULL;
	const char *artifacts = NULL, *artifact_url = NULL, *dtype = NULL;
	const char *timeout = NULL, *assoc = NULL;
	bool wait = false;
	const struct cli_flag flags[] = {
	    {"--server", &url, NULL, "URL\tlava-server to talk to"},
	    {"--token-file", &token, NULL, "FILE\tfile holding the API token"},
	    {"--wait", NULL, &wait, "wait for the jobs and store them as runs"},
	    {"--timeout", &timeout, NULL,
	     "S\twith --wait: give up after S seconds (default 3600)"},
	    {"--artifacts", &artifacts, NULL,
	     "DIR\twhere the jobs' images go (default RESULTS/lava/images)"},
	    {"--artifact-url", &artifact_url, NULL,
	     "URL\tthe URL LAVA fetches DIR from"},
	    {"--device-type", &dtype, NULL,
	     "T\tLAVA device type (default qemu)"},
	    {"--assoc-wait", &assoc, NULL,
	     "S\tseconds the job waits for association (default 120)"},
	    {"--out", &out, NULL,
	     "RESULTS\tresults directory (default ROOT/results)"},
	    {NULL}};
	struct lava_submitted jobs[LAVA_MAX_JOBS]; /* 77 kB */
	struct plan p;				   /* 18 kB */
	long ids[LAVA_MAX_JOBS];
	char rbuf[4200], abuf[4400];
	struct lava_submit_opts so = {0};
	struct lava_server s;
	struct al_err err;
	int timeout_s = 3600, assoc_s = 120;
	size_t n = 0;
	const char *results;
	int rc = cli_parse("lava", argc, argv, o, flags, pos, 1);

	if (rc >= 0)
		return rc;
	if (!pos[0])
		return cli_usage_error("lava submit", "which plan?");
	if ((timeout && cli_seconds_arg("lava submit", "--timeout", timeout, 1,
					&timeout_s) < 0) ||
	    (assoc && cli_seconds_arg("lava submit", "--assoc-wait", assoc, 1,
				      &assoc_s) < 0))
		return AL_EXIT_USAGE;
	if ((rc = server_from("submit", url, token, &s)) != 0)
		return rc;
	if (plan_load(&p, pos[0], &err) < 0) {
		fprintf(stderr, "airlab lava submit: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	results = cli_results_dir(o, out, rbuf, sizeof(rbuf));
	if (!artifacts) {
		snprintf(abuf, sizeof(abuf), "%s/lava/images", results);
		artifacts = abuf;
	}
	so.device_type = dtype;
	so.variant_dir = o->variant_dir[0] ? o->variant_dir : NULL;
	so.artifacts = artifacts;
	so.url_base = artifact_url;
	so.wait_s = assoc_s;
	if (lava_submit_plan(&s, &p, &so, jobs, LAVA_MAX_JOBS, &n, &err) < 0) {
		fprintf(stderr, "airlab lava submit: %s\n", err.msg);
		return AL_EXIT_LAB;
	}
	if (!wait)
		return 0;
	for (size_t i = 0; i < n; i++)
		ids[i] = jobs[i].id;
	if (lava_wait(&s, ids, n, timeout_s, &err) < 0) {
		fprintf(stderr, "airlab lava submit: %s\n", err.msg);
		return AL_EXIT_LAB;
	}
	return store_jobs(&s, ids, n, results, o->root);
}

static int lava_results(int argc, char **argv, struct cli_opts *o)
{
	const char *pos[MAX_IDS] = {NULL}, *url = NULL, *token = NULL;
	const char *out = NULL;
	const struct cli_flag flags[] = {
	    {"--server", &url, NULL, "URL\tlava-server to talk to"},
	    {"--token-file", &token, NULL, "FILE\tfile holding the API token"},
	    {"--out", &out, NULL,
	     "RESULTS\tresults directory (default ROOT/results)"},
	    {NULL}};
	long ids[MAX_IDS];
	char rbuf[4200];
	struct lava_server s;
	size_t n = 0;
	int rc = cli_parse("lava", argc, argv, o, flags, pos, MAX_IDS);

	if (rc >= 0)
		return rc;
	for (; n < MAX_IDS && pos[n]; n++) {
		char *end;

		ids[n] = strtol(pos[n], &end, 10);
		if (end == pos[n] || *end || ids[n] <= 0) {
			fprintf(stderr,
				"airlab lava results: '%s' is not a LAVA job "
				"id\n",
				pos[n]);
			return AL_EXIT_USAGE;
		}
	}
	if (!n)
		return cli_usage_error("lava results", "which jobs?");
	if ((rc = server_from("results", url, token, &s)) != 0)
		return rc;
	return store_jobs(&s, ids, n,
			  cli_results_dir(o, out, rbuf, sizeof(rbuf)), o->root);
}

int cmd_lava(int argc, char **argv, struct cli_opts *o)
{
	if (argc < 2 || cli_is_help(argv[1])) {
		cli_usage(argc < 2 ? stderr : stdout, "lava");
		return argc < 2 ? AL_EXIT_USAGE : AL_EXIT_OK;
	}
	if (!strcmp(argv[1], "export"))
		return lava_export(argc - 1, argv + 1, o);
	if (!strcmp(argv[1], "submit"))
		return lava_submit(argc - 1, argv + 1, o);
	if (!strcmp(argv[1], "results"))
		return lava_results(argc - 1, argv + 1, o);
	if (!strcmp(argv[1], "bench-run"))
		return bench_run(argc - 1, argv + 1, o);
	fprintf(stderr,
		"airlab lava: unknown action '%s' (export, submit, results, "
		"bench-run)\n",
		argv[1]);
	return AL_EXIT_USAGE;
}
