#include "compare.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include "../util/stats.h"
#include "store.h"
#include "flent.h"
#include "run_doc.h"

static const struct cmp_metric metrics[] = {
    {"latency", "ms", 1, 0.05},
    {"goodput", "Mbit/s", 0, 0.05},
    {"goodput_up", "Mbit/s", 0, 0.05},
    {"goodput_down", "Mbit/s", 0, 0.05},
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))
_Static_assert(NMETRICS <= CMP_MAX_METRICS, "raise CMP_MAX_METRICS");

const struct cmp_metric *cmp_metrics(size_t *n)
{
	*n = NMETRICS;
	return metrics;
}

const struct cmp_metric *cmp_metric_find(const char *name)
{
	for (size_t i = 0; i < NMETRICS; i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	return NULL;
}

const struct cmp_metric *cmp_metric_known(const char *name, struct al_err *err)
{
	const struct cmp_metric *m = cmp_metric_find(name);
	char known[256] = "";
	size_t len = 0;

	if (m)
		return m;
	for (size_t i = 0; i < NMETRICS && len < sizeof(known); i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len, " %s",
					metrics[i].name);
	al_err_input(err, "unknown metric '%s' (known:%s)", name, known);
	return NULL;
}

const char *cmp_verdict_name(enum cmp_verdict v)
{
	switch (v) {
	case CMP_BETTER:
		return "better";
	case CMP_WORSE:
		return "worse";
	case CMP_NODATA:
		return "no data";
	default:
		return "no significant change";
	}
}

void cmp_samples_free(struct cmp_samples *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int push(struct cmp_samples *s, size_t *cap, double v)
{
	if (s->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		double *nv = realloc(s->v, nc * sizeof(double));

		if (!nv)
			return -1;
		s->v = nv;
		*cap = nc;
	}
	s->v[s->n++] = v;
	return 0;
}

/* Bulk flows and probes by Flent's series names; the computed series
 * (avg, sum, totals, fairness) are not samples. */
static int is_computed(const char *name)
{
	static const char *const tails[] = {" avg", " sum", " fairness",
					    "totals"};
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		size_t t = strlen(tails[i]);

		if (len >= t && !strcmp(name + len - t, tails[i]))
			return 1;
	}
	return 0;
}

static int is_bulk(const char *name, const char *dir)
{
	char pre[32];

	snprintf(pre, sizeof(pre), "TCP %s", dir ? dir : "");
	return !strncmp(name, pre, strlen(pre)) && !is_computed(name);
}

int cmp_load(const char *run_dir, const struct cmp_metric *m,
	     struct cmp_samples *out, struct al_err *err)
{
	char path[4300];
	struct run_doc rd;
	json_t *root, *results, *x;
	const char *name;
	json_t *series;
	double delay, length, lo = -INFINITY, hi = INFINITY;
	size_t cap = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (run_doc_read(run_dir, &rd, err) < 0)
		return -1;
	if (!rd.flent_file) {
		al_errf(err,
			"%s/run.json: the run has no .flent.gz (status %s)",
			run_dir, rd.status);
		run_doc_free(&rd);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", run_dir, rd.flent_file);
	run_doc_free(&rd);
	if (!(root = flent_read(path, err)))
		return -1;
	results = json_object_get(root, "results");
	x = json_object_get(root, "x_values");
	delay = json_number_value(
	    json_object_get(json_object_get(root, "metadata"), "DELAY"));
	length = json_number_value(
	    json_object_get(json_object_get(root, "metadata"), "LENGTH"));
	/* The load window in the file's own x (seconds from T0); suites
	 * without a delay have no bulk phase and count all of it. */
	if (delay > 0 && length > 0) {
		lo = delay;
		hi = delay + length;
	}
	if (!strcmp(m->name, "latency")) {
		json_t *raw = json_object_get(root, "raw_values");
		double t0 = NAN;

		/* Raw samples carry unix time; the window is in seconds
		 * from T0 (ISO, with a fraction). */
		const char *iso = json_string_value(
		    json_object_get(json_object_get(root, "metadata"), "T0"));
		struct tm tm = {0};
		double frac = 0;
		char *rest =
		    iso ? strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;

		if (rest) {
			if (*rest == '.')
				frac = strtod(rest, NULL);
			t0 = (double)timegm(&tm) + frac;
		}
		if (isnan(t0)) {
			al_errf(err, "%s: metadata T0 is not an ISO time",
				path);
			goto out;
		}
		for (void *it = json_object_iter(raw); it;
		     it = json_object_iter_next(raw, it)) {
			name = json_object_iter_key(it);
			series = json_object_iter_value(it);
			if (strncmp(name, "Ping (ms)", 9) || is_computed(name))
				continue;
			for (size_t i = 0; i < json_array_size(series); i++) {
				json_t *r = json_array_get(series, i);
				json_t *v = json_object_get(r, "val");
				double t =
				    json_number_value(json_object_get(r, "t")) -
				    t0;

				if (json_is_number(v) && t >= lo && t <= hi &&
				    push(out, &cap, json_number_value(v)) < 0)
					goto oom;
			}
		}
	} else {
		const char *dir = !strcmp(m->name, "goodput_up") ? "upload"
				  : !strcmp(m->name, "goodput_down")
				      ? "download"
				      : NULL;
		size_t nx = json_array_size(x);

		for (size_t k = 0; k < nx; k++) {
			double xv = json_number_value(json_array_get(x, k));
			double sum = 0;
			int any = 0;

			if (xv < lo || xv > hi)
				continue;
			for (void *it = json_object_iter(results); it;
			     it = json_object_iter_next(results, it)) {
				json_t *v;

				name = json_object_iter_key(it);
				if (!is_bulk(name, dir))
					continue;
				v = json_array_get(json_object_iter_value(it),
						   k);
				if (json_is_number(v)) {
					sum += json_number_value(v);
					any = 1;
				}
			}
			if (any && push(out, &cap, sum) < 0)
				goto oom;
		}
	}
	rc = 0;
	goto out;
oom:
	al_errf(err, "%s: out of memory", path);
	cmp_samples_free(out);
out:
	json_decref(root);
	return rc;
}

/* ---- statistics --------------------------------------------------------- */

/* The k-th smallest of v[0..n) (Hoare's selection, in place): O(n), where
 * sorting every bootstrap resample would be O(n log n). */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

/* The median as stats_percentile defines it (interpolated). */
static double median_of(const double *v, size_t n, double *scratch)
{
	double lo, hi;

	memcpy(scratch, v, n * sizeof(double));
	lo = select_kth(scratch, n, (n - 1) / 2);
	if (n % 2)
		return lo;
	hi = select_kth(scratch, n, n / 2);
	return (lo + hi) / 2;
}

/* splitmix64: small, seedable, good enough for resampling. */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* One moving-block bootstrap resample of src (blocks of len samples,
 * wrapping around) into dst. */
static void resample(const double *src, size_t n, size_t len, double *dst,
		     uint64_t *rng)
{
	for (size_t k = 0; k < n;) {
		size_t start = (size_t)(next_u64(rng) % n);

		for (size_t j = 0; j < len && k < n; j++)
			dst[k++] = src[(start + j) % n];
	}
}

double cmp_mann_whitney_p(const struct cmp_samples *a,
			  const struct cmp_samples *b)
{
	size_t n1 = a->n, n2 = b->n, n = n1 + n2;
	struct {
		double v;
		int from_a;
	} * all;
	double r1 = 0, ties = 0, u, mu, sigma, z;

	if (n1 == 0 || n2 == 0)
		return NAN;
	all = malloc(n * sizeof(*all));
	if (!all)
		return NAN;
	for (size_t i = 0; i < n1; i++)
		all[i].v = a->v[i], all[i].from_a = 1;
	for (size_t i = 0; i < n2; i++)
		all[n1 + i].v = b->v[i], all[n1 + i].from_a = 0;
	qsort(all, n, sizeof(*all),
	      stats_cmp_double); /* v is the first member */
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && all[j].v == all[i].v)
			j++;
		/* Ranks i+1..j share their mean. */
		double rank = (double)(i + 1 + j) / 2.0, t = (double)(j - i);

		for (size_t k = i; k < j; k++)
			if (all[k].from_a)
				r1 += rank;
		ties += t * t * t - t;
		i = j;
	}
	free(all);
	u = r1 - (double)n1 * (double)(n1 + 1) / 2.0;
	mu = (double)n1 * (double)n2 / 2.0;
	sigma = sqrt((double)n1 * (double)n2 / 12.0 *
		     ((double)(n + 1) - ties / ((double)n * (double)(n - 1))));
	if (sigma == 0)
		return 1.0;
	z = (fabs(u - mu) - 0.5) / sigma;
	if (z < 0)
		z = 0;
	return erfc(z / sqrt(2.0));
}

void cmp_compare(const struct cmp_samples *a, const struct cmp_samples *b,
		 const struct cmp_metric *m, double threshold, uint64_t seed,
		 struct cmp_result *r)
{
	enum { B = 1000 }; /* resamples */
	size_t na = a->n, nb = b->n;
	double *sa, *sb, *scratch, *changes;
	uint64_t rng = seed;

	memset(r, 0, sizeof(*r));
	r->a_median = r->b_median = r->change = r->ci_lo = r->ci_hi = NAN;
	r->p_mann_whitney = NAN;
	r->verdict = CMP_NODATA;
	if (na < 5 || nb < 5)
		return;
	sa = malloc(na * sizeof(double));
	sb = malloc(nb * sizeof(double));
	scratch = malloc((na > nb ? na : nb) * sizeof(double));
	changes = malloc(B * sizeof(double));
	if (!sa || !sb || !scratch || !changes)
		goto out;
	r->a_median = median_of(a->v, na, scratch);
	r->b_median = median_of(b->v, nb, scratch);
	r->change = r->a_median != 0 ? r->b_median / r->a_median - 1 : NAN;
	r->p_mann_whitney = cmp_mann_whitney_p(a, b);
	/* Block length about n^(1/3): long enough to keep the serial
	 * correlation of samples one step apart. */
	size_t la = (size_t)fmax(1, round(cbrt((double)na)));
	size_t lb = (size_t)fmax(1, round(cbrt((double)nb)));
	size_t nc = 0;

	for (int i = 0; i < B; i++) {
		double ma, mb;

		resample(a->v, na, la, sa, &rng);
		resample(b->v, nb, lb, sb, &rng);
		ma = median_of(sa, na, scratch);
		mb = median_of(sb, nb, scratch);
		if (ma != 0)
			changes[nc++] = mb / ma - 1;
	}
	if (nc < B / 2 || isnan(r->change))
		goto out;
	qsort(changes, nc, sizeof(double), stats_cmp_double);
	r->ci_lo = changes[(size_t)(0.025 * (double)(nc - 1))];
	r->ci_hi = changes[(size_t)ceil(0.975 * (double)(nc - 1))];
	r->verdict = CMP_SAME;
	if (r->ci_lo > threshold)
		r->verdict = m->lower_is_better ? CMP_WORSE : CMP_BETTER;
	else if (r->ci_hi < -threshold)
		r->verdict = m->lower_is_better ? CMP_BETTER : CMP_WORSE;
out:
	free(sa);
	free(sb);
	free(scratch);
	free(changes);
}

int cmp_run_dirs(const char *dir_a, const char *dir_b,
		 const struct cmp_metric *m, double threshold,
		 struct cmp_result *r, struct al_err *err)
{
	struct cmp_samples a, b;

	if (cmp_load(dir_a, m, &a, err) < 0)
		return -1;
	if (cmp_load(dir_b, m, &b, err) < 0) {
		cmp_samples_free(&a);
		return -1;
	}
	cmp_compare(&a, &b, m, threshold, 1, r);
	cmp_samples_free(&a);
	cmp_samples_free(&b);
	return 0;
}

/* A run argument: a directory path, or an id under the results dir. */
static void run_dir(const char *results, const char *run, char *out, size_t len)
{
	if (strchr(run, '/'))
		snprintf(out, len, "%s", run);
	else
		snprintf(out, len, "%s/%s", results, run);
}

int cmp_runs(const struct cmp_request *rq, char *a_id, size_t alen,
	     struct cmp_result *res, struct al_err *err)
{
	const char *id[2] = {rq->a, rq->b};
	char dir[2][4600];
	size_t nm;
	const struct cmp_metric *all = cmp_metrics(&nm);

	snprintf(a_id, alen, "%s", rq->a ? rq->a : "");
	if (rq->last_good) {
		struct store *s;
		int r;

		if (store_open(&s, rq->results, err) < 0)
			return -1;
		r = store_last_good(s, rq->b, a_id, alen, err);
		store_close(s);
		if (r < 0)
			return -1;
		if (r > 0)
			return al_err_input(err,
					    "no complete run of the same suite "
					    "and variant before %s",
					    rq->b);
		id[0] = a_id;
	}
	for (int k = 0; k < 2; k++) {
		run_dir(rq->results, id[k], dir[k], sizeof(dir[k]));
		if (access(dir[k], F_OK) != 0)
			return al_err_input(err,
					    "no run '%s' in %s (airlab runs "
					    "lists them)",
					    id[k], rq->results);
	}
	for (size_t i = 0; i < nm; i++) {
		const struct cmp_metric *m = &all[i];

		if (rq->metric && strcmp(rq->metric, m->name))
			continue;
		if (cmp_run_dirs(dir[0], dir[1], m,
				 isnan(rq->threshold) ? m->threshold
						      : rq->threshold,
				 &res[i], err) < 0) {
			err->bad_input = true;
			return -1;
		}
	}
	return 0;
}
