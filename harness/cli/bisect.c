/* airlab bisect --repo DIR --good REV --bad REV --build CMD --metric M
 * [--threshold X] [--runs N] [--max-runs N] [--suite S] [--length S]:
 * finds the commit of DIR that made metric M worse, with `git bisect run`
 * on a clone in results/bisect/<id>/src.
 *
 * A revision is built with `sh -c CMD` in the clone, AIRLAB_OUT naming an
 * empty directory where the build leaves exactly one stack-variant file
 * (NAME.yaml, `variant: NAME`); the DUT is flashed with it and booted, the
 * suite runs N times and its samples of M are compared with the good
 * revision's by `airlab compare`'s statistics: clearly worse is bad, clearly
 * not worse is good, in between runs again up to --max-runs and then skips
 * (git's 125), as does a build or boot failure (with the reason). The good
 * and bad revisions are measured first; bad must be worse than good.
 * Every step is kept (step.json, its runs, build.log) and listed in
 * bisect.json, which the store indexes; the end prints the first bad
 * commit with both sides' figures and writes a report of the two. */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../results/compare.h"
#include "../results/report.h"
#include "../results/store.h"
#include "../suites/suites.h"
#include "../util/json_file.h"
#include "../util/proc.h"

#define MAX_RUNS 16

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Exit statuses `git bisect run` understands. */
enum { STEP_GOOD = 0, STEP_BAD = 1, STEP_SKIP = 125 };

struct bisect {
	char dir[PATH_MAX + 64], src[PATH_MAX + 80], file[PATH_MAX + 80];
	char results[PATH_MAX];
	json_t *root; /* bisect.json */
};

static const char *jstr(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : "";
}

static int git(const char *src, char *out, size_t len, const char *a,
	       const char *b, const char *c, const char *d)
{
	char *argv[] = {"git",	   (char *)a, (char *)b,
			(char *)c, (char *)d, NULL};

	return proc_capture(argv, src, out, len);
}

static int save(struct bisect *b)
{
	return cli_series_write("bisect", b->root, b->file, b->results);
}

static int load(struct bisect *b, const char *dir)
{
	json_error_t jerr;

	if (dir != b->dir)
		snprintf(b->dir, sizeof(b->dir), "%s", dir);
	snprintf(b->src, sizeof(b->src), "%s/src", dir);
	snprintf(b->file, sizeof(b->file), "%s/bisect.json", dir);
	b->root = json_load_file(b->file, 0, &jerr);
	if (!b->root) {
		fprintf(stderr, "airlab bisect: %s:%d: %s\n", b->file,
			jerr.line, jerr.text);
		return -1;
	}
	snprintf(b->results, sizeof(b->results), "%s",
		 jstr(b->root, "results"));
	return 0;
}

/* The pooled samples of metric m over run directories. */
static int pool(json_t *dirs, const struct cmp_metric *m,
		struct cmp_samples *out)
{
	struct al_err err;

	out->v = NULL;
	out->n = 0;
	for (size_t i = 0; i < json_array_size(dirs); i++) {
		struct cmp_samples s;
		double *v;

		if (cmp_load(json_string_value(json_array_get(dirs, i)), m, &s,
			     &err) < 0) {
			fprintf(stderr, "airlab bisect: %s\n", err.msg);
			continue;
		}
		v = realloc(out->v, (out->n + s.n) * sizeof(double) + 1);
		if (!v) {
			cmp_samples_free(&s);
			return -1;
		}
		memcpy(v + out->n, s.v, s.n * sizeof(double));
		out->v = v;
		out->n += s.n;
		cmp_samples_free(&s);
	}
	return 0;
}

/* Worse beyond the threshold: bad; clearly within it: good; else
 * undecided (-1). */
static int decide(const struct cmp_metric *m, const struct cmp_result *r,
		  double threshold)
{
	if (r->verdict == CMP_NODATA)
		return -1;
	if (r->verdict == CMP_WORSE)
		return STEP_BAD;
	if (m->lower_is_better ? r->ci_hi < threshold : r->ci_lo > -threshold)
		return STEP_GOOD;
	return -1;
}

/* Builds rev (checked out in src) into stepdir/out; the variant file's
 * path into variant, or the reason it is missing into why. */
static int build(struct bisect *b, const char *stepdir, char *variant,
		 size_t vlen, char *why, size_t wlen)
{
	char out[PATH_MAX + 300], log[PATH_MAX + 300], env[PATH_MAX + 320];
	const char *envs[] = {env, NULL};
	char *argv[] = {"sh", "-c", (char *)jstr(b->root, "build"), NULL};
	struct dirent *e;
	DIR *d;
	int rc, found = 0;

	snprintf(out, sizeof(out), "%s/out", stepdir);
	snprintf(log, sizeof(log), "%s/build.log", stepdir);
	snprintf(env, sizeof(env), "AIRLAB_OUT=%s", out);
	if (mkdir(out, 0755) < 0 && errno != EEXIST) {
		snprintf(why, wlen, "cannot create %s: %s", out,
			 strerror(errno));
		return -1;
	}
	rc = proc_run(argv, b->src, envs, log);
	if (rc != 0) {
		snprintf(why, wlen, "the build (%s) exited %d; see %s", argv[2],
			 rc, log);
		return -1;
	}
	if (!(d = opendir(out))) {
		snprintf(why, wlen, "cannot read %s: %s", out, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 5 && !strcmp(e->d_name + n - 5, ".yaml")) {
			found++;
			snprintf(variant, vlen, "%s/%s", out, e->d_name);
		}
	}
	closedir(d);
	if (found != 1) {
		snprintf(why, wlen,
			 "the build left %d .yaml files in $AIRLAB_OUT (%s); "
			 "it must leave one stack variant",
			 found, out);
		return -1;
	}
	return 0;
}

/* Flashes and boots the variant, then runs the suite; run directories
 * are appended to dirs. Returns 0, or -1 with why (a boot failure). */
static int measure(struct bisect *b, struct cli_opts *o, const char *variant,
		   int runs, json_t *dirs, char *why, size_t wlen)
{
	static struct cell c;
	static struct cell_state st;
	struct suite_params p = {0};
	struct dut d;
	int rc = 0;

	snprintf(o->variant, sizeof(o->variant), "%s", variant);
	if (cli_cell_load(&c, o) < 0) {
		snprintf(why, wlen, "the variant %s does not load", variant);
		return -1;
	}
	/* Every revision's variant has the same name: boot it afresh, not
	 * reuse a DUT that runs the last one. */
	if (cli_dut_open(&d, &c.lab, c.ap_host->name) != AL_EXIT_OK ||
	    cli_cell_up(&c, &d, 60, false, &st) < 0) {
		snprintf(why, wlen, "%s did not come up with %s",
			 c.ap_host->name, variant);
		rc = -1;
	}
	dut_close(&d);
	cell_free(&c);
	p.length_s = json_number_value(json_object_get(b->root, "length_s"));
	for (int i = 0; i < runs && rc == 0; i++) {
		struct cli_run_result r;

		cli_run_suite(o, jstr(b->root, "suite"), &p, b->results, 60,
			      &r);
		if (r.lab_failed) {
			snprintf(why, wlen, "the lab failed during the run");
			rc = -1;
		} else if (r.dir[0]) {
			json_array_append_new(dirs, json_string(r.dir));
		}
	}
	return rc;
}

/* One revision, start to verdict; records step.json in stepdir. base:
 * the good revision's runs (NULL: this is a baseline, no verdict). */
static int evaluate(struct bisect *b, struct cli_opts *o, const char *rev,
		    const char *role, json_t *base, json_t **step_out)
{
	const struct cmp_metric *m = cmp_metric_find(jstr(b->root, "metric"));
	double threshold =
	    json_number_value(json_object_get(b->root, "threshold"));
	int runs = (int)json_integer_value(json_object_get(b->root, "runs"));
	int max_runs =
	    (int)json_integer_value(json_object_get(b->root, "max_runs"));
	json_t *steps = json_object_get(b->root, "steps"), *dirs = json_array();
	char sha[64] = "", subject[256] = "", stepdir[PATH_MAX + 200];
	char variant[PATH_MAX + 600] = "", why[PATH_MAX + 900] = "", id[64];
	struct cmp_result r = {.a_median = NAN,
			       .b_median = NAN,
			       .change = NAN,
			       .ci_lo = NAN,
			       .ci_hi = NAN};
	struct cmp_samples a = {0}, s = {0};
	int verdict = STEP_SKIP, nstep = (int)json_array_size(steps);
	json_t *step;

	git(b->src, sha, sizeof(sha), "rev-parse", rev, NULL, NULL);
	git(b->src, subject, sizeof(subject), "log", "-1", "--format=%s", rev);
	snprintf(id, sizeof(id), "%02d-%.12s", nstep, sha);
	if (path_mkdir_unique(b->dir, id, id, sizeof(id), stepdir,
			      sizeof(stepdir)) < 0) {
		fprintf(stderr, "airlab bisect: cannot create %s/%s: %s\n",
			b->dir, id, strerror(errno));
		json_decref(dirs);
		return -1;
	}
	fprintf(stderr, "bisect: step %d (%s): %.12s %s\n", nstep, role, sha,
		subject);
	if (build(b, stepdir, variant, sizeof(variant), why, sizeof(why)) ==
		0 &&
	    measure(b, o, variant, runs, dirs, why, sizeof(why)) == 0) {
		/* Undecided: more runs, up to max_runs. */
		for (;;) {
			if (!base) {
				verdict = -1;
				break;
			}
			cmp_samples_free(&a);
			cmp_samples_free(&s);
			pool(base, m, &a);
			pool(dirs, m, &s);
			cmp_compare(&a, &s, m, threshold, 1, &r);
			verdict = decide(m, &r, threshold);
			if (verdict >= 0)
				break;
			if ((int)json_array_size(dirs) >= max_runs) {
				snprintf(why, sizeof(why),
					 "undecided after %zu runs (change "
					 "%+.1f%%, 95%% CI %+.1f%% to %+.1f%%)",
					 json_array_size(dirs), 100 * r.change,
					 100 * r.ci_lo, 100 * r.ci_hi);
				verdict = STEP_SKIP;
				break;
			}
			fprintf(stderr,
				"bisect: %.12s undecided (CI %+.1f%% "
				"to %+.1f%%): one more run\n",
				sha, 100 * r.ci_lo, 100 * r.ci_hi);
			if (measure(b, o, variant, 1, dirs, why, sizeof(why)) <
			    0) {
				verdict = STEP_SKIP;
				break;
			}
		}
	}
	if (!base && verdict == -1) {
		/* A baseline's own median, for the figures. */
		pool(dirs, m, &s);
		cmp_compare(&s, &s, m, threshold, 1, &r);
	}
	cmp_samples_free(&a);
	cmp_samples_free(&s);
	step = json_pack(
	    "{s:s, s:s, s:s, s:s, s:s, s:o, s:s?, s:s, s:o, s:o, s:o, s:o, "
	    "s:s}",
	    "role", role, "rev", sha, "subject", subject, "label", subject,
	    "variant", variant, "runs", dirs, "run_id",
	    json_array_size(dirs)
		? strrchr(json_string_value(json_array_get(dirs, 0)), '/') + 1
		: NULL,
	    "outcome",
	    !base && verdict == -1 ? "baseline"
	    : verdict == STEP_GOOD ? "good"
	    : verdict == STEP_BAD  ? "bad"
				   : "skip",
	    "good_median", json_num(base ? r.a_median : NAN), "median",
	    json_num(base ? r.b_median : r.a_median), "change",
	    json_num(r.change), "ci",
	    json_pack("[o, o]", json_num(r.ci_lo), json_num(r.ci_hi)), "reason",
	    why);
	json_object_set_new(step, "x", json_integer(nstep));
	json_object_set_new(step, "dir", json_string(stepdir));
	{
		char sj[PATH_MAX + 220];
		struct al_err err;

		snprintf(sj, sizeof(sj), "%s/step.json", stepdir);
		if (json_write_atomic(step, sj, 0, &err) < 0)
			fprintf(stderr, "airlab bisect: %s\n", err.msg);
	}
	json_array_append(steps, step);
	save(b);
	fprintf(stderr, "bisect: %.12s: %s", sha, jstr(step, "outcome"));
	if (base && isfinite(r.change))
		fprintf(stderr, " (%s median %.2f vs good %.2f %s, %+.1f%%)",
			m->name, r.b_median, r.a_median, m->units,
			100 * r.change);
	fprintf(stderr, "%s%s\n", why[0] ? ": " : "", why);
	*step_out = step;
	json_decref(step);
	return !base ? (verdict == -1 ? 0 : -1) : verdict;
}

/* airlab bisect-step STATEDIR: what `git bisect run` calls. */
int cmd_bisect_step(int argc, char **argv, struct cli_opts *o)
{
	static struct bisect b;
	json_t *step, *base;
	int rc;

	if (argc == 2 && cli_is_help(argv[1])) {
		cli_usage_flags(stdout, "bisect-step", NULL);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "airlab bisect-step: give the bisect's "
				"directory (git bisect run calls this)\n");
		return STEP_SKIP + 3; /* > 127 stops git bisect */
	}
	if (load(&b, argv[1]) < 0)
		return 128;
	snprintf(o->lab, sizeof(o->lab), "%s", jstr(b.root, "lab"));
	snprintf(o->topology, sizeof(o->topology), "%s",
		 jstr(b.root, "topology"));
	base = json_object_get(
	    json_array_get(json_object_get(b.root, "steps"), 0), "runs");
	rc = evaluate(&b, o, "HEAD", "step", base, &step);
	json_decref(b.root);
	return rc < 0 ? 128 : rc;
}

static int parse_args(int argc, char **argv, struct cli_opts *o, json_t **spec)
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
	char res[PATH_MAX], lab[PATH_MAX], topo[PATH_MAX], rp[PATH_MAX];
	const struct cmp_metric *m;
	struct al_err err;
	int rc = cli_parse("bisect", argc, argv, o, flags, NULL, 0);
	int nruns = 1, nmax = 0, len = 0;
	double threshold;

	if (rc >= 0)
		return rc;
	if (!repo || !good || !bad || !cmd || !metric) {
		fprintf(stderr, "airlab bisect: give --repo, --good, --bad, "
				"--build and --metric\n");
		return AL_EXIT_USAGE;
	}
	if (!(m = cli_metric_arg("bisect", metric)))
		return AL_EXIT_USAGE;
	threshold = m->threshold;
	if (thr && cli_threshold_arg("bisect", thr, &threshold) < 0)
		return AL_EXIT_USAGE;
	if ((runs &&
	     cli_seconds_arg("bisect", "--runs", runs, 1, &nruns) < 0) ||
	    (max &&
	     cli_seconds_arg("bisect", "--max-runs", max, 1, &nmax) < 0) ||
	    (length &&
	     cli_seconds_arg("bisect", "--length", length, 1, &len) < 0))
		return AL_EXIT_USAGE;
	if (nruns > MAX_RUNS || nmax > MAX_RUNS) {
		fprintf(stderr, "airlab bisect: at most %d runs a step\n",
			MAX_RUNS);
		return AL_EXIT_USAGE;
	}
	if (!nmax)
		nmax = 2 * nruns;
	if (nmax < nruns) {
		fprintf(stderr,
			"airlab bisect: --max-runs %d is below --runs "
			"%d\n",
			nmax, nruns);
		return AL_EXIT_USAGE;
	}
	if (!suite_find(suite, &err)) {
		fprintf(stderr, "airlab bisect: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	if (!realpath(repo, rp)) {
		fprintf(stderr, "airlab bisect: --repo %s: %s\n", repo,
			strerror(errno));
		return AL_EXIT_USAGE;
	}
	/* Both ends must be commits of the repo before anything is made. */
	for (int k = 0; k < 2; k++) {
		const char *rev = k ? bad : good;
		char want[300], sha[128];

		snprintf(want, sizeof(want), "%s^{commit}", rev);
		if (git(rp, sha, sizeof(sha), "rev-parse", "-q", "--verify",
			want) != 0) {
			fprintf(stderr,
				"airlab bisect: %s: no commit '%s' (--%s)\n",
				repo, rev, k ? "bad" : "good");
			return AL_EXIT_USAGE;
		}
	}
	/* Absolute: the steps run in the clone. */
	{
		char given[PATH_MAX];

		snprintf(given, sizeof(given), "%s",
			 cli_results_dir(o, out, res, sizeof(res)));
		if ((mkdir(given, 0755) < 0 && errno != EEXIST) ||
		    !realpath(given, res)) {
			fprintf(stderr, "airlab bisect: results %s: %s\n",
				given, strerror(errno));
			return AL_EXIT_USAGE;
		}
	}
	if (!realpath(o->lab, lab) || !realpath(o->topology, topo)) {
		fprintf(stderr, "airlab bisect: %s: %s\n",
			realpath(o->lab, lab) ? o->topology : o->lab,
			strerror(errno));
		return AL_EXIT_USAGE;
	}
	*spec = json_pack(
	    "{s:s, s:s, s:s, s:s, s:s, s:f, s:i, s:i, s:s, s:o, s:s, s:s, "
	    "s:s, s:[]}",
	    "kind", "bisect", "repo", rp, "good", good, "bad", bad, "build",
	    cmd, "threshold", threshold, "runs", nruns, "max_runs", nmax,
	    "suite", suite, "length_s", len ? json_real(len) : json_real(0),
	    "metric", m->name, "lab", lab, "topology", topo, "steps");
	json_object_set_new(*spec, "results", json_string(res));
	return -1;
}

/* The clone, with both revisions checked to be commits. */
static int clone_repo(struct bisect *b, json_t *spec)
{
	char out[512];
	char *argv[] = {
	    "git",  "clone", "-q", "--no-hardlinks", (char *)jstr(spec, "repo"),
	    b->src, NULL};

	if (proc_run(argv, NULL, NULL, NULL) != 0) {
		fprintf(stderr, "airlab bisect: git clone %s failed\n",
			jstr(spec, "repo"));
		return -1;
	}
	for (int k = 0; k < 2; k++) {
		const char *rev = jstr(spec, k ? "bad" : "good");
		char want[300];

		snprintf(want, sizeof(want), "%s^{commit}", rev);
		if (git(b->src, out, sizeof(out), "rev-parse", "-q", "--verify",
			want) != 0) {
			fprintf(stderr,
				"airlab bisect: %s: no commit '%s' (--%s)\n",
				jstr(spec, "repo"), rev, k ? "bad" : "good");
			return -1;
		}
	}
	return 0;
}

static json_t *step_of(json_t *steps, const char *sha)
{
	json_t *found = NULL;

	for (size_t i = 0; i < json_array_size(steps); i++)
		if (!strcmp(jstr(json_array_get(steps, i), "rev"), sha))
			found = json_array_get(steps, i);
	return found;
}

static void finish(struct bisect *b, int verdict_rc)
{
	json_t *steps = json_object_get(b->root, "steps"), *bad, *good;
	char sha[64] = "", parent[64] = "", want[80];
	const char *report_dirs[2];
	char rdir[PATH_MAX + 100];
	struct al_err err;

	git(b->src, sha, sizeof(sha), "rev-parse", "-q", "--verify",
	    "refs/bisect/bad");
	snprintf(want, sizeof(want), "%s^", sha);
	git(b->src, parent, sizeof(parent), "rev-parse", "-q", "--verify",
	    want);
	bad = step_of(steps, sha);
	good = step_of(steps, parent);
	json_object_set_new(
	    b->root, "first_bad",
	    json_pack("{s:s, s:s}", "rev", sha, "parent", parent));
	json_object_set_new(
	    b->root, "status",
	    json_string(verdict_rc == 0 ? "complete" : "inconclusive"));
	json_object_set_new(
	    b->root, "bisect_steps",
	    json_integer((json_int_t)json_array_size(steps) - 2));
	printf("first bad commit: %s %s\n", sha,
	       bad ? jstr(bad, "subject") : "");
	if (good)
		printf("  before (%.12s, %s): %s median %.2f\n", parent,
		       jstr(good, "outcome"), jstr(b->root, "metric"),
		       json_number_value(json_object_get(good, "median")));
	if (bad)
		printf("  at     (%.12s, %s): %s median %.2f (vs good "
		       "baseline %+.1f%%)\n",
		       sha, jstr(bad, "outcome"), jstr(b->root, "metric"),
		       json_number_value(json_object_get(bad, "median")),
		       100 * json_number_value(json_object_get(bad, "change")));
	save(b);
	if (!good || !bad || !json_array_size(json_object_get(good, "runs")) ||
	    !json_array_size(json_object_get(bad, "runs")))
		return;
	report_dirs[0] =
	    json_string_value(json_array_get(json_object_get(good, "runs"), 0));
	report_dirs[1] =
	    json_string_value(json_array_get(json_object_get(bad, "runs"), 0));
	snprintf(rdir, sizeof(rdir), "%s/report", b->dir);
	if (report_write(report_dirs, 2, rdir, &err) < 0)
		fprintf(stderr, "airlab bisect: report: %s\n", err.msg);
	else
		printf("report: %s/index.html\n", rdir);
	json_object_set_new(b->root, "report", json_string(rdir));
	save(b);
}

int cmd_bisect(int argc, char **argv, struct cli_opts *o)
{
	static struct bisect b;
	char parent[PATH_MAX + 20], stamp[32], id[64], self[PATH_MAX];
	char out[4096];
	json_t *spec = NULL, *gstep = NULL, *bstep = NULL;
	double t0 = cli_mono_s();
	ssize_t n;
	int rc;

	if ((rc = parse_args(argc, argv, o, &spec)) >= 0)
		return rc;
	/* Ctrl-C ends the step that runs (its processes get it too); this
	 * process stays to record the bisect as interrupted. */
	{
		struct sigaction sa = {.sa_handler = on_signal};

		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	snprintf(b.results, sizeof(b.results), "%s", jstr(spec, "results"));
	snprintf(parent, sizeof(parent), "%s/bisect", b.results);
	path_utc_stamp(stamp, sizeof(stamp));
	if ((mkdir(b.results, 0755) < 0 && errno != EEXIST) ||
	    path_mkdir_unique(parent, stamp, id, sizeof(id), b.dir,
			      sizeof(b.dir)) < 0) {
		fprintf(stderr,
			"airlab bisect: cannot create a directory in "
			"%s: %s\n",
			parent, strerror(errno));
		json_decref(spec);
		return AL_EXIT_LAB;
	}
	snprintf(b.src, sizeof(b.src), "%s/src", b.dir);
	snprintf(b.file, sizeof(b.file), "%s/bisect.json", b.dir);
	json_object_set_new(spec, "id", json_string(id));
	json_object_set_new(spec, "status", json_string("running"));
	json_object_set_new(spec, "start", json_string(stamp));
	b.root = spec;
	if (save(&b) < 0 || clone_repo(&b, spec) < 0) {
		json_object_set_new(b.root, "status", json_string("failed"));
		save(&b);
		json_decref(b.root);
		return AL_EXIT_LAB;
	}
	fprintf(stderr, "bisect %s: %s..%s of %s on %s (%s); record %s\n", id,
		jstr(spec, "good"), jstr(spec, "bad"), jstr(spec, "repo"),
		jstr(spec, "metric"), jstr(spec, "suite"), b.file);
	/* The two ends first: good is what every step is held against, and
	 * bad must be worse than it or there is nothing to find. */
	git(b.src, out, sizeof(out), "checkout", "-q", jstr(spec, "good"),
	    NULL);
	if (evaluate(&b, o, "HEAD", "good", NULL, &gstep) < 0 || interrupted) {
		if (interrupted) {
			json_object_set_new(b.root, "status",
					    json_string("interrupted"));
			rc = AL_EXIT_WORSE; /* incomplete */
			goto out;
		}
		fprintf(stderr,
			"airlab bisect: the good revision %s could not "
			"be measured: %s\n",
			jstr(spec, "good"), jstr(gstep, "reason"));
		rc = AL_EXIT_LAB;
		goto out;
	}
	git(b.src, out, sizeof(out), "checkout", "-q", jstr(spec, "bad"), NULL);
	rc = evaluate(
	    &b, o, "HEAD", "bad",
	    json_object_get(json_array_get(json_object_get(b.root, "steps"), 0),
			    "runs"),
	    &bstep);
	if (interrupted) {
		json_object_set_new(b.root, "status",
				    json_string("interrupted"));
		rc = AL_EXIT_WORSE;
		goto out;
	}
	if (rc != STEP_BAD) {
		fprintf(stderr,
			"airlab bisect: the bad revision %s is not worse than "
			"the good one on %s (%s%s%s): nothing to bisect\n",
			jstr(spec, "bad"), jstr(spec, "metric"),
			jstr(bstep, "outcome"),
			jstr(bstep, "reason")[0] ? ": " : "",
			jstr(bstep, "reason"));
		rc = AL_EXIT_WORSE;
		goto out;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
	{
		/* The two ends as measured (copies: b.root goes before the
		 * steps rewrite bisect.json). */
		char bad_sha[64], good_sha[64];
		char *start[] = {"git",	  "bisect", "start",
				 bad_sha, good_sha, NULL};
		char *run[] = {"git",	      "bisect", "run", self,
			       "bisect-step", b.dir,	NULL};
		char log[PATH_MAX + 100];

		snprintf(log, sizeof(log), "%s/git-bisect.log", b.dir);
		snprintf(good_sha, sizeof(good_sha), "%s", jstr(gstep, "rev"));
		snprintf(bad_sha, sizeof(bad_sha), "%s", jstr(bstep, "rev"));
		json_decref(b.root);
		b.root = NULL;
		if (proc_run(start, b.src, NULL, log) != 0) {
			fprintf(stderr,
				"airlab bisect: git bisect start "
				"failed; see %s\n",
				log);
			rc = AL_EXIT_LAB;
			load(&b, b.dir);
			goto out;
		}
		/* Steps print their progress on our stderr. */
		rc = interrupted ? 1 : proc_run(run, b.src, NULL, NULL);
		if (load(&b, b.dir) < 0)
			return AL_EXIT_LAB;
		if (interrupted) {
			json_object_set_new(b.root, "status",
					    json_string("interrupted"));
			fprintf(stderr,
				"bisect %s: interrupted; the steps so far "
				"are in %s\n",
				id, b.file);
			rc = AL_EXIT_WORSE; /* incomplete */
			goto out;
		}
		finish(&b, rc);
		printf("bisect %s: %d steps (%zu with the two ends), %.0f s; "
		       "record %s\n",
		       id,
		       (int)json_array_size(json_object_get(b.root, "steps")) -
			   2,
		       json_array_size(json_object_get(b.root, "steps")),
		       cli_mono_s() - t0, b.file);
		rc = rc == 0 ? AL_EXIT_OK : AL_EXIT_WORSE;
	}
out:
	if (b.root) {
		json_t *st = json_object_get(b.root, "status");

		if (!st || !strcmp(json_string_value(st), "running"))
			json_object_set_new(
			    b.root, "status",
			    json_string(rc ? "failed" : "complete"));
		json_object_set_new(b.root, "wall_s",
				    json_real(cli_mono_s() - t0));
		save(&b);
		json_decref(b.root);
	}
	return rc;
}
