/* The nightly strategy (nightly.h). */
#include "nightly.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../lab/variant.h"
#include "../results/report.h"
#include "../results/store.h"
#include "../suites/suites.h"
#include "../util/clock.h"
#include "../util/json_file.h"
#include "../util/lock.h"
#include "../util/markup.h"
#include "../util/path.h"
#include "bringup.h"
#include "run.h"

#define LOCK_NAME "night"

struct night *night_new(void)
{
	return calloc(1, sizeof(struct night));
}

static void night_unlock(struct night *nt)
{
	if (nt->locked)
		lock_give(nt->dir, LOCK_NAME);
	nt->locked = false;
}

void night_free(struct night *nt)
{
	if (!nt)
		return;
	night_unlock(nt);
	free(nt);
}

const char *night_run_status(const struct night_run *r)
{
	return r->lab_failed			    ? "lab-failed"
	       : r->exit_code == NIGHT_CODE_OK	    ? "complete"
	       : r->exit_code == NIGHT_CODE_PARTIAL ? "partial"
						    : "failed";
}

/* ---- progress.json ---- */

int night_progress_write(const struct night *nt, const char *status,
			 struct al_err *err)
{
	json_t *root, *arr = json_array();
	char path[4700];
	int rc;

	for (int i = 0; i < nt->n; i++) {
		const struct night_run *r = &nt->runs[i];

		json_array_append_new(
		    arr, json_pack("{s:s, s:s, s:s, s:s, s:i, s:b, s:f}",
				   "suite", r->suite, "variant", r->variant,
				   "id", r->id, "dir", r->dir, "exit_code",
				   r->exit_code, "lab_failed", r->lab_failed,
				   "seconds", r->seconds));
	}
	root =
	    json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "plan_file",
		      nt->p.path, "lab", nt->lab, "topology", nt->topology,
		      "variant_dir", nt->variant_dir, "results", nt->results,
		      "stamp", nt->stamp, "status", status, "runs", arr);
	snprintf(path, sizeof(path), "%s/progress.json", nt->dir);
	rc = json_write_atomic(root, path, 1, err);
	json_decref(root);
	return rc;
}

static void copy_str(char *dst, size_t len, json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	snprintf(dst, len, "%s", v ? v : "");
}

/* The runs progress.json has stored, up to the first that is to be made
 * again: a lab failure is tried again (the lab may be back). */
static void progress_runs(struct night *nt, json_t *runs)
{
	size_t i;
	json_t *r;

	json_array_foreach(runs, i, r)
	{
		struct night_run *nr = &nt->runs[nt->n];

		if (nt->n >= NIGHT_MAX_RUNS)
			break;
		copy_str(nr->suite, sizeof(nr->suite), r, "suite");
		copy_str(nr->variant, sizeof(nr->variant), r, "variant");
		copy_str(nr->id, sizeof(nr->id), r, "id");
		copy_str(nr->dir, sizeof(nr->dir), r, "dir");
		nr->exit_code =
		    (int)json_integer_value(json_object_get(r, "exit_code"));
		nr->lab_failed = json_is_true(json_object_get(r, "lab_failed"));
		nr->seconds = json_number_value(json_object_get(r, "seconds"));
		if (nr->lab_failed || !nr->id[0])
			break;
		nt->n++;
	}
}

/* The night date of nt->results: its progress, the cell it ran on, the
 * runs it stored. Bad input when there is no such night or it has
 * ended. */
static int progress_read(struct night *nt, const char *date, char *plan_file,
			 size_t plen, struct al_err *err)
{
	char path[4700];
	json_error_t jerr;
	json_t *root;
	const char *st;

	snprintf(nt->dir, sizeof(nt->dir), "%s/nightly/%s", nt->results, date);
	snprintf(path, sizeof(path), "%s/progress.json", nt->dir);
	if (!(root = json_load_file(path, 0, &jerr)))
		return al_err_input(err,
				    "--resume %s: %s (the nights are in "
				    "%s/nightly)",
				    date, jerr.text, nt->results);
	st = json_string_value(json_object_get(root, "status"));
	if (st && !strcmp(st, "done")) {
		al_err_input(err,
			     "--resume %s: the night has ended "
			     "(%s/summary.json)",
			     date, nt->dir);
		json_decref(root);
		return -1;
	}
	copy_str(plan_file, plen, root, "plan_file");
	copy_str(nt->lab, sizeof(nt->lab), root, "lab");
	copy_str(nt->topology, sizeof(nt->topology), root, "topology");
	copy_str(nt->variant_dir, sizeof(nt->variant_dir), root, "variant_dir");
	copy_str(nt->stamp, sizeof(nt->stamp), root, "stamp");
	progress_runs(nt, json_object_get(root, "runs"));
	json_decref(root);
	return 0;
}

/* ---- the start ---- */

static int refuse(struct al_err *err)
{
	err->bad_input = true;
	return -1;
}

/* A variant of the plan: its file, then the cell with it (bad input). */
static int variant_check(struct night *nt, int v, struct cell *c,
			 struct variant *var, struct al_err *err)
{
	const struct cell_paths paths = {nt->lab, nt->topology,
					 nt->p.variants[v], nt->variant_dir};
	const struct ap_ops *ap;
	int rc;

	if (variant_load(var, nt->variant_dir, nt->p.variants[v], err) < 0) {
		/* A name with no file: one location, the plan's. A file
		 * that does not parse keeps its own. */
		const char *unknown = strstr(err->msg, ": unknown variant");
		char msg[AL_ERR_MAX];

		snprintf(msg, sizeof(msg), "%s",
			 unknown ? unknown + 2 : err->msg);
		return al_err_input(err, "%s:%d: %s", nt->p.path,
				    nt->p.variant_line[v], msg);
	}
	if (cell_load(c, &paths, err) < 0) {
		nt->failed_at = NIGHT_AT_CELL;
		return refuse(err);
	}
	/* The AP's driver, its settings and what the cell asks of it. */
	rc = bringup_check(c, &ap, err);
	cell_free(c);
	if (rc < 0) {
		nt->failed_at = NIGHT_AT_CELL;
		return refuse(err);
	}
	return 0;
}

/* The plan loaded and every variant of it checked against the cell
 * before the first run. */
static int plan_check(struct night *nt, const char *plan_file,
		      struct al_err *err)
{
	struct cell *c;
	struct variant *var;
	int rc = 0;

	if (plan_load(&nt->p, plan_file, err) < 0)
		return refuse(err);
	if (!nt->resumed && nt->p.lab[0])
		snprintf(nt->lab, sizeof(nt->lab), "%s", nt->p.lab);
	if (!nt->resumed && nt->p.topology[0])
		snprintf(nt->topology, sizeof(nt->topology), "%s",
			 nt->p.topology);
	nt->total = nt->p.nvariants * nt->p.nsuites * nt->p.repeat;
	if (nt->total > NIGHT_MAX_RUNS)
		return al_err_input(err, "%s: %d runs, at most %d", nt->p.path,
				    nt->total, NIGHT_MAX_RUNS);
	c = malloc(sizeof(*c));
	var = malloc(sizeof(*var));
	if (!c || !var)
		rc = al_errf(err, "out of memory");
	for (int v = 0; rc == 0 && v < nt->p.nvariants; v++)
		rc = variant_check(nt, v, c, var, err);
	free(c);
	free(var);
	return rc;
}

/* results/nightly/YYYY-MM-DD, or -2, -3... when the night already ran. */
static int night_dir(const char *results, char *out, size_t len)
{
	char base[4400], date[16];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	snprintf(base, sizeof(base), "%s/nightly", results);
	if ((mkdir(results, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(base, 0755) < 0 && errno != EEXIST))
		return -1;
	for (int k = 1; k < 100; k++) {
		if (k == 1)
			snprintf(out, len, "%s/%s", base, date);
		else
			snprintf(out, len, "%s/%s-%d", base, date, k);
		if (mkdir(out, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* What the request asks for, before anything is read. */
static int request_check(struct night *nt, const struct night_request *rq,
			 struct al_err *err)
{
	nt->failed_at = NIGHT_AT_REQUEST;
	if (!rq->plan_file == !rq->resume)
		return al_err_input(err, "%s",
				    rq->resume ? "--resume DATE takes no plan "
						 "(the night names its own)"
					       : "which plan?");
	if (rq->resume && strchr(rq->resume, '/'))
		return al_err_input(err, "--resume takes a night's name, e.g. "
					 "2026-12-07");
	snprintf(nt->lab, sizeof(nt->lab), "%s", rq->cell.lab);
	snprintf(nt->topology, sizeof(nt->topology), "%s", rq->cell.topology);
	snprintf(nt->variant_dir, sizeof(nt->variant_dir), "%s",
		 rq->cell.variant_dir);
	snprintf(nt->root, sizeof(nt->root), "%s", rq->root);
	snprintf(nt->results, sizeof(nt->results), "%s", rq->results);
	nt->wait_s = rq->wait_s > 0 ? rq->wait_s : 120;
	nt->show = rq->show;
	nt->resumed = rq->resume != NULL;
	nt->failed_at = NIGHT_AT_PLAN;
	return 0;
}

int night_start(struct night *nt, const struct night_request *rq,
		struct al_err *err)
{
	char plan_file[4096];

	if (request_check(nt, rq, err) < 0)
		return -1;
	snprintf(plan_file, sizeof(plan_file), "%s",
		 rq->resume ? "" : rq->plan_file);
	if ((rq->resume && progress_read(nt, rq->resume, plan_file,
					 sizeof(plan_file), err) < 0) ||
	    plan_check(nt, plan_file, err) < 0)
		return -1;
	if (!rq->resume) {
		if (night_dir(nt->results, nt->dir, sizeof(nt->dir)) < 0)
			return al_errf(err,
				       "cannot create a night directory under "
				       "%s/nightly",
				       nt->results);
		path_utc_stamp(nt->stamp, sizeof(nt->stamp));
	}
	nt->failed_at = NIGHT_AT_LOCK;
	if (lock_take(nt->dir, LOCK_NAME, nt->dir, err) < 0)
		return -1;
	nt->locked = true;
	nt->failed_at = NIGHT_AT_PROGRESS;
	if (night_progress_write(nt, "running", err) < 0) {
		night_unlock(nt);
		return -1;
	}
	nt->done_before = nt->n;
	fprintf(stderr, "nightly: plan %s, %d runs%s, results in %s\n",
		nt->p.name, nt->total, rq->resume ? " (resumed)" : "", nt->dir);
	if (rq->resume && nt->n)
		fprintf(stderr,
			"nightly: %d of %d runs stored before; "
			"going on from run %d\n",
			nt->n, nt->total, nt->n + 1);
	return 0;
}

/* ---- the runs ---- */

/* What `airlab run` would exit with. */
static int run_code(int rc, const struct run_result *r,
		    const struct al_err *err)
{
	if (rc < 0)
		return err->bad_input ? NIGHT_CODE_REFUSED : NIGHT_CODE_FAILED;
	return r->status == RUN_PARTIAL ? NIGHT_CODE_PARTIAL : NIGHT_CODE_OK;
}

/* Run number idx of the night (variants, then suites, then repeats): its
 * progress line before, its outcome in nt->runs[nt->n] after. */
static void run_one(struct night *nt, int idx, struct run_result *res,
		    double t_start)
{
	const struct plan *p = &nt->p;
	const char *variant = p->variants[idx / (p->nsuites * p->repeat)];
	const struct plan_suite *ps = &p->suites[idx / p->repeat % p->nsuites];
	struct run_request rq = {
	    .cell = {nt->lab, nt->topology, variant, nt->variant_dir},
	    .root = nt->root,
	    .suite = ps->name,
	    .params = {.length_s = ps->length_s, .streams = ps->streams},
	    .out_dir = nt->results,
	    .wait_s = nt->wait_s,
	    .show = nt->show};
	struct night_run *nr = &nt->runs[nt->n];
	double el = mono_s() - t_start;
	int ran = nt->n - nt->done_before, rc;
	struct al_err err;

	fprintf(stderr, "nightly: [%d/%d] %s on %s (run %d of %d)", idx + 1,
		nt->total, ps->name, variant, idx % p->repeat + 1, p->repeat);
	if (ran > 0)
		fprintf(stderr, ", about %.0f min left",
			el / ran * (nt->total - nt->n) / 60);
	fputc('\n', stderr);
	memset(nr, 0, sizeof(*nr));
	memcpy(nr->variant, variant, strnlen(variant, sizeof(nr->variant) - 1));
	memcpy(nr->suite, ps->name, strnlen(ps->name, sizeof(nr->suite) - 1));
	rc = run_suite(&rq, res, &err);
	if (rc < 0)
		fprintf(stderr, "airlab run: %s\n", err.msg);
	if (res->dir[0] && nt->show)
		fprintf(nt->show, "run %s: %s, results in %s\n", res->id,
			run_status_name(res->status), res->dir);
	nr->seconds = mono_s() - t_start - el;
	nr->exit_code = run_code(rc, res, &err);
	nr->lab_failed = res->status == RUN_LAB_FAILED;
	snprintf(nr->id, sizeof(nr->id), "%s", res->id);
	snprintf(nr->dir, sizeof(nr->dir), "%s", res->dir);
	nt->n++;
}

/* Whether the run just made stops the night: the lab failed, or
 * stations are missing (a night without them measures another cell). */
static void run_lab_check(struct night *nt, const struct run_result *res)
{
	const struct night_run *nr = &nt->runs[nt->n - 1];

	if (nr->lab_failed) {
		nt->lab_failed = 1;
		snprintf(nt->why, sizeof(nt->why),
			 "the cell did not come up for %s on %s: %s", nr->suite,
			 nr->variant,
			 res->failure[0] ? res->failure : "no reason recorded");
	} else if (res->associated < res->stations) {
		nt->lab_failed = 1;
		snprintf(nt->why, sizeof(nt->why),
			 "%d of %d stations did not associate for %s on %s",
			 res->stations - res->associated, res->stations,
			 nr->suite, nr->variant);
	}
}

void night_run_all(struct night *nt)
{
	double t_start = mono_s();
	struct run_result *res = malloc(sizeof(*res));
	struct al_err err;

	if (!res) {
		nt->lab_failed = 1;
		snprintf(nt->why, sizeof(nt->why), "out of memory");
		return;
	}
	for (int idx = nt->n; idx < nt->total && !nt->lab_failed; idx++) {
		run_one(nt, idx, res, t_start);
		run_lab_check(nt, res);
		if (night_progress_write(nt, "running", &err) < 0)
			fprintf(stderr, "nightly: %s\n", err.msg);
	}
	free(res);
}

/* ---- the end ---- */

/* One run against its baseline, on latency and goodput. */
static void compare_run(const struct night *nt, struct night_run *nr)
{
	size_t nm;
	const struct cmp_metric *ms = cmp_metrics(&nm);
	char dir_a[4600];
	struct al_err err;

	snprintf(dir_a, sizeof(dir_a), "%s/%s", nt->results, nr->base);
	for (size_t k = 0; k < nm && nr->nr < CMP_MAX_METRICS; k++) {
		if (strcmp(ms[k].name, "latency") &&
		    strcmp(ms[k].name, "goodput"))
			continue;
		if (cmp_run_dirs(
			dir_a, nr->dir, &ms[k],
			plan_threshold(&nt->p, ms[k].name, ms[k].threshold),
			&nr->r[nr->nr], &err) < 0)
			continue;
		nr->worse |= nr->r[nr->nr].verdict == CMP_WORSE;
		nr->metric[nr->nr] = ms[k].name;
		nr->nr++;
	}
}

/* Each run against the newest complete run of its suite and variant
 * from before tonight. */
void night_compare(struct night *nt)
{
	struct store *s;
	struct al_err err;

	if (store_open(&s, nt->results, &err) < 0) {
		fprintf(stderr, "nightly: %s: no comparisons\n", err.msg);
		return;
	}
	for (int i = 0; i < nt->n; i++) {
		struct night_run *nr = &nt->runs[i];

		nr->base[0] = 0;
		nr->nr = nr->worse = 0;
		if (!nr->id[0] || nr->lab_failed ||
		    store_last_good(s, nr->id, nr->base, sizeof(nr->base),
				    &err) != 0)
			continue;
		/* A run of tonight is no baseline for tonight (ids begin
		 * with their UTC start). */
		if (strcmp(nr->base, nt->stamp) >= 0) {
			nr->base[0] = 0;
			continue;
		}
		compare_run(nt, nr);
	}
	store_close(s);
}

static json_t *run_json(const struct night_run *r)
{
	json_t *m = json_array();

	for (int k = 0; k < r->nr; k++)
		json_array_append_new(
		    m, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:s}",
				 "metric", r->metric[k], "a_median",
				 json_num(r->r[k].a_median), "b_median",
				 json_num(r->r[k].b_median), "change",
				 json_num(r->r[k].change), "ci_lo",
				 json_num(r->r[k].ci_lo), "ci_hi",
				 json_num(r->r[k].ci_hi), "verdict",
				 cmp_verdict_name(r->r[k].verdict)));
	return json_pack("{s:s, s:s, s:s, s:s, s:s?, s:b, s:o}", "suite",
			 r->suite, "variant", r->variant, "id", r->id, "status",
			 night_run_status(r), "baseline",
			 r->base[0] ? r->base : NULL, "regressed", r->worse,
			 "comparisons", m);
}

int night_write_summary(const struct night *nt, const char *report,
			struct al_err *err)
{
	json_t *root = json_object(), *arr = json_array();
	char path[4700];
	int regressions = 0, rc;

	for (int i = 0; i < nt->n; i++) {
		regressions += nt->runs[i].worse;
		json_array_append_new(arr, run_json(&nt->runs[i]));
	}
	json_object_set_new(root, "plan", json_string(nt->p.name));
	json_object_set_new(root, "plan_file", json_string(nt->p.path));
	json_object_set_new(root, "status",
			    json_string(nt->lab_failed ? "lab-failed"
					: regressions  ? "regressed"
						       : "ok"));
	json_object_set_new(root, "reason", json_string(nt->why));
	json_object_set_new(root, "regressions", json_integer(regressions));
	json_object_set_new(root, "report", json_string(report));
	json_object_set_new(root, "runs", arr);
	snprintf(path, sizeof(path), "%s/summary.json", nt->dir);
	rc = json_write_atomic(root, path, 0, err);
	json_decref(root);
	return rc;
}

static void junit_case(FILE *f, const struct night_run *r)
{
	fputs("  <testcase classname=\"", f);
	markup_text(f, r->suite);
	fputc('.', f);
	markup_text(f, r->variant);
	fputs("\" name=\"", f);
	markup_text(f, r->id[0] ? r->id : "not run");
	fprintf(f, "\" time=\"%.1f\">", r->seconds);
	if (r->exit_code != 0) {
		fprintf(f, "<failure message=\"run %s\"/>",
			night_run_status(r));
	} else if (r->worse) {
		fputs("<failure message=\"worse than ", f);
		markup_text(f, r->base);
		fputs(":", f);
		for (int k = 0; k < r->nr; k++)
			if (r->r[k].verdict == CMP_WORSE)
				fprintf(f, " %s %+.1f%%", r->metric[k],
					100 * r->r[k].change);
		fputs("\"/>", f);
	}
	fputs("</testcase>\n", f);
}

int night_write_junit(const struct night *nt, struct al_err *err)
{
	char path[4700], tmp[4800];
	int failures = 0;
	FILE *f;

	for (int i = 0; i < nt->n; i++)
		failures += nt->runs[i].worse || nt->runs[i].exit_code != 0;
	snprintf(path, sizeof(path), "%s/junit.xml", nt->dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "w")))
		return al_errf(err, "%s: %s", tmp, strerror(errno));
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuite name=\"airlab-nightly\" tests=\"%d\" "
		"failures=\"%d\" errors=\"%d\">\n",
		nt->n, failures, nt->lab_failed);
	if (nt->lab_failed) {
		fputs("  <testcase classname=\"lab\" name=\"bring-up\">"
		      "<error message=\"",
		      f);
		markup_text(f, nt->why);
		fputs("\"/></testcase>\n", f);
	}
	for (int i = 0; i < nt->n; i++)
		junit_case(f, &nt->runs[i]);
	fputs("</testsuite>\n", f);
	if (fclose(f) != 0 || rename(tmp, path) < 0)
		return al_errf(err, "%s: %s", path, strerror(errno));
	return 0;
}

/* The runs' headline figures from the store (a run that never got going
 * has none). */
static void night_figures(struct night *nt)
{
	struct store *db = NULL;
	struct al_err err;

	if (store_open(&db, nt->results, &err) < 0)
		fprintf(stderr, "nightly: %s\n", err.msg);
	for (int i = 0; i < nt->n; i++) {
		struct night_run *r = &nt->runs[i];

		r->lat_ms = r->p99_ms = r->goodput_mbps = NAN;
		if (!db || !r->id[0])
			continue;
		r->lat_ms = store_metric(db, r->id, "latency_median_ms");
		r->p99_ms = store_metric(db, r->id, "latency_p99_ms");
		r->goodput_mbps = store_metric(db, r->id, "up_mbps") +
				  store_metric(db, r->id, "down_mbps");
	}
	store_close(db);
}

enum night_status night_status(const struct night *nt)
{
	bool regressed = false, partial = false, failed = false;

	for (int i = 0; i < nt->n; i++) {
		int code = nt->runs[i].exit_code;

		regressed |= nt->runs[i].worse != 0;
		partial |= code == NIGHT_CODE_PARTIAL;
		failed |= code != NIGHT_CODE_OK && code != NIGHT_CODE_PARTIAL;
	}
	return nt->lab_failed ? NIGHT_LAB_FAILED
	       : regressed    ? NIGHT_REGRESSED
	       : failed	      ? NIGHT_FAILED
	       : partial      ? NIGHT_PARTIAL
			      : NIGHT_OK;
}

enum night_status night_finish(struct night *nt)
{
	char report[4600], page[4700];
	struct al_err err;

	night_compare(nt);
	snprintf(report, sizeof(report), "%s/report", nt->dir);
	/* summary.json first: the report reads the night from it. */
	snprintf(page, sizeof(page), "%s/index.html", report);
	if (night_write_summary(nt, page, &err) < 0)
		fprintf(stderr, "nightly: %s\n", err.msg);
	if (nt->n && report_nightly(nt->results, nt->dir, report, &err) < 0)
		fprintf(stderr, "nightly: report: %s\n", err.msg);
	night_write_junit(nt, &err);
	night_figures(nt);
	if (night_progress_write(nt, "done", &err) < 0)
		fprintf(stderr, "nightly: %s\n", err.msg);
	night_unlock(nt);
	return night_status(nt);
}

int nightly(struct night *nt, const struct night_request *rq,
	    struct al_err *err)
{
	if (night_start(nt, rq, err) < 0)
		return -1;
	night_run_all(nt);
	return (int)night_finish(nt);
}
