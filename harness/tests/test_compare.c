/* Comparing runs: Mann-Whitney against hand-computed values, verdicts on
 * synthetic samples with known answers, and loading a metric's samples
 * from a Flent file inside the load window only. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "../results/compare.h"
#include "../results/flent.h"
#include "fixture_run.h"

/* Seeded normal samples (Box-Muller on a small LCG), lognormal for
 * latency-like data; each sample leans on the one before, as samples of
 * one run do (AR(1), rho 0.5). */
static uint64_t lcg;
static double unit(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(lcg >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
	return sqrt(-2 * log(unit())) * cos(2 * M_PI * unit());
}
static void lognormal(struct cmp_samples *s, size_t n, double median,
		      double sigma)
{
	double e = 0;

	s->v = malloc(n * sizeof(double));
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		e = 0.5 * e + sqrt(0.75) * gauss();
		s->v[i] = median * exp(sigma * e);
	}
}

static void mann_whitney_by_hand(void **state)
{
	double a1[] = {1, 2, 3, 4, 5}, b1[] = {6, 7, 8, 9, 10};
	double a2[] = {1, 2, 2, 3}, b2[] = {2, 3, 4, 4};
	struct cmp_samples a = {a1, 5}, b = {b1, 5};

	(void)state;
	/* U = 0, mu = 12.5, sigma = sqrt(25 * 11 / 12) = 4.787;
	 * z = (12.5 - 0.5) / 4.787 = 2.507, p = 0.01219. */
	assert_true(fabs(cmp_mann_whitney_p(&a, &b) - 0.01219) < 2e-4);
	assert_true(fabs(cmp_mann_whitney_p(&a, &a) - 1.0) < 1e-9);
	/* With ties: ranks 1, 3, 3, 5.5 | 3, 5.5, 7.5, 7.5; R1 = 12.5,
	 * U = 2.5; tie term (27-3) + (8-2) + (8-2) = 36, sigma =
	 * sqrt(16/12 * (9 - 36/56)) = 3.338; z = (8 - 2.5 - 0.5) / 3.338
	 * = 1.498, p = 0.1341. */
	a = (struct cmp_samples){a2, 4};
	b = (struct cmp_samples){b2, 4};
	assert_true(fabs(cmp_mann_whitney_p(&a, &b) - 0.1341) < 5e-4);
}

static void equal_distributions_are_no_change(void **state)
{
	const struct cmp_metric *lat = cmp_metric_find("latency");
	int same = 0, trials = 100;

	(void)state;
	lcg = 12345;
	for (int t = 0; t < trials; t++) {
		struct cmp_samples a, b;
		struct cmp_result r;

		lognormal(&a, 300, 40, 0.4);
		lognormal(&b, 300, 40, 0.4);
		cmp_compare(&a, &b, lat, lat->threshold, (uint64_t)t, &r);
		same += r.verdict == CMP_SAME;
		cmp_samples_free(&a);
		cmp_samples_free(&b);
	}
	if (same < trials * 95 / 100)
		fail_msg("only %d of %d equal pairs were 'no significant "
			 "change'",
			 same, trials);
}

static void shifts_are_found(void **state)
{
	const struct cmp_metric *lat = cmp_metric_find("latency");
	const struct cmp_metric *gp = cmp_metric_find("goodput");

	(void)state;
	int covered = 0, trials = 50;

	lcg = 777;
	for (int t = 0; t < trials; t++) {
		struct cmp_samples a, b;
		struct cmp_result r;

		/* 2x the latency: always worse; the other way: better. */
		lognormal(&a, 300, 40, 0.4);
		lognormal(&b, 300, 80, 0.4);
		cmp_compare(&a, &b, lat, lat->threshold, (uint64_t)t, &r);
		assert_int_equal(r.verdict, CMP_WORSE);
		/* A 95% interval misses the true +100% now and then. */
		covered += r.ci_lo <= 1.0 && r.ci_hi >= 1.0;
		assert_true(r.p_mann_whitney < 1e-6);
		cmp_compare(&b, &a, lat, lat->threshold, (uint64_t)t, &r);
		assert_int_equal(r.verdict, CMP_BETTER);
		/* Goodput is higher-is-better: halved is worse. */
		cmp_compare(&b, &a, gp, gp->threshold, (uint64_t)t, &r);
		assert_int_equal(r.verdict, CMP_WORSE);
		cmp_samples_free(&a);
		cmp_samples_free(&b);
	}
	if (covered < trials * 85 / 100)
		fail_msg("the interval held the true change in %d of %d trials",
			 covered, trials);
}

static void too_few_samples(void **state)
{
	double v[4] = {1, 2, 3, 4};
	struct cmp_samples a = {v, 4};
	struct cmp_result r;

	(void)state;
	cmp_compare(&a, &a, cmp_metric_find("latency"), 0.05, 1, &r);
	assert_int_equal(r.verdict, CMP_NODATA);
	assert_null(cmp_metric_find("jitter"));
}

/* A run directory: run.json naming a Flent file with a 2 s delay, 4 s of
 * bulk load and 2 s after. Pings are 1 ms outside the load, 50 inside;
 * two TCP downloads of 3 and 4 Mbit/s only inside. */
static void load_window(void **state)
{
	char dir[] = "/tmp/airlab-test-compare.XXXXXX", path[256];
	double t0 = 1700000000.25;
	struct al_err err;
	struct flent_file *f;
	struct cmp_samples s;
	FILE *fp;
	int ping, d1, d2, sum;

	(void)state;
	assert_non_null(mkdtemp(dir));
	f = flent_new("tcp_ndown", t0, 0.5, 4, 8, &err);
	assert_non_null(f);
	flent_meta_num(f, "DELAY", 2);
	ping = flent_series(f, "Ping (ms) ICMP", "ms");
	d1 = flent_series(f, "TCP download::1", "Mbits/s");
	d2 = flent_series(f, "TCP download::2", "Mbits/s");
	for (double x = 0; x < 8; x += 0.25) {
		int in = x >= 2 && x <= 6;

		flent_raw(f, ping, t0 + x, in ? 50 : 1, NULL);
		if (in) {
			flent_raw(f, d1, t0 + x, 3, NULL);
			flent_raw(f, d2, t0 + x, 4, NULL);
		}
	}
	sum = 0;
	{
		int srcs[] = {d1, d2};

		sum = flent_computed(f, "TCP download sum", "Mbits/s",
				     FLENT_SUM, srcs, 2);
	}
	assert_true(sum >= 0);
	fixture_run_write(dir, f);

	assert_int_equal(cmp_load(dir, cmp_metric_find("latency"), &s, &err),
			 0);
	assert_true(s.n >= 15);
	for (size_t i = 0; i < s.n; i++)
		assert_true(s.v[i] == 50);
	cmp_samples_free(&s);
	assert_int_equal(cmp_load(dir, cmp_metric_find("goodput"), &s, &err),
			 0);
	assert_true(s.n >= 7);
	for (size_t i = 0; i < s.n; i++)
		if (fabs(s.v[i] - 7) > 1e-9)
			fail_msg("goodput sample %zu is %g, not 3 + 4 (the "
				 "sum series must not count)",
				 i, s.v[i]);
	cmp_samples_free(&s);
	assert_int_equal(cmp_load(dir, cmp_metric_find("goodput_up"), &s, &err),
			 0);
	assert_int_equal(s.n, 0);

	/* A run without a Flent file: an error naming run.json. */
	snprintf(path, sizeof(path), "%s/run.json", dir);
	fp = fopen(path, "w");
	fputs("{\"id\": \"x\", \"status\": \"failed\"}", fp);
	fclose(fp);
	assert_int_equal(cmp_load(dir, cmp_metric_find("latency"), &s, &err),
			 -1);
	assert_non_null(strstr(err.msg, "run.json: the run has no .flent.gz "
					"(status failed)"));
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* A run whose ICMP probes all took ms, in dir (made). */
static void ping_run(const char *dir, double ms)
{
	double t0 = 1700000000;
	struct al_err err;
	struct flent_file *f = flent_new("ping", t0, 0.5, 4, 8, &err);
	int ping;

	assert_non_null(f);
	assert_int_equal(mkdir(dir, 0755), 0);
	ping = flent_series(f, "Ping (ms) ICMP", "ms");
	for (double x = 0; x < 8; x += 0.25)
		flent_raw(f, ping, t0 + x, ms, NULL);
	fixture_run_write(dir, f);
}

/* cmp_runs: runs by id under the results directory, every metric
 * computed, one asked for, and what is bad input. */
static void runs_compared_by_id(void **state)
{
	char res[] = "/tmp/airlab-test-cmpruns.XXXXXX", path[256], a_id[256];
	struct cmp_result r[CMP_MAX_METRICS];
	struct cmp_request rq = {.a = "r1", .b = "r2", .threshold = NAN};
	size_t nm, lat = 0;
	const struct cmp_metric *all = cmp_metrics(&nm);
	struct al_err err;

	(void)state;
	assert_non_null(mkdtemp(res));
	rq.results = res;
	snprintf(path, sizeof(path), "%s/r1", res);
	ping_run(path, 10);
	snprintf(path, sizeof(path), "%s/r2", res);
	ping_run(path, 30);
	for (size_t i = 0; i < nm; i++)
		if (!strcmp(all[i].name, "latency"))
			lat = i;
	if (cmp_runs(&rq, a_id, sizeof(a_id), r, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(a_id, "r1");
	assert_true(r[lat].a_median == 10 && r[lat].b_median == 30);
	assert_int_equal(r[lat].verdict, CMP_WORSE);

	rq.b = "nosuch";
	assert_int_equal(cmp_runs(&rq, a_id, sizeof(a_id), r, &err), -1);
	assert_true(err.bad_input);
	assert_non_null(strstr(err.msg, "no run 'nosuch' in "));
	/* The newest complete run before r2: none in an empty store. */
	rq.b = "r2";
	rq.last_good = true;
	assert_int_equal(cmp_runs(&rq, a_id, sizeof(a_id), r, &err), -1);
	snprintf(path, sizeof(path), "rm -rf '%s'", res);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(mann_whitney_by_hand),
	    cmocka_unit_test(equal_distributions_are_no_change),
	    cmocka_unit_test(shifts_are_found),
	    cmocka_unit_test(too_few_samples),
	    cmocka_unit_test(load_window),
	    cmocka_unit_test(runs_compared_by_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
