/* airlab compare RUN_A RUN_B: per metric, both medians, the change, its
 * 95% confidence interval, Mann-Whitney's p and a verdict (see
 * harness/results/compare.h). --baseline last-good compares RUN_B with
 * the newest complete run of its suite and variant before it. Exit 1 when
 * any metric got significantly worse. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../results/compare.h"

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
	char buf[4200], a_id[256];
	struct cmp_request rq = {.metric = metric, .threshold = NAN};
	struct cmp_result res[CMP_MAX_METRICS];
	size_t nm;
	const struct cmp_metric *all = cmp_metrics(&nm);
	struct al_err err;
	int rc = cli_parse("compare", argc, argv, o, flags, pos, 2), worse = 0;

	if (rc >= 0)
		return rc;
	rq.metric = metric;
	rq.results = cli_results_dir(o, out, buf, sizeof(buf));
	if (thr && cli_threshold_arg("compare", thr, &rq.threshold) < 0)
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
	if (base ? !pos[0] || pos[1] : !pos[1])
		return cli_usage_error("compare", "which runs?");
	rq.last_good = base != NULL;
	rq.a = base ? NULL : pos[0];
	rq.b = base ? pos[0] : pos[1];
	if (cmp_runs(&rq, a_id, sizeof(a_id), res, &err) < 0) {
		fprintf(stderr, "airlab compare: %s\n", err.msg);
		return err.bad_input ? AL_EXIT_USAGE : AL_EXIT_LAB;
	}
	printf("compare %s (A) -> %s (B)\n", a_id, rq.b);
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
