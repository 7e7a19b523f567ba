/* airlab compare RUN_A RUN_B: per metric, both medians, the change, its
 * 95% confidence interval, Mann-Whitney's p and a verdict (see
 * harness/results/compare.h). --baseline last-good compares RUN_B with
 * the newest complete run of its suite and variant before it. Exit 1 when
 * any metric got significantly worse. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../results/compare.h"
#include "../results/store.h"

/* A run argument: a directory path, or an id under the results dir. */
static void run_dir(const char *results, const char *run, char *out, size_t len)
{
	if (strchr(run, '/'))
		snprintf(out, len, "%s", run);
	else
		snprintf(out, len, "%s/%s", results, run);
}

static void pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", 100 * v);
}

int cli_threshold_arg(const char *cmd, const char *v, double *out)
{
	char *end;

	*out = strtod(v, &end);
	if (!*v || *end || !(*out >= 0 && *out <= 10)) {
		fprintf(stderr,
			"airlab %s: --threshold '%s' is not a fraction from 0 "
			"to 10 (0.05 = 5%%)\n",
			cmd, v);
		return -1;
	}
	return 0;
}

const struct cmp_metric *cli_metric_arg(const char *cmd, const char *name)
{
	struct al_err err;
	const struct cmp_metric *m = cmp_metric_known(name, &err);

	if (!m)
		fprintf(stderr, "airlab %s: %s\n", cmd, err.msg);
	return m;
}

int cmd_compare(int argc, char **argv, struct cli_opts *o)
{
	const char *metric = NULL, *thr = NULL, *base = NULL, *out = NULL;
	const char *pos[2] = {NULL, NULL};
	const struct cli_flag flags[] = {
	    {"--metric", &metric, NULL,
	     "M\tonly metric M (latency, goodput, ...; default all)"},
	    {"--threshold", &thr, NULL,
	     "X\trelative change that counts (default 0.05: 5%)"},
	    {"--baseline", &base, NULL,
	     "last-good\tA is the last complete run of B's suite+variant"},
	    {"--out", &out, NULL,
	     "DIR\tresults directory (default ROOT/results)"},
	    {NULL, NULL, NULL, NULL}};
	char buf[4200], a_id[256], dir_a[4600], dir_b[4600];
	const char *results, *a, *b;
	double threshold = NAN;
	size_t nm;
	const struct cmp_metric *all = cmp_metrics(&nm);
	struct al_err err;
	int rc = cli_parse("compare", argc, argv, o, flags, pos, 2), worse = 0;

	if (rc >= 0)
		return rc;
	results = cli_results_dir(o, out, buf, sizeof(buf));
	if (thr && cli_threshold_arg("compare", thr, &threshold) < 0)
		return AL_EXIT_USAGE;
	if (metric && !cli_metric_arg("compare", metric))
		return AL_EXIT_USAGE;
	if (base && strcmp(base, "last-good")) {
		fprintf(stderr,
			"airlab compare: --baseline '%s': only 'last-good' "
			"is known\n",
			base);
		return AL_EXIT_USAGE;
	}
	if (base ? !pos[0] || pos[1] : !pos[1]) {
		return cli_usage_error("compare", "which runs?");
	}
	b = base ? pos[0] : pos[1];
	a = pos[0];
	if (base) {
		struct store *s;
		int r;

		if (store_open(&s, results, &err) < 0)
			return cli_fail(&err);
		r = store_last_good(s, b, a_id, sizeof(a_id), &err);
		store_close(s);
		if (r < 0)
			return cli_fail(&err);
		if (r > 0) {
			fprintf(stderr,
				"airlab compare: no complete run of the same "
				"suite and variant before %s\n",
				b);
			return AL_EXIT_USAGE;
		}
		a = a_id;
	}
	run_dir(results, a, dir_a, sizeof(dir_a));
	run_dir(results, b, dir_b, sizeof(dir_b));
	/* Every metric is computed before anything is printed: a run that is
	 * missing or unreadable is bad input (exit 2, one line), never an
	 * empty table that exits like a regression. */
	struct cmp_result res[CMP_MAX_METRICS];
	const char *id[2] = {a, b}, *dir[2] = {dir_a, dir_b};
	for (int k = 0; k < 2; k++)
		if (access(dir[k], F_OK) != 0) {
			fprintf(stderr,
				"airlab compare: no run '%s' in %s (airlab "
				"runs lists them)\n",
				id[k], results);
			return AL_EXIT_USAGE;
		}
	for (size_t i = 0; i < nm; i++) {
		const struct cmp_metric *m = &all[i];

		if (metric && strcmp(metric, m->name))
			continue;
		if (cmp_run_dirs(dir_a, dir_b, m,
				 isnan(threshold) ? m->threshold : threshold,
				 &res[i], &err) < 0) {
			fprintf(stderr, "airlab compare: %s\n", err.msg);
			return AL_EXIT_USAGE;
		}
	}
	printf("compare %s (A) -> %s (B)\n", a, b);
	printf("%-22s %10s %10s %9s %21s %8s  %s\n", "metric", "A median",
	       "B median", "change", "95% CI", "p(MWU)", "verdict");
	for (size_t i = 0; i < nm; i++) {
		const struct cmp_metric *m = &all[i];
		const struct cmp_result r = res[i];
		char name[64], ch[16], lo[16], hi[16], ci[40], p[16];

		if (metric && strcmp(metric, m->name))
			continue;
		if (r.verdict == CMP_NODATA && !metric)
			continue; /* e.g. no uploads in a download suite */
		snprintf(name, sizeof(name), "%s (%s)", m->name, m->units);
		pct(ch, sizeof(ch), r.change);
		pct(lo, sizeof(lo), r.ci_lo);
		pct(hi, sizeof(hi), r.ci_hi);
		snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
		if (isnan(r.p_mann_whitney))
			snprintf(p, sizeof(p), "-");
		else if (r.p_mann_whitney < 0.001)
			snprintf(p, sizeof(p), "<0.001");
		else
			snprintf(p, sizeof(p), "%.3f", r.p_mann_whitney);
		printf("%-22s %10.2f %10.2f %9s %21s %8s  %s\n", name,
		       r.a_median, r.b_median, ch, ci, p,
		       cmp_verdict_name(r.verdict));
		worse |= r.verdict == CMP_WORSE;
	}
	return worse ? AL_EXIT_WORSE : AL_EXIT_OK;
}
