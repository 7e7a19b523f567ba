/* The bisect strategy without a lab: the verdicts (bisect_decide on
 * comparisons made by hand, bisect_pool and bisect_verdict on run
 * directories this test writes), the bisect.json record saved, indexed
 * and read back, the refusals of bad input (revisions that are not
 * commits of a real temporary git repository, an unknown metric or
 * suite, too many runs...) with nothing made, and whole bisects and
 * steps that end before the lab would be touched: a build that fails, a
 * build that leaves no variant or one that does not load, an interrupt. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <sys/stat.h>

#include "../results/store.h"
#include "../strategy/bisect.h"
#include "../util/path.h"
#include "fixture_repo.h"
#include "fixture_run.h"

static char tmp[256];			   /* this test's directory */
static char repo[PATH_MAX + 16];	   /* tmp/repo: three commits */
static char lab[PATH_MAX], topo[PATH_MAX]; /* the repo's virtual lab */
static char kdir[PATH_MAX];		   /* its kernel/ */

static void sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("'%s' failed", cmd);
}

/* A run directory tmp/name with run.json and a Flent file of n latency
 * samples: v0, v1, v0, v1... (ms). */
static void run_dir(const char *name, int n, double v0, double v1, char *out,
		    size_t len)
{
	double t0 = 1700000000.5;
	struct al_err err;
	struct flent_file *f;
	int ping;

	snprintf(out, len, "%s/%s", tmp, name);
	assert_int_equal(path_mkdirs(out), 0);
	f = flent_new("ping", t0, 0.5, n * 0.5, n * 0.5, &err);
	assert_non_null(f);
	ping = flent_series(f, "Ping (ms) ICMP", "ms");
	for (int i = 0; i < n; i++)
		assert_int_equal(
		    flent_raw(f, ping, t0 + 0.5 * i, i % 2 ? v1 : v0, NULL), 0);
	fixture_run_write(out, f);
}

/* A step whose runs are a and b (NULL: none); step_drop frees it. */
static struct series_step *dirs_of(const char *a, const char *b)
{
	struct series_step *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	series_step_init(d);
	assert_int_equal(series_step_add_run(d, a), 0);
	if (b)
		assert_int_equal(series_step_add_run(d, b), 0);
	return d;
}

static void step_drop(struct series_step *d)
{
	series_step_free(d);
	free(d);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/airlab-test-bisect.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(repo, sizeof(repo), "%s/repo", tmp);
	/* Three commits: "one" builds a variant that does not parse. */
	sh("git init -q '%s' && cd '%s' && "
	   "printf 'variant: broken\\nnonsense: [\\n' >broken.yaml && "
	   "git add -A && git -c user.name=t -c user.email=t@t commit -qm one "
	   "&& echo 2 >two && git add -A && "
	   "git -c user.name=t -c user.email=t@t commit -qm two && "
	   "echo 3 >three && git add -A && "
	   "git -c user.name=t -c user.email=t@t commit -qm three",
	   repo, repo);
	repo_path(lab, sizeof(lab), "lab/virtual.yaml");
	repo_path(topo, sizeof(topo), "topology/cell-4sta.yaml");
	repo_path(kdir, sizeof(kdir), "kernel");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", tmp);
	return 0;
}

/* A request that bisect_spec takes, its results in dir: tmp/name. */
static struct bisect_request request(char *dir, size_t len, const char *name)
{
	snprintf(dir, len, "%s/%s", tmp, name);
	return (struct bisect_request){.env = {.lab = lab,
					       .topology = topo,
					       .root = repo_root(),
					       .variant_dir = kdir},
				       .repo = repo,
				       .good = "HEAD~2",
				       .bad = "HEAD",
				       .build = "false",
				       .metric = "latency",
				       .threshold = NAN,
				       .runs = 1,
				       .suite = "ping",
				       .length_s = 3,
				       .out_dir = dir};
}

static void decide_verdicts(void **state)
{
	const struct cmp_metric *lat = cmp_metric_find("latency");
	const struct cmp_metric *gp = cmp_metric_find("goodput");
	struct cmp_result r = {.verdict = CMP_NODATA};

	(void)state;
	assert_int_equal(bisect_decide(lat, &r, 0.1), -1);
	r = (struct cmp_result){
	    .verdict = CMP_WORSE, .ci_lo = 0.5, .ci_hi = 0.9};
	assert_int_equal(bisect_decide(lat, &r, 0.1), BISECT_BAD);
	/* Latency: an interval wholly below +threshold is good, even when
	 * it is not "better"; one that reaches it is undecided. */
	r = (struct cmp_result){
	    .verdict = CMP_SAME, .ci_lo = -0.2, .ci_hi = 0.05};
	assert_int_equal(bisect_decide(lat, &r, 0.1), BISECT_GOOD);
	r.ci_hi = 0.15;
	assert_int_equal(bisect_decide(lat, &r, 0.1), -1);
	/* Goodput is higher-is-better: the interval's low end counts. */
	r = (struct cmp_result){
	    .verdict = CMP_SAME, .ci_lo = -0.05, .ci_hi = 0.3};
	assert_int_equal(bisect_decide(gp, &r, 0.1), BISECT_GOOD);
	r.ci_lo = -0.15;
	assert_int_equal(bisect_decide(gp, &r, 0.1), -1);
	r.verdict = CMP_BETTER;
	r.ci_lo = 0.2;
	assert_int_equal(bisect_decide(gp, &r, 0.1), BISECT_GOOD);
}

static void pool_and_verdicts_on_runs(void **state)
{
	const struct cmp_metric *lat = cmp_metric_find("latency");
	char g1[PATH_MAX + 32], g2[PATH_MAX + 32], worse[PATH_MAX + 32];
	char same[PATH_MAX + 32], mixed[PATH_MAX + 32], few[PATH_MAX + 32];
	char none[PATH_MAX + 32];
	struct cmp_samples s;
	struct cmp_result r;
	struct series_step *base, *d;

	(void)state;
	run_dir("runs/good1", 40, 10, 10.5, g1, sizeof(g1));
	run_dir("runs/good2", 30, 10, 10.5, g2, sizeof(g2));
	run_dir("runs/worse", 40, 40, 41, worse, sizeof(worse));
	run_dir("runs/same", 40, 10, 10.5, same, sizeof(same));
	run_dir("runs/mixed", 40, 10, 13, mixed, sizeof(mixed));
	run_dir("runs/few", 3, 40, 40, few, sizeof(few));
	snprintf(none, sizeof(none), "%s/runs/none", tmp);

	/* Pooled: both runs' samples; a run that cannot be read is left
	 * out, not the end of the pool. */
	base = dirs_of(g1, g2);
	assert_int_equal(bisect_pool(base, lat, &s), 0);
	assert_int_equal(s.n, 70);
	cmp_samples_free(&s);
	d = dirs_of(none, g2);
	assert_int_equal(bisect_pool(d, lat, &s), 0);
	assert_int_equal(s.n, 30);
	cmp_samples_free(&s);
	step_drop(d);

	d = dirs_of(worse, NULL);
	assert_int_equal(bisect_verdict(base, d, lat, 0.1, &r), BISECT_BAD);
	assert_true(r.change > 2.5 && r.change < 3.5);
	step_drop(d);
	d = dirs_of(same, NULL);
	assert_int_equal(bisect_verdict(base, d, lat, 0.1, &r), BISECT_GOOD);
	step_drop(d);
	/* Half at +30%: the median's interval spans 0 to +30%, across the
	 * threshold: undecided. */
	d = dirs_of(mixed, NULL);
	assert_int_equal(bisect_verdict(base, d, lat, 0.1, &r), -1);
	assert_true(r.ci_lo <= 0.1 && r.ci_hi >= 0.1);
	step_drop(d);
	/* Too few samples: no verdict however bad they look. */
	d = dirs_of(few, NULL);
	assert_int_equal(bisect_verdict(base, d, lat, 0.1, &r), -1);
	assert_int_equal(r.verdict, CMP_NODATA);
	step_drop(d);
	/* A baseline: its own median. */
	assert_int_equal(bisect_verdict(NULL, base, lat, 0.1, &r), -1);
	assert_true(r.a_median >= 10 && r.a_median <= 10.5);
	step_drop(base);
}

/* The series the store holds for id: its status and step count. */
static void indexed(const char *results, const char *id, const char *status,
		    int nsteps)
{
	char db_path[PATH_MAX + 32], sql[512];
	sqlite3 *db;
	sqlite3_stmt *st;

	snprintf(db_path, sizeof(db_path), "%s/airlab.db", results);
	assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql),
		 "SELECT status, (SELECT count(*) FROM series_steps) FROM "
		 "series WHERE id = '%s' AND kind = 'bisect'",
		 id);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), status);
	assert_int_equal(sqlite3_column_int(st, 1), nsteps);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void record_round_trip(void **state)
{
	struct bisect *b = calloc(1, sizeof(*b)), *c = calloc(1, sizeof(*c));
	struct al_err err;
	FILE *fp;

	(void)state;
	snprintf(b->dir, sizeof(b->dir), "%s/rt/bisect/x1", tmp);
	snprintf(b->file, sizeof(b->file), "%s/bisect.json", b->dir);
	snprintf(b->results, sizeof(b->results), "%s/rt", tmp);
	assert_int_equal(path_mkdirs(b->dir), 0);
	b->root = json_pack(
	    "{s:s, s:s, s:s, s:s, s:s, s:f, s:i, s:[{s:s, s:s, s:s, s:i, "
	    "s:s, s:s, s:o, s:[]}]}",
	    "kind", "bisect", "id", "x1", "status", "running", "start",
	    "20260101T000000Z", "results", b->results, "threshold", 0.25,
	    "runs", 2, "steps", "role", "good", "rev", "abc", "outcome",
	    "baseline", "x", 0, "label", "one", "variant", "/v.yaml", "median",
	    json_real(12.5), "runs");
	assert_non_null(b->root);
	assert_int_equal(bisect_save(b, &err), 0);
	indexed(b->results, "x1", "running", 1);

	assert_int_equal(bisect_load(c, b->dir, &err), 0);
	assert_true(json_equal(b->root, c->root));
	assert_string_equal(c->results, b->results);
	assert_string_equal(c->file, b->file);
	assert_non_null(strstr(c->src, "/rt/bisect/x1/src"));
	/* Saved again with a change: the index follows. */
	json_object_set_new(c->root, "status", json_string("complete"));
	assert_int_equal(bisect_save(c, &err), 0);
	indexed(b->results, "x1", "complete", 1);
	json_decref(c->root);

	/* A record that is not JSON: its file and line. */
	fp = fopen(b->file, "w");
	assert_non_null(fp);
	fputs("{\"kind\": \"bisect\",\n", fp);
	fclose(fp);
	assert_int_equal(bisect_load(c, b->dir, &err), -1);
	assert_non_null(strstr(err.msg, "/rt/bisect/x1/bisect.json:2: "));
	/* Where it cannot be written: the error names the file. */
	snprintf(b->file, sizeof(b->file), "%s/rt/nowhere/bisect.json", tmp);
	assert_int_equal(bisect_save(b, &err), -1);
	assert_non_null(strstr(err.msg, "/rt/nowhere/bisect.json"));
	json_decref(b->root);
	free(b);
	free(c);
}

/* A request with one thing wrong, and what its refusal must say. Fields
 * left 0 are request()'s. */
struct refusal {
	const char *repo, *good, *bad, *metric, *suite, *out_dir, *lab, *topo;
	bool no_build;
	int runs, max_runs;
	double threshold;
	const char *want;
	bool made; /* the results directory is made before the lab is
		    * checked */
};

#define OR(a, b) ((a) ? (a) : (b))

/* The refusal of c's request: bad input, one line containing c->want,
 * the results directory left unmade (unless c->made). */
static void refused(const struct refusal *c)
{
	char dir[PATH_MAX + 32];
	struct bisect_request rq = request(dir, sizeof(dir), "spec");
	struct al_err err = {0};
	json_t *spec;

	rq.repo = OR(c->repo, rq.repo);
	rq.good = OR(c->good, rq.good);
	rq.bad = OR(c->bad, rq.bad);
	rq.metric = OR(c->metric, rq.metric);
	rq.suite = OR(c->suite, rq.suite);
	rq.out_dir = OR(c->out_dir, rq.out_dir);
	rq.env.lab = OR(c->lab, rq.env.lab);
	rq.env.topology = OR(c->topo, rq.env.topology);
	rq.build = c->no_build ? NULL : rq.build;
	rq.runs = OR(c->runs, rq.runs);
	rq.max_runs = c->max_runs;
	rq.threshold = c->threshold ? c->threshold : rq.threshold;
	if ((spec = bisect_spec(&rq, &err)))
		fail_msg("taken, where '%s' was expected", c->want);
	if (!err.bad_input || !strstr(err.msg, c->want) ||
	    strchr(err.msg, '\n'))
		fail_msg("refused with '%s' (bad input %d), not '%s'", err.msg,
			 err.bad_input, c->want);
	if (!c->made && access(rq.out_dir, F_OK) == 0)
		fail_msg("%s was made by a refused bisect", rq.out_dir);
	if (c->made)
		sh("rmdir '%s'", rq.out_dir);
}

static void spec_refusals(void **state)
{
	char dir[PATH_MAX + 32], want[PATH_MAX + 64];
	const struct refusal cases[] = {
	    {.good = "nosuchrev", .want = want},
	    /* A tree is not a commit. */
	    {.bad = "HEAD^{tree}", .want = "no commit 'HEAD^{tree}' (--bad)"},
	    /* A directory, not a repository. */
	    {.repo = tmp, .want = "no commit 'HEAD~2' (--good)"},
	    {.repo = "/nonexistent/repo",
	     .want = "--repo /nonexistent/repo: No such file or directory"},
	    {.metric = "jitter",
	     .want = "unknown metric 'jitter' (known: latency goodput"},
	    {.runs = 17, .want = "at most 16 runs a step"},
	    {.max_runs = 17, .want = "at most 16 runs a step"},
	    {.runs = 3,
	     .max_runs = 2,
	     .want = "--max-runs 2 is below --runs 3"},
	    {.runs = -1, .want = "--runs -1"},
	    {.threshold = 11,
	     .want = "--threshold 11 is not a fraction from 0 to 10"},
	    {.suite = "nosuch", .want = "unknown suite 'nosuch'"},
	    {.no_build = true,
	     .want = "give --repo, --good, --bad, --build and --metric"},
	    {.out_dir = "/proc/nonexistent/results",
	     .want = "results /proc/nonexistent/results: "},
	    {.lab = "/nonexistent/lab.yaml",
	     .want = "/nonexistent/lab.yaml: No such file or directory",
	     .made = true},
	    {.topo = "/nonexistent/topo.yaml",
	     .want = "/nonexistent/topo.yaml: No such file or directory",
	     .made = true},
	};
	struct bisect_request rq;
	struct al_err err;
	json_t *spec;

	(void)state;
	snprintf(want, sizeof(want), "%s: no commit 'nosuchrev' (--good)",
		 repo);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		refused(&cases[i]);

	/* Taken: paths absolute, the metric's own threshold, max 2 x runs. */
	rq = request(dir, sizeof(dir), "spec");
	rq.runs = 3;
	spec = bisect_spec(&rq, &err);
	if (!spec)
		fail_msg("%s", err.msg);
	assert_string_equal(json_string_value(json_object_get(spec, "repo")),
			    repo);
	assert_string_equal(json_string_value(json_object_get(spec, "results")),
			    rq.out_dir);
	assert_true(json_number_value(json_object_get(spec, "threshold")) ==
		    cmp_metric_find("latency")->threshold);
	assert_int_equal(json_integer_value(json_object_get(spec, "max_runs")),
			 6);
	assert_int_equal(json_array_size(json_object_get(spec, "steps")), 0);
	assert_string_equal(json_string_value(json_object_get(spec, "good")),
			    "HEAD~2");
	assert_int_equal(access(rq.out_dir, W_OK), 0);
	json_decref(spec);
}

/* The only bisect directory in results; its record loaded into b. */
static void only_bisect(const char *results, struct bisect *b)
{
	char dir[PATH_MAX + 64], cmd[2 * PATH_MAX];
	struct al_err err;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -d '%s'/bisect/*/", results);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(dir, sizeof(dir), p));
	dir[strcspn(dir, "\n")] = 0;
	if (dir[0] && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = 0;
	assert_null(fgets(cmd, sizeof(cmd), p)); /* only one */
	pclose(p);
	if (bisect_load(b, dir, &err) < 0)
		fail_msg("%s", err.msg);
}

static const char *step_str(const struct bisect *b, size_t i, const char *key)
{
	json_t *step = json_array_get(json_object_get(b->root, "steps"), i);
	const char *v = json_string_value(json_object_get(step, key));

	assert_non_null(v);
	return v;
}

static void file_in(const char *dir, const char *name)
{
	char path[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (access(path, R_OK) != 0)
		fail_msg("no %s", path);
}

static void run_refused_makes_nothing(void **state)
{
	char dir[PATH_MAX + 32];
	struct bisect_request rq = request(dir, sizeof(dir), "run-refused");
	struct bisect_result *out = calloc(1, sizeof(*out));
	struct al_err err = {0};

	(void)state;
	rq.bad = "nosuchrev";
	assert_int_equal(bisect_run(&rq, out, &err), -1);
	assert_true(err.bad_input);
	assert_non_null(strstr(err.msg, "no commit 'nosuchrev' (--bad)"));
	assert_int_equal(access(rq.out_dir, F_OK), -1);
	free(out);
}

static const char *id_of(const struct bisect *b)
{
	return json_string_value(json_object_get(b->root, "id"));
}

/* A bisect in tmp/name whose good revision's build failed, loaded. */
static void failed_bisect(const char *name, struct bisect *b)
{
	char dir[PATH_MAX + 32];
	struct bisect_request rq = request(dir, sizeof(dir), name);
	struct bisect_result *out = calloc(1, sizeof(*out));
	struct al_err err = {0};

	assert_int_equal(bisect_run(&rq, out, &err), -1);
	assert_false(err.bad_input);
	assert_non_null(strstr(err.msg, "the good revision HEAD~2 could not be "
					"measured: the build (false) exited 1; "
					"see "));
	only_bisect(dir, b);
	indexed(dir, id_of(b), "failed", 1);
	free(out);
}

static void git_sha(const char *dir, const char *rev, char *out, size_t len)
{
	char cmd[2 * PATH_MAX];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse '%s'", dir, rev);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, (int)len, p));
	pclose(p);
	out[strcspn(out, "\n")] = 0;
}

/* The good revision's build fails: the lab is never touched, the bisect
 * fails as the lab's failure (exit 4), its step and record kept. */
static void run_good_build_fails(void **state)
{
	struct bisect *b = calloc(1, sizeof(*b));
	char sha[64], want[64];

	(void)state;
	failed_bisect("run-fails", b);
	assert_string_equal(
	    json_string_value(json_object_get(b->root, "status")), "failed");
	assert_true(json_is_real(json_object_get(b->root, "wall_s")));
	assert_int_equal(json_array_size(json_object_get(b->root, "steps")), 1);
	assert_string_equal(step_str(b, 0, "role"), "good");
	assert_string_equal(step_str(b, 0, "outcome"), "skip");
	assert_string_equal(step_str(b, 0, "subject"), "one");
	/* The step's directory: its index and the commit. */
	git_sha(repo, "HEAD~2", sha, sizeof(sha));
	assert_string_equal(step_str(b, 0, "rev"), sha);
	snprintf(want, sizeof(want), "/00-%.12s", sha);
	assert_non_null(strstr(step_str(b, 0, "dir"), want));
	file_in(step_str(b, 0, "dir"), "step.json");
	file_in(step_str(b, 0, "dir"), "build.log");
	file_in(b->dir, "src/.git");
	json_decref(b->root);
	free(b);
}

/* bisect_step with the record's build set to cmd: its verdict; the new
 * step is the record's n-th, its reason must contain why. */
static void step_with(struct bisect *b, const char *cmd, size_t n,
		      const char *why)
{
	const struct bisect_env env = {.root = repo_root(),
				       .variant_dir = kdir};
	struct al_err err = {0};
	int rc;

	json_object_set_new(b->root, "build", json_string(cmd));
	assert_int_equal(bisect_save(b, &err), 0);
	json_decref(b->root);
	rc = bisect_step(b->dir, &env, &err);
	if (rc < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(rc, BISECT_SKIP);
	assert_int_equal(bisect_load(b, b->dir, &err), 0);
	assert_int_equal(json_array_size(json_object_get(b->root, "steps")),
			 n + 1);
	assert_string_equal(step_str(b, n, "role"), "step");
	assert_string_equal(step_str(b, n, "outcome"), "skip");
	if (!strstr(step_str(b, n, "reason"), why))
		fail_msg("reason '%s', not '%s'", step_str(b, n, "reason"),
			 why);
	assert_int_equal(
	    json_integer_value(json_object_get(
		json_array_get(json_object_get(b->root, "steps"), n), "x")),
	    (json_int_t)n);
}

/* Steps as git bisect run calls them, each ending before the lab: a
 * build that fails, one that leaves no variant or two, one whose variant
 * does not load. */
static void steps_skip_without_a_variant(void **state)
{
	struct bisect *b = calloc(1, sizeof(*b));
	char sha[64], src[PATH_MAX + 100];

	(void)state;
	failed_bisect("steps", b);
	snprintf(src, sizeof(src), "%s", b->src);
	git_sha(src, "HEAD", sha, sizeof(sha));
	sh("git -C '%s' checkout -q main 2>/dev/null || "
	   "git -C '%s' checkout -q master",
	   src, src);
	step_with(b, "false", 1, "the build (false) exited 1; see ");
	step_with(b, "true", 2,
		  "the build left 0 .yaml files in $AIRLAB_OUT (");
	step_with(b,
		  "cp broken.yaml $AIRLAB_OUT/a.yaml; cp broken.yaml "
		  "$AIRLAB_OUT/b.yaml",
		  3, "the build left 2 .yaml files");
	step_with(b, "cp broken.yaml $AIRLAB_OUT/", 4,
		  "/broken.yaml does not load");
	/* The steps ran on the clone's HEAD, not on the good revision. */
	assert_string_equal(step_str(b, 0, "rev"), sha);
	assert_string_not_equal(step_str(b, 4, "rev"), sha);
	assert_string_equal(step_str(b, 4, "subject"), "three");
	json_decref(b->root);
	free(b);
}

/* What cannot be a step: no record, a record with an unknown metric
 * (git bisect run gets above 127 and stops); no step directory made. */
static void step_refusals(void **state)
{
	const struct bisect_env env = {.root = repo_root(),
				       .variant_dir = kdir};
	struct bisect *b = calloc(1, sizeof(*b));
	char nowhere[PATH_MAX + 32], cmd[2 * PATH_MAX];
	struct al_err err = {0};
	FILE *p;
	int n = 0;

	(void)state;
	snprintf(nowhere, sizeof(nowhere), "%s/no-bisect", tmp);
	assert_int_equal(bisect_step(nowhere, &env, &err), -1);
	assert_non_null(strstr(err.msg, "/no-bisect/bisect.json"));
	failed_bisect("step-refused", b);
	json_object_set_new(b->root, "metric", json_string("jitter"));
	assert_int_equal(bisect_save(b, &err), 0);
	assert_int_equal(bisect_step(b->dir, &env, &err), -1);
	assert_non_null(
	    strstr(err.msg, "bisect.json: unknown metric 'jitter'"));
	snprintf(cmd, sizeof(cmd), "ls '%s'", b->dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(cmd, sizeof(cmd), p))
		n++;
	pclose(p);
	assert_int_equal(n, 3); /* 00-<sha>, bisect.json, src */
	json_decref(b->root);
	free(b);
}

/* Interrupted while the good revision is measured: the bisect ends, not
 * failed, its record says interrupted. */
static void run_interrupted(void **state)
{
	volatile sig_atomic_t stop = 1;
	char dir[PATH_MAX + 32];
	struct bisect_request rq = request(dir, sizeof(dir), "interrupted");
	struct bisect_result *out = calloc(1, sizeof(*out));
	struct bisect *b = calloc(1, sizeof(*b));
	struct al_err err = {0};

	(void)state;
	rq.env.stop = &stop;
	if (bisect_run(&rq, out, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(out->status, BISECT_INTERRUPTED);
	only_bisect(dir, b);
	assert_string_equal(out->file, b->file);
	assert_string_equal(
	    json_string_value(json_object_get(b->root, "status")),
	    "interrupted");
	assert_int_equal(json_array_size(json_object_get(b->root, "steps")), 1);
	indexed(dir, id_of(b), "interrupted", 1);
	json_decref(b->root);
	free(b);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(decide_verdicts),
	    cmocka_unit_test(pool_and_verdicts_on_runs),
	    cmocka_unit_test(record_round_trip),
	    cmocka_unit_test(spec_refusals),
	    cmocka_unit_test(run_refused_makes_nothing),
	    cmocka_unit_test(run_good_build_fails),
	    cmocka_unit_test(steps_skip_without_a_variant),
	    cmocka_unit_test(step_refusals),
	    cmocka_unit_test(run_interrupted),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
