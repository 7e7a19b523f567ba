/* The bisect strategy (bisect.h). */
#include "bisect.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../results/report.h"
#include "../results/store.h"
#include "../suites/suites.h"
#include "../util/clock.h"
#include "../util/json_file.h"
#include "../util/path.h"
#include "../util/proc.h"
#include "bringup.h"
#include "run.h"

static int git(const char *src, char *out, size_t len, const char *a,
	       const char *b, const char *c, const char *d)
{
	char *argv[] = {"git",	   (char *)a, (char *)b,
			(char *)c, (char *)d, NULL};

	return proc_capture(argv, src, out, len);
}

/* Whether rev names a commit of the repository in dir. */
static int git_commit(const char *dir, const char *rev)
{
	char want[300], sha[128];

	snprintf(want, sizeof(want), "%s^{commit}", rev);
	return git(dir, sha, sizeof(sha), "rev-parse", "-q", "--verify",
		   want) == 0;
}

/* Both ends must be commits of the repository in dir (repo: as the user
 * named it). */
static int check_ends(const char *dir, const char *repo, const char *good,
		      const char *bad, struct al_err *err)
{
	for (int k = 0; k < 2; k++) {
		const char *rev = k ? bad : good;

		if (!git_commit(dir, rev))
			return al_err_input(err, "%s: no commit '%s' (--%s)",
					    repo, rev, k ? "bad" : "good");
	}
	return 0;
}

static int stopped(const struct bisect_env *env)
{
	return env->stop && *env->stop;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* The record's head (results/series_doc.h), pointers into b->root. */
static struct series_doc head_of(const struct bisect *b)
{
	struct series_doc h = {0};

	series_doc_head_get(b->root, &h);
	return h;
}

/* ---- the record ---------------------------------------------------------- */

int bisect_load(struct bisect *b, const char *dir, struct al_err *err)
{
	json_error_t jerr;

	if (dir != b->dir)
		snprintf(b->dir, sizeof(b->dir), "%s", dir);
	snprintf(b->src, sizeof(b->src), "%s/src", dir);
	snprintf(b->file, sizeof(b->file), "%s/bisect.json", dir);
	b->root = json_load_file(b->file, 0, &jerr);
	if (!b->root)
		return al_errf(err, "%s:%d: %s", b->file, jerr.line, jerr.text);
	snprintf(b->results, sizeof(b->results), "%s",
		 json_str_at(b->root, "results", ""));
	return 0;
}

int bisect_save(struct bisect *b, struct al_err *err)
{
	struct al_err e;
	int rc = store_series_write(b->root, b->file, b->results, &e);

	if (rc > 0)
		fprintf(stderr,
			"airlab bisect: %s (%s stays the record; `airlab "
			"reindex` indexes it)\n",
			e.msg, b->file);
	if (rc >= 0)
		return 0;
	if (err)
		*err = e;
	return -1;
}

/* A save whose failure does not end what is under way: said, not
 * returned. */
static void save_or_say(struct bisect *b)
{
	struct al_err err;

	if (bisect_save(b, &err) < 0)
		fprintf(stderr, "airlab bisect: %s\n", err.msg);
}

/* ---- verdicts ------------------------------------------------------------ */

int bisect_pool(const struct series_step *step, const struct cmp_metric *m,
		struct cmp_samples *out)
{
	struct al_err err;

	out->v = NULL;
	out->n = 0;
	for (size_t i = 0; i < step->n_runs; i++) {
		struct cmp_samples s;
		double *v;

		if (cmp_load(step->runs[i], m, &s, &err) < 0) {
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

int bisect_decide(const struct cmp_metric *m, const struct cmp_result *r,
		  double threshold)
{
	if (r->verdict == CMP_NODATA)
		return -1;
	if (r->verdict == CMP_WORSE)
		return BISECT_BAD;
	if (m->lower_is_better ? r->ci_hi < threshold : r->ci_lo > -threshold)
		return BISECT_GOOD;
	return -1;
}

int bisect_verdict(const struct series_step *base,
		   const struct series_step *step, const struct cmp_metric *m,
		   double threshold, struct cmp_result *r)
{
	struct cmp_samples a = {0}, s = {0};
	int verdict = -1;

	if (base)
		bisect_pool(base, m, &a);
	bisect_pool(step, m, &s);
	if (base) {
		cmp_compare(&a, &s, m, threshold, 1, r);
		verdict = bisect_decide(m, r, threshold);
	} else {
		cmp_compare(&s, &s, m, threshold, 1, r);
	}
	cmp_samples_free(&a);
	cmp_samples_free(&s);
	return verdict;
}

/* ---- one revision -------------------------------------------------------- */

/* One revision from its build to its verdict. */
struct step {
	struct bisect *b;
	const struct bisect_env *env;
	const struct cmp_metric *m;
	/* The good revision's step (its runs); NULL: this is a baseline. */
	const struct series_step *base;
	/* This one as the record gets it, filled as it goes: its role, rev,
	 * subject, directory (dir), variant file, runs, the reason it was
	 * skipped, its index (x). */
	struct series_step rec;
	struct cmp_result r;
	int verdict;
};

/* Builds the revision checked out in the clone into stepdir/out: the
 * variant file's path, or the reason it is missing in why. */
static int build(struct step *st)
{
	char out[PATH_MAX + 300], log[PATH_MAX + 300], env[PATH_MAX + 320];
	const char *envs[] = {env, NULL};
	char *argv[] = {"sh", "-c",
			(char *)json_str_at(st->b->root, "build", ""), NULL};
	struct dirent *e;
	DIR *d;
	int rc, found = 0;

	snprintf(out, sizeof(out), "%s/out", st->rec.dir);
	snprintf(log, sizeof(log), "%s/build.log", st->rec.dir);
	snprintf(env, sizeof(env), "AIRLAB_OUT=%s", out);
	if (mkdir(out, 0755) < 0 && errno != EEXIST) {
		snprintf(st->rec.reason, sizeof(st->rec.reason),
			 "cannot create %s: %s", out, strerror(errno));
		return -1;
	}
	rc = proc_run(argv, st->b->src, envs, log);
	if (rc != 0) {
		snprintf(st->rec.reason, sizeof(st->rec.reason),
			 "the build (%s) exited %d; see %s", argv[2], rc, log);
		return -1;
	}
	if (!(d = opendir(out))) {
		snprintf(st->rec.reason, sizeof(st->rec.reason),
			 "cannot read %s: %s", out, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 5 && !strcmp(e->d_name + n - 5, ".yaml")) {
			found++;
			snprintf(st->rec.variant, sizeof(st->rec.variant),
				 "%s/%s", out, e->d_name);
		}
	}
	closedir(d);
	if (found != 1) {
		snprintf(st->rec.reason, sizeof(st->rec.reason),
			 "the build left %d .yaml files in $AIRLAB_OUT (%s); "
			 "it must leave one stack variant",
			 found, out);
		return -1;
	}
	return 0;
}

static struct cell_paths step_cell(const struct step *st)
{
	const struct bisect_env *env = st->env;

	return (struct cell_paths){
	    env->lab ? env->lab : or_empty(head_of(st->b).lab),
	    env->topology ? env->topology
			  : json_str_at(st->b->root, "topology", ""),
	    st->rec.variant, env->variant_dir};
}

/* A revision's cell, on the heap: too big for the stack. */
struct step_cell {
	struct cell c;
	struct cell_state st;
	struct dut d;
};

/* The cell with the revision's variant, checked as every command checks
 * it before touching the lab. */
static int load_cell(struct step *st, struct cell *c, struct al_err *err)
{
	const struct cell_paths p = step_cell(st);
	const struct ap_ops *ap;

	if (cell_load(c, &p, err) < 0)
		return -1;
	if (bringup_check(c, &ap, err) < 0) {
		cell_free(c);
		return -1;
	}
	return 0;
}

/* Flashes the DUT with the variant and boots it. Every revision's
 * variant has the same name: booted afresh, not reused. */
static int boot(struct step *st, struct step_cell *x)
{
	const struct bringup_opts bo = {60, false, st->env->show};
	struct al_err err;
	int rc = 0;

	if (load_cell(st, &x->c, &err) < 0) {
		fprintf(stderr, "airlab: %s\n", err.msg);
		snprintf(st->rec.reason, sizeof(st->rec.reason),
			 "the variant %s does not load", st->rec.variant);
		return -1;
	}
	if (dut_open(&x->d, &x->c.lab, x->c.ap_host->name, &err) < 0 ||
	    bringup_cell(&x->c, &x->d, &bo, &x->st, &err) < 0) {
		fprintf(stderr, "airlab: %s\n", err.msg);
		snprintf(st->rec.reason, sizeof(st->rec.reason),
			 "%s did not come up with %s", x->c.ap_host->name,
			 st->rec.variant);
		rc = -1;
	}
	dut_close(&x->d);
	cell_free(&x->c);
	return rc;
}

/* One suite run; its directory appended to the step's runs. -1 when the lab
 * failed. */
static int run_once(struct step *st)
{
	const struct run_request rq = {
	    .cell = step_cell(st),
	    .root = st->env->root,
	    .suite = or_empty(head_of(st->b).suite),
	    .params = {.length_s = json_number_value(
			   json_object_get(st->b->root, "length_s"))},
	    .out_dir = st->b->results,
	    .wait_s = 60,
	    .show = st->env->show};
	struct run_result r;
	struct al_err err;

	if (run_suite(&rq, &r, &err) < 0)
		fprintf(stderr, "airlab run: %s\n", err.msg);
	if (r.dir[0] && st->env->show)
		fprintf(st->env->show, "run %s: %s, results in %s\n", r.id,
			run_status_name(r.status), r.dir);
	if (r.status == RUN_LAB_FAILED) {
		snprintf(st->rec.reason, sizeof(st->rec.reason),
			 "the lab failed during the run");
		return -1;
	}
	if (r.dir[0] && series_step_add_run(&st->rec, r.dir) < 0) {
		snprintf(st->rec.reason, sizeof(st->rec.reason),
			 "out of memory");
		return -1;
	}
	return 0;
}

/* Boots the built variant and runs the suite runs times. -1 with
 * st->rec.reason when the lab failed. */
static int measure(struct step *st, int runs)
{
	struct step_cell *x = calloc(1, sizeof(*x));
	int rc;

	if (!x) {
		snprintf(st->rec.reason, sizeof(st->rec.reason),
			 "out of memory");
		return -1;
	}
	rc = boot(st, x);
	free(x);
	for (int i = 0; i < runs && rc == 0; i++)
		rc = run_once(st);
	return rc;
}

/* The revision's commit, its step directory and the step's first line. */
static int step_begin(struct step *st, const char *rev, struct al_err *err)
{
	struct bisect *b = st->b;
	int n = (int)series_doc_n_steps(b->root);
	char base[64], id[64];

	st->m = cmp_metric_known(or_empty(head_of(b).metric), err);
	if (!st->m)
		return al_err_prefix(err, "%s", b->file);
	st->rec.x = n;
	git(b->src, st->rec.rev, sizeof(st->rec.rev), "rev-parse", rev, NULL,
	    NULL);
	git(b->src, st->rec.subject, sizeof(st->rec.subject), "log", "-1",
	    "--format=%s", rev);
	snprintf(base, sizeof(base), "%02d-%.12s", n, st->rec.rev);
	if (path_mkdir_unique(b->dir, base, id, sizeof(id), st->rec.dir,
			      sizeof(st->rec.dir)) < 0)
		return al_errf(err, "cannot create %s/%s: %s", b->dir, base,
			       strerror(errno));
	fprintf(stderr, "bisect: step %d (%s): %.12s %s\n", n, st->rec.role,
		st->rec.rev, st->rec.subject);
	return 0;
}

/* Builds and measures; undecided, runs again up to max_runs. */
static void step_judge(struct step *st)
{
	json_t *root = st->b->root;
	double threshold =
	    json_number_value(json_object_get(root, "threshold"));
	int runs = (int)json_integer_value(json_object_get(root, "runs"));
	int max_runs =
	    (int)json_integer_value(json_object_get(root, "max_runs"));

	st->verdict = BISECT_SKIP;
	if (build(st) < 0 || measure(st, runs) < 0)
		return;
	for (;;) {
		st->verdict = bisect_verdict(st->base, &st->rec, st->m,
					     threshold, &st->r);
		if (st->verdict >= 0 || !st->base)
			return;
		if ((int)st->rec.n_runs >= max_runs) {
			snprintf(st->rec.reason, sizeof(st->rec.reason),
				 "undecided after %zu runs (change %+.1f%%, "
				 "95%% CI %+.1f%% to %+.1f%%)",
				 st->rec.n_runs, 100 * st->r.change,
				 100 * st->r.ci_lo, 100 * st->r.ci_hi);
			st->verdict = BISECT_SKIP;
			return;
		}
		fprintf(stderr,
			"bisect: %.12s undecided (CI %+.1f%% to %+.1f%%): "
			"one more run\n",
			st->rec.rev, 100 * st->r.ci_lo, 100 * st->r.ci_hi);
		if (measure(st, 1) < 0) {
			st->verdict = BISECT_SKIP;
			return;
		}
	}
}

static const char *step_outcome(const struct step *st)
{
	if (!st->base && st->verdict == -1)
		return "baseline";
	return st->verdict == BISECT_GOOD  ? "good"
	       : st->verdict == BISECT_BAD ? "bad"
					   : "skip";
}

/* The step's entry in the record (saved) and its step.json; the step's
 * last line. */
static void step_record(struct step *st)
{
	const struct cmp_result *r = &st->r;
	struct series_step *s = &st->rec;
	const char *first = s->n_runs ? strrchr(s->runs[0], '/') : NULL;
	char sj[PATH_MAX + 220];
	struct al_err err;
	json_t *step;

	snprintf(s->label, sizeof(s->label), "%s", s->subject);
	snprintf(s->outcome, sizeof(s->outcome), "%s", step_outcome(st));
	if (s->n_runs) /* the first run's id: its directory's name */
		snprintf(s->run_id, sizeof(s->run_id), "%s",
			 first ? first + 1 : s->runs[0]);
	s->good_median = st->base ? r->a_median : NAN;
	s->median = st->base ? r->b_median : r->a_median;
	s->change = r->change;
	s->ci_lo = r->ci_lo;
	s->ci_hi = r->ci_hi;
	step = series_doc_add_step(st->b->root, s);
	snprintf(sj, sizeof(sj), "%s/step.json", s->dir);
	if (step && json_write_atomic(step, sj, 0, &err) < 0)
		fprintf(stderr, "airlab bisect: %s\n", err.msg);
	save_or_say(st->b);
	fprintf(stderr, "bisect: %.12s: %s", s->rev, s->outcome);
	if (st->base && isfinite(r->change))
		fprintf(stderr, " (%s median %.2f vs good %.2f %s, %+.1f%%)",
			st->m->name, r->b_median, r->a_median, st->m->units,
			100 * r->change);
	fprintf(stderr, "%s%s\n", s->reason[0] ? ": " : "", s->reason);
}

/* One revision (rev, checked out in the clone), start to verdict; its
 * entry in *step_out when given (the caller frees it). base: the good
 * revision's step (NULL: a baseline). Returns the verdict, for a
 * baseline 0 (measured) or BISECT_SKIP; -1 with err when there is no
 * step. */
static int evaluate(struct bisect *b, const struct bisect_env *env,
		    const char *rev, const char *role,
		    const struct series_step *base,
		    struct series_step *step_out, struct al_err *err)
{
	struct step *st = calloc(1, sizeof(*st));
	int rc = -1;

	if (step_out)
		series_step_init(step_out);
	if (!st)
		return al_errf(err, "out of memory for a step");
	*st = (struct step){.b = b,
			    .env = env,
			    .base = base,
			    .r = {.a_median = NAN,
				  .b_median = NAN,
				  .change = NAN,
				  .ci_lo = NAN,
				  .ci_hi = NAN}};
	series_step_init(&st->rec);
	snprintf(st->rec.role, sizeof(st->rec.role), "%s", role);
	if (step_begin(st, rev, err) == 0) {
		step_judge(st);
		step_record(st);
		rc = st->verdict;
		if (!base)
			rc = st->verdict == -1 ? 0 : BISECT_SKIP;
		if (step_out) { /* handed over, arrays and all */
			*step_out = st->rec;
			series_step_init(&st->rec);
		}
	}
	series_step_free(&st->rec);
	free(st);
	return rc;
}

int bisect_step(const char *dir, const struct bisect_env *env,
		struct al_err *err)
{
	struct bisect *b = calloc(1, sizeof(*b));
	struct series_step *good = calloc(1, sizeof(*good));
	int rc = -1;

	if (!b || !good) {
		free(b);
		free(good);
		return al_errf(err, "out of memory for a bisect");
	}
	if (bisect_load(b, dir, err) == 0) {
		bool has_good = series_doc_n_steps(b->root) > 0;

		/* Held against the good revision's step, the record's
		 * first. */
		if (has_good && series_doc_step(b->root, 0, good) < 0)
			al_errf(err, "%s: out of memory", b->file);
		else
			rc = evaluate(b, env, "HEAD", "step",
				      has_good ? good : NULL, NULL, err);
	}
	series_step_free(good);
	free(good);
	json_decref(b->root);
	free(b);
	return rc;
}

/* ---- the whole bisect ---------------------------------------------------- */

/* The runs a step gets, checked; 0 or -1 with err. */
static int check_runs(const struct bisect_request *rq, int *max_runs,
		      struct al_err *err)
{
	if (rq->runs < 1)
		return al_err_input(err, "--runs %d: a step needs a run",
				    rq->runs);
	if (rq->runs > BISECT_MAX_RUNS || rq->max_runs > BISECT_MAX_RUNS)
		return al_err_input(err, "at most %d runs a step",
				    BISECT_MAX_RUNS);
	*max_runs = rq->max_runs > 0 ? rq->max_runs : 2 * rq->runs;
	if (*max_runs < rq->runs)
		return al_err_input(err, "--max-runs %d is below --runs %d",
				    *max_runs, rq->runs);
	return 0;
}

/* The results directory (made when absent), the lab and the topology,
 * absolute: the steps run in the clone. */
static int check_paths(const struct bisect_request *rq, char *res, char *lab,
		       char *topo, struct al_err *err)
{
	const char *l = rq->env.lab, *t = rq->env.topology;

	if ((mkdir(rq->out_dir, 0755) < 0 && errno != EEXIST) ||
	    !realpath(rq->out_dir, res))
		return al_err_input(err, "results %s: %s", rq->out_dir,
				    strerror(errno));
	if (!realpath(l, lab) || !realpath(t, topo))
		return al_err_input(err, "%s: %s", realpath(l, lab) ? t : l,
				    strerror(errno));
	return 0;
}

json_t *bisect_spec(const struct bisect_request *rq, struct al_err *err)
{
	char res[PATH_MAX], lab[PATH_MAX], topo[PATH_MAX], rp[PATH_MAX];
	const struct cmp_metric *m;
	double threshold = rq->threshold;
	int max_runs = 0;
	json_t *spec;

	if (!rq->repo || !rq->good || !rq->bad || !rq->build || !rq->metric) {
		al_err_input(err, "give --repo, --good, --bad, --build and "
				  "--metric");
		return NULL;
	}
	if (!(m = cmp_metric_known(rq->metric, err)))
		return NULL;
	if (isnan(threshold))
		threshold = m->threshold;
	if (!(threshold >= 0 && threshold <= 10)) {
		al_err_input(err,
			     "--threshold %g is not a fraction from 0 to 10",
			     threshold);
		return NULL;
	}
	if (check_runs(rq, &max_runs, err) < 0 ||
	    !suite_find(rq->suite ? rq->suite : "", err)) {
		err->bad_input = true;
		return NULL;
	}
	if (!realpath(rq->repo, rp)) {
		al_err_input(err, "--repo %s: %s", rq->repo, strerror(errno));
		return NULL;
	}
	if (check_ends(rp, rq->repo, rq->good, rq->bad, err) < 0 ||
	    check_paths(rq, res, lab, topo, err) < 0)
		return NULL;
	spec = series_doc_head_json(&(struct series_doc){.kind = "bisect",
							 .suite = rq->suite,
							 .lab = lab,
							 .metric = m->name});
	/* The bisect's own keys: what it was asked for. */
	json_object_update_new(
	    spec,
	    json_pack("{s:s, s:s, s:s, s:s, s:f, s:i, s:i, s:o, s:s, s:s}",
		      "repo", rp, "good", rq->good, "bad", rq->bad, "build",
		      rq->build, "threshold", threshold, "runs", rq->runs,
		      "max_runs", max_runs, "length_s", json_real(rq->length_s),
		      "topology", topo, "results", res));
	return spec;
}

/* The clone, with both revisions checked to be commits in it. */
static int clone_repo(struct bisect *b, struct al_err *err)
{
	const char *repo = json_str_at(b->root, "repo", "");
	char *argv[] = {"git",	      "clone", "-q", "--no-hardlinks",
			(char *)repo, b->src,  NULL};

	if (proc_run(argv, NULL, NULL, NULL) != 0)
		return al_errf(err, "git clone %s failed", repo);
	if (check_ends(b->src, repo, json_str_at(b->root, "good", ""),
		       json_str_at(b->root, "bad", ""), err) < 0) {
		err->bad_input = false;
		return -1;
	}
	return 0;
}

/* The record made and saved (status running), the repository cloned. */
static int bisect_begin(struct bisect *b, const struct bisect_request *rq,
			struct bisect_result *out, struct al_err *err)
{
	char parent[PATH_MAX + 20], stamp[32];
	json_t *spec = bisect_spec(rq, err);
	struct series_doc h;

	if (!spec)
		return -1;
	snprintf(b->results, sizeof(b->results), "%s",
		 json_str_at(spec, "results", ""));
	snprintf(parent, sizeof(parent), "%s/bisect", b->results);
	path_utc_stamp(stamp, sizeof(stamp));
	if ((mkdir(b->results, 0755) < 0 && errno != EEXIST) ||
	    path_mkdir_unique(parent, stamp, out->id, sizeof(out->id), b->dir,
			      sizeof(b->dir)) < 0) {
		al_errf(err, "cannot create a directory in %s: %s", parent,
			strerror(errno));
		json_decref(spec);
		return -1;
	}
	snprintf(b->src, sizeof(b->src), "%s/src", b->dir);
	snprintf(b->file, sizeof(b->file), "%s/bisect.json", b->dir);
	series_doc_head_set(spec, &(struct series_doc){.id = out->id,
						       .status = "running",
						       .start = stamp});
	b->root = spec;
	if (bisect_save(b, err) < 0 || clone_repo(b, err) < 0) {
		series_doc_head_set(b->root,
				    &(struct series_doc){.status = "failed"});
		save_or_say(b);
		json_decref(b->root);
		b->root = NULL;
		return -1;
	}
	h = head_of(b);
	fprintf(stderr, "bisect %s: %s..%s of %s on %s (%s); record %s\n",
		out->id, json_str_at(spec, "good", ""),
		json_str_at(spec, "bad", ""), json_str_at(spec, "repo", ""),
		or_empty(h.metric), or_empty(h.suite), b->file);
	return 0;
}

/* evaluate() on the end of the record named by key (good, bad) checked
 * out; an error with no step is said. */
static int evaluate_end(struct bisect *b, const struct bisect_env *env,
			const char *key, const struct series_step *base,
			struct series_step *step)
{
	char out[4096];
	struct al_err err;
	int rc;

	git(b->src, out, sizeof(out), "checkout", "-q",
	    json_str_at(b->root, key, ""), NULL);
	rc = evaluate(b, env, "HEAD", key, base, step, &err);
	if (rc < 0)
		fprintf(stderr, "airlab bisect: %s\n", err.msg);
	return rc;
}

/* The two ends first: good is what every step is held against, and bad
 * must be worse than it or there is nothing to find. 1 when the bisect
 * ends here with out->status; -1 with err (the good revision could not
 * be measured). */
static int bisect_ends(struct bisect *b, const struct bisect_request *rq,
		       struct series_step *gstep, struct series_step *bstep,
		       struct bisect_result *out, struct al_err *err)
{
	int rc = evaluate_end(b, &rq->env, "good", NULL, gstep);
	const char *why;

	if (stopped(&rq->env)) {
		out->status = BISECT_INTERRUPTED;
		return 1;
	}
	if (rc != 0)
		return al_errf(err,
			       "the good revision %s could not be measured: %s",
			       json_str_at(b->root, "good", ""), gstep->reason);
	rc = evaluate_end(b, &rq->env, "bad", gstep, bstep);
	if (stopped(&rq->env)) {
		out->status = BISECT_INTERRUPTED;
		return 1;
	}
	if (rc != BISECT_BAD) {
		why = bstep->reason;
		/* The reason, cut to leave room for the rest in why. */
		snprintf(out->why, sizeof(out->why),
			 "the bad revision %s is not worse than the good one "
			 "on %s (%s%s%.600s): nothing to bisect",
			 json_str_at(b->root, "bad", ""),
			 or_empty(head_of(b).metric), bstep->outcome,
			 why[0] ? ": " : "", why);
		out->status = BISECT_NOT_WORSE;
		return 1;
	}
	return 0;
}

/* The last step recorded for the commit sha, into s; false when none
 * is (s left empty). */
static bool step_of(const json_t *root, const char *sha, struct series_step *s)
{
	for (size_t i = series_doc_n_steps(root); i-- > 0;) {
		if (series_doc_step(root, i, s) == 0 && !strcmp(s->rev, sha))
			return true;
		series_step_free(s);
	}
	return false;
}

/* step's figures (NULL: no step measured the revision), 0 where not
 * measured. */
static void side(const struct series_step *step, struct bisect_side *s)
{
	s->found = step != NULL;
	snprintf(s->outcome, sizeof(s->outcome), "%s",
		 step ? step->outcome : "");
	s->median = step && isfinite(step->median) ? step->median : 0;
	s->change = step && isfinite(step->change) ? step->change : 0;
}

/* A report of the first bad commit's run and its parent's. */
static void report(struct bisect *b, const struct series_step *good,
		   const struct series_step *bad, struct bisect_result *out)
{
	const char *dirs[2];
	char rdir[PATH_MAX + 100];
	struct al_err err;

	if (!good || !bad || !good->n_runs || !bad->n_runs)
		return;
	dirs[0] = good->runs[0];
	dirs[1] = bad->runs[0];
	snprintf(rdir, sizeof(rdir), "%s/report", b->dir);
	if (report_write(dirs, 2, rdir, &err) < 0)
		snprintf(out->report_err, sizeof(out->report_err), "%s",
			 err.msg);
	else
		snprintf(out->report, sizeof(out->report), "%s", rdir);
	series_doc_head_set(b->root, &(struct series_doc){.report = rdir});
	save_or_say(b);
}

/* What git bisect found (its refs/bisect/bad), in the record and out. */
static void finish(struct bisect *b, int run_rc, struct bisect_result *out)
{
	/* The steps of the parent and of the first bad commit. */
	struct series_step *s = calloc(2, sizeof(*s));
	size_t n = series_doc_n_steps(b->root);
	const char *metric = head_of(b).metric;
	bool good, bad;
	char want[80];

	git(b->src, out->first_bad, sizeof(out->first_bad), "rev-parse", "-q",
	    "--verify", "refs/bisect/bad");
	snprintf(want, sizeof(want), "%s^", out->first_bad);
	git(b->src, out->parent, sizeof(out->parent), "rev-parse", "-q",
	    "--verify", want);
	good = s && step_of(b->root, out->parent, &s[0]);
	bad = s && step_of(b->root, out->first_bad, &s[1]);
	snprintf(out->metric, sizeof(out->metric), "%s", or_empty(metric));
	series_doc_head_set(
	    b->root, &(struct series_doc){
			 .first_bad = out->first_bad,
			 .parent = out->parent,
			 .status = run_rc == 0 ? "complete" : "inconclusive"});
	json_object_set_new(b->root, "bisect_steps",
			    json_integer((json_int_t)n - 2));
	out->status = run_rc == 0 ? BISECT_COMPLETE : BISECT_INCONCLUSIVE;
	snprintf(out->subject, sizeof(out->subject), "%s",
		 bad ? s[1].subject : "");
	side(good ? &s[0] : NULL, &out->before);
	side(bad ? &s[1] : NULL, &out->at);
	out->steps = n;
	save_or_say(b);
	report(b, good ? &s[0] : NULL, bad ? &s[1] : NULL, out);
	for (int k = 0; s && k < 2; k++)
		series_step_free(&s[k]);
	free(s);
}

/* git bisect run over the rest, each step a process of its own
 * (bisect_step) that rewrites the record; read back after. */
static int bisect_drive(struct bisect *b, const struct bisect_request *rq,
			const struct series_step *gstep,
			const struct series_step *bstep,
			struct bisect_result *out, struct al_err *err)
{
	char good_sha[64], bad_sha[64], self[PATH_MAX], log[PATH_MAX + 100];
	char *start[] = {"git", "bisect", "start", bad_sha, good_sha, NULL};
	char *run[] = {"git",	      "bisect", "run", self,
		       "bisect-step", b->dir,	NULL};
	struct al_err e2;
	int rc;

	if (rq->exe) {
		snprintf(self, sizeof(self), "%s", rq->exe);
	} else if (path_self_exe(self, sizeof(self)) < 0) {
		self[0] = 0;
	}
	snprintf(log, sizeof(log), "%s/git-bisect.log", b->dir);
	snprintf(good_sha, sizeof(good_sha), "%s", gstep->rev);
	snprintf(bad_sha, sizeof(bad_sha), "%s", bstep->rev);
	/* The steps rewrite bisect.json: ours goes until they are done. */
	json_decref(b->root);
	b->root = NULL;
	if (proc_run(start, b->src, NULL, log) != 0) {
		al_errf(err, "git bisect start failed; see %s", log);
		if (bisect_load(b, b->dir, &e2) < 0)
			fprintf(stderr, "airlab bisect: %s\n", e2.msg);
		return -1;
	}
	/* Steps print their progress on our stderr. */
	rc = stopped(&rq->env) ? 1 : proc_run(run, b->src, NULL, NULL);
	if (bisect_load(b, b->dir, err) < 0)
		return -1;
	if (stopped(&rq->env)) {
		out->status = BISECT_INTERRUPTED;
		fprintf(stderr,
			"bisect %s: interrupted; the steps so far are in %s\n",
			out->id, b->file);
		return 0;
	}
	finish(b, rc, out);
	return 0;
}

/* The record's last state: its status when nothing set one (failed
 * unless ok), the wall time. */
static void bisect_close(struct bisect *b, int ok, int64_t t0_ms,
			 struct bisect_result *out)
{
	const char *status;

	out->wall_s = (double)(mono_ms() - t0_ms) / 1000;
	if (!b->root)
		return;
	if (out->status == BISECT_INTERRUPTED)
		series_doc_head_set(
		    b->root, &(struct series_doc){.status = "interrupted"});
	status = head_of(b).status;
	if (!status || !strcmp(status, "running"))
		series_doc_head_set(
		    b->root,
		    &(struct series_doc){.status = ok ? "complete" : "failed"});
	json_object_set_new(b->root, "wall_s", json_real(out->wall_s));
	save_or_say(b);
}

int bisect_run(const struct bisect_request *rq, struct bisect_result *out,
	       struct al_err *err)
{
	struct bisect *b = calloc(1, sizeof(*b));
	/* The good end's step and the bad end's. */
	struct series_step *ends = calloc(2, sizeof(*ends));
	int64_t t0 = mono_ms();
	int rc;

	memset(out, 0, sizeof(*out));
	if (!b || !ends) {
		free(b);
		free(ends);
		return al_errf(err, "out of memory for a bisect");
	}
	rc = bisect_begin(b, rq, out, err);
	if (rc == 0) {
		snprintf(out->dir, sizeof(out->dir), "%s", b->dir);
		snprintf(out->file, sizeof(out->file), "%s", b->file);
		rc = bisect_ends(b, rq, &ends[0], &ends[1], out, err);
	}
	if (rc == 0)
		rc = bisect_drive(b, rq, &ends[0], &ends[1], out, err);
	else if (rc > 0)
		rc = 0;
	bisect_close(b, rc == 0 && out->status == BISECT_COMPLETE, t0, out);
	series_step_free(&ends[0]);
	series_step_free(&ends[1]);
	free(ends);
	json_decref(b->root);
	free(b);
	return rc;
}
