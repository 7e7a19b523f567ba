/* airlab nightly PLAN.yaml: every suite of the plan on every variant
 * (repeat times), each run stored; then each run against the last good
 * run of its suite and variant before tonight, with the plan's
 * thresholds; a report; summary.json and JUnit XML for CI systems in
 * results/nightly/<date>[-N]/ (progress.json as it goes: --resume DATE
 * finishes a night that was stopped). Exit 0 nothing regressed, 1 a
 * regression, 3 a run partial, 4 the lab or a run failed, 2 a bad plan. */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../strategy/plan.h"
#include "../results/compare.h"
#include "../results/report.h"
#include "../lab/variant.h"
#include "../results/store.h"
#include "../suites/suites.h"
#include "../util/json_file.h"
#include "../util/lock.h"
#include "../util/markup.h"

#define MAX_RUNS 256

struct night_run {
	char suite[32], variant[256], id[256], dir[4600], base[256];
	int exit_code;
	int lab_failed; /* recorded as lab-failed: nothing to compare */
	struct cmp_result r[8];
	const char *metric[8];
	int nr, worse;
	double seconds; /* the run's wall time, bring-up included */
};

static const char *run_status(const struct night_run *n)
{
	return n->lab_failed			 ? "lab-failed"
	       : n->exit_code == AL_EXIT_OK	 ? "complete"
	       : n->exit_code == AL_EXIT_PARTIAL ? "partial"
						 : "failed";
}

/* Each run against the newest complete run of its suite and variant
 * from before tonight. */
static void compare_night(const char *results, const struct plan *p,
			  struct night_run *runs, int n,
			  const char *night_stamp)
{
	struct store *s;
	struct al_err err;
	size_t nm;
	const struct cmp_metric *ms = cmp_metrics(&nm);

	if (store_open(&s, results, &err) < 0) {
		fprintf(stderr, "nightly: %s: no comparisons\n", err.msg);
		return;
	}
	for (int i = 0; i < n; i++) {
		struct night_run *nr = &runs[i];
		char dir_a[4600];

		nr->base[0] = 0;
		if (!nr->id[0] || nr->lab_failed ||
		    store_last_good(s, nr->id, nr->base, sizeof(nr->base),
				    &err) != 0)
			continue;
		/* A run of tonight is no baseline for tonight (ids begin
		 * with their UTC start). */
		if (strcmp(nr->base, night_stamp) >= 0) {
			nr->base[0] = 0;
			continue;
		}
		snprintf(dir_a, sizeof(dir_a), "%s/%s", results, nr->base);
		for (size_t k = 0; k < nm && nr->nr < 8; k++) {
			if (strcmp(ms[k].name, "latency") &&
			    strcmp(ms[k].name, "goodput"))
				continue;
			if (cmp_run_dirs(
				dir_a, nr->dir, &ms[k],
				plan_threshold(p, ms[k].name, ms[k].threshold),
				&nr->r[nr->nr], &err) < 0)
				continue;
			nr->worse |= nr->r[nr->nr].verdict == CMP_WORSE;
			nr->metric[nr->nr] = ms[k].name;
			nr->nr++;
		}
	}
	store_close(s);
}

static int write_summary(const char *night, const struct plan *p,
			 const struct night_run *runs, int n,
			 const char *report, int lab_failed, const char *why)
{
	json_t *root = json_object(), *arr = json_array();
	char path[4700];
	struct al_err err;
	int regressions = 0;

	for (int i = 0; i < n; i++) {
		const struct night_run *r = &runs[i];
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
		regressions += r->worse;
		json_array_append_new(
		    arr, json_pack("{s:s, s:s, s:s, s:s, s:s?, s:b, s:o}",
				   "suite", r->suite, "variant", r->variant,
				   "id", r->id, "status", run_status(r),
				   "baseline", r->base[0] ? r->base : NULL,
				   "regressed", r->worse, "comparisons", m));
	}
	json_object_set_new(root, "plan", json_string(p->name));
	json_object_set_new(root, "plan_file", json_string(p->path));
	json_object_set_new(root, "status",
			    json_string(lab_failed    ? "lab-failed"
					: regressions ? "regressed"
						      : "ok"));
	json_object_set_new(root, "reason", json_string(why ? why : ""));
	json_object_set_new(root, "regressions", json_integer(regressions));
	json_object_set_new(root, "report", json_string(report));
	json_object_set_new(root, "runs", arr);
	snprintf(path, sizeof(path), "%s/summary.json", night);
	if (json_write_atomic(root, path, 0, &err) < 0) {
		fprintf(stderr, "nightly: %s\n", err.msg);
		json_decref(root);
		return -1;
	}
	json_decref(root);
	return 0;
}

static int write_junit(const char *night, const struct night_run *runs, int n,
		       int lab_failed, const char *why)
{
	char path[4700], tmp[4800];
	int failures = 0;
	FILE *f;

	for (int i = 0; i < n; i++)
		failures += runs[i].worse || runs[i].exit_code != 0;
	snprintf(path, sizeof(path), "%s/junit.xml", night);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "w")))
		return -1;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuite name=\"airlab-nightly\" tests=\"%d\" "
		"failures=\"%d\" errors=\"%d\">\n",
		n, failures, lab_failed);
	if (lab_failed) {
		fputs("  <testcase classname=\"lab\" name=\"bring-up\">"
		      "<error message=\"",
		      f);
		markup_text(f, why);
		fputs("\"/></testcase>\n", f);
	}
	for (int i = 0; i < n; i++) {
		const struct night_run *r = &runs[i];

		fputs("  <testcase classname=\"", f);
		markup_text(f, r->suite);
		fputc('.', f);
		markup_text(f, r->variant);
		fputs("\" name=\"", f);
		markup_text(f, r->id[0] ? r->id : "not run");
		fprintf(f, "\" time=\"%.1f\">", r->seconds);
		if (r->exit_code != 0)
			fprintf(f, "<failure message=\"run %s\"/>",
				run_status(r));
		else if (r->worse) {
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
	fputs("</testsuite>\n", f);
	if (fclose(f) != 0 || rename(tmp, path) < 0)
		return -1;
	return 0;
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

/* One night: the plan, where it runs, its runs so far. */
struct night {
	struct plan p;
	struct night_run runs[MAX_RUNS];
	int n, total, lab_failed;
	char results[4200], dir[4500], stamp[32], why[1200];
};

/* progress.json: what the night is and which runs it has stored, written
 * (atomically) when it starts and after each run, so that a night killed
 * at any moment is finished by `nightly --resume DATE`. */
static int progress_write(const struct night *nt, const struct cli_opts *o,
			  const char *status)
{
	json_t *root, *arr = json_array();
	char path[4700];
	struct al_err err;

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
		      nt->p.path, "lab", o->lab, "topology", o->topology,
		      "variant_dir", o->variant_dir, "results", nt->results,
		      "stamp", nt->stamp, "status", status, "runs", arr);
	snprintf(path, sizeof(path), "%s/progress.json", nt->dir);
	if (json_write_atomic(root, path, 1, &err) < 0) {
		fprintf(stderr, "nightly: %s\n", err.msg);
		json_decref(root);
		return -1;
	}
	json_decref(root);
	return 0;
}

static void copy_str(char *dst, size_t len, json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	snprintf(dst, len, "%s", v ? v : "");
}

/* The night DATE of results (o's --out): its progress, the cell it ran
 * on, the runs it stored. Bad input (exit 2) when there is no such night
 * or it has ended. */
static int progress_read(struct night *nt, struct cli_opts *o, const char *date,
			 char *plan_file, size_t plen)
{
	char path[4700];
	json_error_t jerr;
	json_t *root, *runs, *r;
	const char *st;
	size_t i;

	snprintf(nt->dir, sizeof(nt->dir), "%s/nightly/%s", nt->results, date);
	snprintf(path, sizeof(path), "%s/progress.json", nt->dir);
	if (!(root = json_load_file(path, 0, &jerr))) {
		fprintf(stderr,
			"airlab nightly: --resume %s: %s (the nights are in "
			"%s/nightly)\n",
			date, jerr.text, nt->results);
		return AL_EXIT_USAGE;
	}
	st = json_string_value(json_object_get(root, "status"));
	if (st && !strcmp(st, "done")) {
		fprintf(stderr,
			"airlab nightly: --resume %s: the night has ended "
			"(%s/summary.json)\n",
			date, nt->dir);
		json_decref(root);
		return AL_EXIT_USAGE;
	}
	copy_str(plan_file, plen, root, "plan_file");
	copy_str(o->lab, sizeof(o->lab), root, "lab");
	copy_str(o->topology, sizeof(o->topology), root, "topology");
	copy_str(o->variant_dir, sizeof(o->variant_dir), root, "variant_dir");
	copy_str(nt->stamp, sizeof(nt->stamp), root, "stamp");
	runs = json_object_get(root, "runs");
	json_array_foreach(runs, i, r)
	{
		struct night_run *nr = &nt->runs[nt->n];

		if (nt->n >= MAX_RUNS)
			break;
		copy_str(nr->suite, sizeof(nr->suite), r, "suite");
		copy_str(nr->variant, sizeof(nr->variant), r, "variant");
		copy_str(nr->id, sizeof(nr->id), r, "id");
		copy_str(nr->dir, sizeof(nr->dir), r, "dir");
		nr->exit_code =
		    (int)json_integer_value(json_object_get(r, "exit_code"));
		nr->lab_failed = json_is_true(json_object_get(r, "lab_failed"));
		nr->seconds = json_number_value(json_object_get(r, "seconds"));
		/* A lab failure is tried again: the lab may be back. */
		if (nr->lab_failed || !nr->id[0])
			break;
		nt->n++;
	}
	json_decref(root);
	return -1;
}

/* The plan loaded and every variant of it checked against the cell
 * before the first run; the exit status, or -1 to go on. */
static int plan_check(struct night *nt, struct cli_opts *o,
		      const char *plan_file, bool resuming)
{
	struct al_err err;

	if (plan_load(&nt->p, plan_file, &err) < 0) {
		fprintf(stderr, "airlab nightly: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	if (!resuming && nt->p.lab[0])
		snprintf(o->lab, sizeof(o->lab), "%s", nt->p.lab);
	if (!resuming && nt->p.topology[0])
		snprintf(o->topology, sizeof(o->topology), "%s",
			 nt->p.topology);
	nt->total = nt->p.nvariants * nt->p.nsuites * nt->p.repeat;
	if (nt->total > MAX_RUNS) {
		fprintf(stderr, "airlab nightly: %s: %d runs, at most %d\n",
			nt->p.path, nt->total, MAX_RUNS);
		return AL_EXIT_USAGE;
	}
	for (int v = 0; v < nt->p.nvariants; v++) {
		static struct cell c;
		static struct variant var;

		if (variant_load(&var, o->variant_dir, nt->p.variants[v],
				 &err) < 0) {
			/* A name with no file: one location, the plan's. A
			 * file that does not parse keeps its own. */
			const char *unknown =
			    strstr(err.msg, ": unknown variant");

			fprintf(stderr, "airlab nightly: %s:%d: %s\n",
				nt->p.path, nt->p.variant_line[v],
				unknown ? unknown + 2 : err.msg);
			return AL_EXIT_USAGE;
		}
		snprintf(o->variant, sizeof(o->variant), "%s",
			 nt->p.variants[v]);
		if (cli_cell_load(&c, o) < 0)
			return AL_EXIT_USAGE;
		cell_free(&c);
	}
	return -1;
}

/* Run number idx of the night (variants, then suites, then repeats), on
 * the cell o names; a lab failure stops the night. */
static void night_run_one(struct night *nt, struct cli_opts *o, int idx,
			  double t_start, int done_before)
{
	const struct plan *p = &nt->p;
	int v = idx / (p->nsuites * p->repeat);
	int s = idx / p->repeat % p->nsuites;
	struct night_run *nr = &nt->runs[nt->n];
	struct suite_params sp = {0};
	struct cli_run_result res;
	double el = cli_mono_s() - t_start;
	int ran = nt->n - done_before;

	snprintf(o->variant, sizeof(o->variant), "%s", p->variants[v]);
	fprintf(stderr, "nightly: [%d/%d] %s on %s (run %d of %d)", idx + 1,
		nt->total, p->suites[s].name, p->variants[v],
		idx % p->repeat + 1, p->repeat);
	if (ran > 0)
		fprintf(stderr, ", about %.0f min left",
			el / ran * (nt->total - nt->n) / 60);
	fputc('\n', stderr);
	memset(nr, 0, sizeof(*nr));
	/* (through o->variant: gcc cannot tell nr from p, both in nt) */
	snprintf(nr->variant, sizeof(nr->variant), "%s", o->variant);
	memcpy(nr->suite, p->suites[s].name,
	       strnlen(p->suites[s].name, sizeof(nr->suite) - 1));
	sp.length_s = p->suites[s].length_s;
	sp.streams = p->suites[s].streams;
	cli_run_suite(o, p->suites[s].name, &sp, nt->results, 120, &res);
	nr->seconds = cli_mono_s() - t_start - el;
	nr->exit_code = res.exit_code;
	nr->lab_failed = res.lab_failed;
	snprintf(nr->id, sizeof(nr->id), "%s", res.id);
	snprintf(nr->dir, sizeof(nr->dir), "%s", res.dir);
	nt->n++;
	if (res.lab_failed) {
		nt->lab_failed = 1;
		snprintf(nt->why, sizeof(nt->why),
			 "the cell did not come up for %s on %s: %s",
			 p->suites[s].name, p->variants[v],
			 res.failure[0] ? res.failure : "no reason recorded");
	} else if (res.associated < res.stations) {
		/* A night with stations missing measures another cell. */
		nt->lab_failed = 1;
		snprintf(nt->why, sizeof(nt->why),
			 "%d of %d stations did not associate for %s on %s",
			 res.stations - res.associated, res.stations,
			 p->suites[s].name, p->variants[v]);
	}
}

/* Compared, summed up, reported; the table printed; the exit status. */
static int night_finish(struct night *nt)
{
	char report[4600], page[4700];
	struct al_err err;
	struct store *db = NULL;
	int regressed = 0, incomplete = AL_EXIT_OK;

	compare_night(nt->results, &nt->p, nt->runs, nt->n, nt->stamp);
	snprintf(report, sizeof(report), "%s/report", nt->dir);
	/* summary.json first: the report reads the night from it. */
	snprintf(page, sizeof(page), "%s/index.html", report);
	write_summary(nt->dir, &nt->p, nt->runs, nt->n, page, nt->lab_failed,
		      nt->why);
	if (nt->n && report_nightly(nt->results, nt->dir, report, &err) < 0)
		fprintf(stderr, "nightly: report: %s\n", err.msg);
	write_junit(nt->dir, nt->runs, nt->n, nt->lab_failed, nt->why);

	printf("\nnightly %s: %s\n", nt->p.name, nt->dir);
	printf("%-10s %-14s %-9s %11s %9s %13s %10s  %s\n", "suite", "variant",
	       "status", "lat_med_ms", "p99_ms", "goodput_Mb/s", "vs base",
	       "verdict");
	if (store_open(&db, nt->results, &err) < 0)
		fprintf(stderr, "nightly: %s\n", err.msg);
	for (int i = 0; i < nt->n; i++) {
		const struct night_run *r = &nt->runs[i];
		double lat = NAN, p99 = NAN, gp = NAN;

		if (db && r->id[0]) {
			lat = store_metric(db, r->id, "latency_median_ms");
			p99 = store_metric(db, r->id, "latency_p99_ms");
			gp = store_metric(db, r->id, "up_mbps") +
			     store_metric(db, r->id, "down_mbps");
		}
		/* A run that never got going has no figures: "-", not
		 * "nan". */
		printf("%-10s %-14s %-9s", r->suite, r->variant, run_status(r));
		cli_cell_num(lat, "%11.2f", 11);
		cli_cell_num(p99, "%9.2f", 9);
		cli_cell_num(gp, "%13.2f", 13);
		if (r->nr)
			printf(" %+9.1f%%  %s\n", 100 * r->r[0].change,
			       r->worse ? "REGRESSED" : "ok");
		else
			printf(" %10s  %s\n", "-",
			       r->exit_code ? "run not complete"
					    : "no baseline yet");
		regressed |= r->worse;
		/* the worst: a failed run over a partial one */
		if (r->exit_code != AL_EXIT_OK &&
		    (incomplete == AL_EXIT_OK ||
		     r->exit_code != AL_EXIT_PARTIAL))
			incomplete = r->exit_code;
	}
	store_close(db);
	printf("report: %s/index.html\n", report);
	if (nt->lab_failed) {
		fprintf(stderr, "airlab nightly: lab failed: %s\n", nt->why);
		return AL_EXIT_LAB;
	}
	if (regressed) {
		fprintf(stderr,
			"airlab nightly: a metric regressed (see the table)\n");
		return AL_EXIT_WORSE;
	}
	if (incomplete != AL_EXIT_OK) {
		fprintf(stderr, "airlab nightly: a run did not complete\n");
		return incomplete == AL_EXIT_PARTIAL ? AL_EXIT_PARTIAL
						     : AL_EXIT_LAB;
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
	static struct night nt;
	char buf[4200], plan_file[4096];
	struct al_err err;
	double t_start;
	int done_before,
	    rc = cli_parse("nightly", argc, argv, o, flags, pos, 1);

	if (rc >= 0)
		return rc;
	memset(&nt, 0, sizeof(nt));
	if (!pos[0] == !resume)
		return cli_usage_error(
		    "nightly", resume ? "--resume DATE takes no plan (the "
					"night names its own)"
				      : "which plan?");
	snprintf(nt.results, sizeof(nt.results), "%s",
		 cli_results_dir(o, out, buf, sizeof(buf)));
	snprintf(plan_file, sizeof(plan_file), "%s", resume ? "" : pos[0]);
	if (resume && strchr(resume, '/'))
		return cli_usage_error("nightly",
				       "--resume takes a night's name, e.g. "
				       "2026-12-07");
	if ((resume && (rc = progress_read(&nt, o, resume, plan_file,
					   sizeof(plan_file))) >= 0) ||
	    (rc = plan_check(&nt, o, plan_file, resume != NULL)) >= 0)
		return rc;
	if (!resume) {
		if (night_dir(nt.results, nt.dir, sizeof(nt.dir)) < 0) {
			fprintf(stderr,
				"airlab nightly: cannot create a night "
				"directory under %s/nightly\n",
				nt.results);
			return AL_EXIT_LAB;
		}
		path_utc_stamp(nt.stamp, sizeof(nt.stamp));
	}
	/* One process a night (flock: a killed one leaves no lock). */
	if (lock_take(nt.dir, "night", nt.dir, &err) < 0)
		return cli_fail(&err);
	if (progress_write(&nt, o, "running") < 0) {
		lock_give(nt.dir, "night");
		return AL_EXIT_LAB;
	}
	fprintf(stderr, "nightly: plan %s, %d runs%s, results in %s\n",
		nt.p.name, nt.total, resume ? " (resumed)" : "", nt.dir);
	if (resume && nt.n)
		fprintf(stderr,
			"nightly: %d of %d runs stored before; "
			"going on from run %d\n",
			nt.n, nt.total, nt.n + 1);
	t_start = cli_mono_s();
	done_before = nt.n;
	for (int idx = nt.n; idx < nt.total && !nt.lab_failed; idx++) {
		night_run_one(&nt, o, idx, t_start, done_before);
		progress_write(&nt, o, "running");
	}
	rc = night_finish(&nt);
	progress_write(&nt, o, "done");
	lock_give(nt.dir, "night");
	return rc;
}
