/* Comparing two runs with statistics rather than by eye.
 *
 * A metric's samples come from a run's .flent.gz (the raw truth):
 *   latency       ms, every probe round trip while the bulk flows ran
 *                 (the whole run for suites without bulk flows);
 *   goodput       Mbit/s, the bulk flows' total per step while they ran;
 *   goodput_up / goodput_down   the same for one direction.
 * Two runs are compared on the relative change of the median, B over A,
 * with a 95% confidence interval from a moving-block bootstrap (blocks,
 * because samples of one run are serially correlated) and the two-sided
 * Mann-Whitney U p-value beside it. The verdict is "worse" or "better"
 * only when the whole interval lies beyond the metric's threshold in
 * that direction. */
#ifndef AIRLAB_RESULTS_COMPARE_H
#define AIRLAB_RESULTS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"

struct cmp_samples {
	double *v;
	size_t n;
};

enum cmp_verdict { CMP_SAME, CMP_BETTER, CMP_WORSE, CMP_NODATA };

struct cmp_metric {
	const char *name, *units;
	int lower_is_better;
	double threshold; /* default relative threshold, e.g. 0.05 */
};

/* At most this many metrics (a caller may keep one result each). */
#define CMP_MAX_METRICS 8

/* The metrics airlab compares, NULL-terminated by name. */
const struct cmp_metric *cmp_metrics(size_t *n);
const struct cmp_metric *cmp_metric_find(const char *name);
/* The same, or NULL with err (bad input) naming the known ones. */
const struct cmp_metric *cmp_metric_known(const char *name, struct al_err *err);

/* The samples of metric m in run_dir's .flent.gz (the file run.json
 * names). Errors name the file and what is wrong with it. */
int cmp_load(const char *run_dir, const struct cmp_metric *m,
	     struct cmp_samples *out, struct al_err *err);
void cmp_samples_free(struct cmp_samples *s);

struct cmp_result {
	double a_median, b_median;
	double change;	     /* b / a - 1 */
	double ci_lo, ci_hi; /* 95% of the change */
	double p_mann_whitney;
	enum cmp_verdict verdict;
};

/* Compares; seed makes the bootstrap repeatable. Fewer than 5 samples
 * on either side: CMP_NODATA. */
void cmp_compare(const struct cmp_samples *a, const struct cmp_samples *b,
		 const struct cmp_metric *m, double threshold, uint64_t seed,
		 struct cmp_result *r);

/* Two-sided p of the Mann-Whitney U test (normal approximation with tie
 * correction and continuity correction). */
double cmp_mann_whitney_p(const struct cmp_samples *a,
			  const struct cmp_samples *b);

/* Loads metric m from both run directories and compares them (seed 1);
 * -1 with err when either cannot be read. */
int cmp_run_dirs(const char *dir_a, const char *dir_b,
		 const struct cmp_metric *m, double threshold,
		 struct cmp_result *r, struct al_err *err);

const char *cmp_verdict_name(enum cmp_verdict v);

/* Two stored runs, as `airlab compare` takes them. */
struct cmp_request {
	const char *results; /* the results directory (and its store) */
	const char *a, *b;   /* run ids under results, or run directories */
	bool last_good;	     /* a: the newest complete run of b's suite and
				variant before b, from the store */
	const char *metric;  /* NULL: every metric */
	double threshold;    /* NaN: each metric's own */
};

/* Compares rq's runs on its metrics into res (indexed as cmp_metrics();
 * the ones not asked for are left alone), a's id in a_id. Every metric is
 * computed before it returns: a run that is missing or unreadable is bad
 * input, never a partial table. */
int cmp_runs(const struct cmp_request *rq, char *a_id, size_t alen,
	     struct cmp_result *res, struct al_err *err);

#endif
