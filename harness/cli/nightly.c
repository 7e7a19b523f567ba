/* airlab nightly PLAN.yaml: every suite of the plan on every variant
 * (repeat times), each run stored; then each run against the last good
 * run of its suite and variant before tonight, with the plan's
 * thresholds; a report; summary.json and JUnit XML for CI systems in
 * results/nightly/<date>[-N]/. Exit 0 nothing regressed, 1 a regression
 * (or a run that did not complete), 2 the lab failed or the plan is bad. */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../lab/plan.h"
#include "../results/compare.h"
#include "../results/report.h"
#include "../lab/variant.h"
#include "../results/store.h"
#include "../suites/suites.h"
#include "../util/json_file.h"
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

int cmd_nightly(int argc, char **argv, struct cli_opts *o)
{
	const char *out = NULL, *pos[1] = {NULL};
	const struct cli_flag flags[] = {
	    {"--out", &out, NULL,
	     "RESULTS\tresults directory (default ROOT/results)"},
	    {NULL, NULL, NULL, NULL}};
	static struct plan p;
	static struct night_run runs[MAX_RUNS];
	char buf[4200], night[4500], report[4600], why[1200] = "", stamp[32];
	const char *results;
	struct al_err err;
	int n = 0, total, lab_failed = 0, regressed = 0, incomplete = 0;
	double t_start;
	int rc = cli_parse("nightly", argc, argv, o, flags, pos, 1);

	if (rc >= 0)
		return rc;
	if (!pos[0]) {
		return cli_usage_error("nightly", "which plan?");
	}
	if (plan_load(&p, pos[0], &err) < 0) {
		fprintf(stderr, "airlab nightly: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	if (p.lab[0])
		snprintf(o->lab, sizeof(o->lab), "%s", p.lab);
	if (p.topology[0])
		snprintf(o->topology, sizeof(o->topology), "%s", p.topology);
	total = p.nvariants * p.nsuites * p.repeat;
	if (total > MAX_RUNS) {
		fprintf(stderr, "airlab nightly: %s: %d runs, at most %d\n",
			p.path, total, MAX_RUNS);
		return AL_EXIT_USAGE;
	}
	/* Every variant must load before the first run starts; one that
	 * does not is the plan's error, at the line that names it. */
	for (int v = 0; v < p.nvariants; v++) {
		static struct cell c;
		static struct variant var;

		if (variant_load(&var, o->variant_dir, p.variants[v], &err) <
		    0) {
			/* A name with no file: one location, the plan's. A
			 * file that does not parse keeps its own. */
			const char *unknown =
			    strstr(err.msg, ": unknown variant");

			fprintf(stderr, "airlab nightly: %s:%d: %s\n", p.path,
				p.variant_line[v],
				unknown ? unknown + 2 : err.msg);
			return AL_EXIT_USAGE;
		}

		snprintf(o->variant, sizeof(o->variant), "%s", p.variants[v]);
		if (cli_cell_load(&c, o) < 0)
			return AL_EXIT_USAGE;
		cell_free(&c);
	}
	results = cli_results_dir(o, out, buf, sizeof(buf));
	if (night_dir(results, night, sizeof(night)) < 0) {
		fprintf(stderr,
			"airlab nightly: cannot create a night "
			"directory under %s/nightly\n",
			results);
		return AL_EXIT_LAB;
	}
	fprintf(stderr, "nightly: plan %s, %d runs, results in %s\n", p.name,
		total, night);
	t_start = cli_mono_s();
	path_utc_stamp(stamp, sizeof(stamp));
	for (int v = 0; v < p.nvariants && !lab_failed; v++) {
		snprintf(o->variant, sizeof(o->variant), "%s", p.variants[v]);
		for (int s = 0; s < p.nsuites && !lab_failed; s++)
			for (int r = 0; r < p.repeat && !lab_failed; r++) {
				struct night_run *nr = &runs[n];
				struct suite_params sp = {0};
				struct cli_run_result res;
				double el = cli_mono_s() - t_start;

				fprintf(stderr,
					"nightly: [%d/%d] %s on %s (run %d of "
					"%d)",
					n + 1, total, p.suites[s].name,
					p.variants[v], r + 1, p.repeat);
				if (n > 0)
					fprintf(stderr, ", about %.0f min left",
						el / n * (total - n) / 60);
				fputc('\n', stderr);
				snprintf(nr->suite, sizeof(nr->suite), "%s",
					 p.suites[s].name);
				snprintf(nr->variant, sizeof(nr->variant), "%s",
					 p.variants[v]);
				sp.length_s = p.suites[s].length_s;
				sp.streams = p.suites[s].streams;
				cli_run_suite(o, p.suites[s].name, &sp, results,
					      120, &res);
				nr->seconds = cli_mono_s() - t_start - el;
				nr->exit_code = res.exit_code;
				nr->lab_failed = res.lab_failed;
				snprintf(nr->id, sizeof(nr->id), "%s", res.id);
				snprintf(nr->dir, sizeof(nr->dir), "%s",
					 res.dir);
				n++;
				if (res.lab_failed) {
					lab_failed = 1;
					snprintf(why, sizeof(why),
						 "the cell did not come up for "
						 "%s on %s: %s",
						 p.suites[s].name,
						 p.variants[v],
						 res.failure[0]
						     ? res.failure
						     : "no reason recorded");
				} else if (res.associated < res.stations) {
					/* A night with stations missing
					 * measures another cell. */
					lab_failed = 1;
					snprintf(why, sizeof(why),
						 "%d of %d stations did not "
						 "associate for %s on %s",
						 res.stations - res.associated,
						 res.stations, p.suites[s].name,
						 p.variants[v]);
				}
			}
	}
	compare_night(results, &p, runs, n, stamp);
	snprintf(report, sizeof(report), "%s/report", night);
	/* summary.json first: the report reads the night from it. */
	{
		char page[4700];

		snprintf(page, sizeof(page), "%s/index.html", report);
		write_summary(night, &p, runs, n, page, lab_failed, why);
	}
	if (n && report_nightly(results, night, report, &err) < 0)
		fprintf(stderr, "nightly: report: %s\n", err.msg);
	strncat(report, "/index.html", sizeof(report) - strlen(report) - 1);
	write_junit(night, runs, n, lab_failed, why);

	printf("\nnightly %s: %s\n", p.name, night);
	printf("%-10s %-14s %-9s %11s %9s %13s %10s  %s\n", "suite", "variant",
	       "status", "lat_med_ms", "p99_ms", "goodput_Mb/s", "vs base",
	       "verdict");
	struct store *db = NULL;

	if (store_open(&db, results, &err) < 0)
		fprintf(stderr, "nightly: %s\n", err.msg);
	for (int i = 0; i < n; i++) {
		const struct night_run *r = &runs[i];
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
	printf("report: %s\n", report);
	if (lab_failed) {
		fprintf(stderr, "airlab nightly: lab failed: %s\n", why);
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
