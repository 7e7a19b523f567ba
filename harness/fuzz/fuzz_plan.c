/* libFuzzer target: nightly plan bytes through plan_load_buf. A load either
 * fails with one "name:line: ..." line or yields a plan within the limits
 * plan.h sets: 1..PLAN_MAX_VARIANTS variant names, 1..PLAN_MAX_SUITES
 * known suites with lengths and streams in range, repeat 1..100, distinct
 * known threshold metrics in 0..10 that plan_threshold returns, and the
 * lab and topology paths resolved against the plan's directory. */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../strategy/plan.h"
#include "../results/compare.h"
#include "../suites/suites.h"

#define DIR  "fuzz"
#define NAME DIR "/plan.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const struct al_err *err)
{
	const char *p = err->msg + strlen(NAME ":");

	if (strncmp(err->msg, NAME ":", strlen(NAME ":")) != 0 ||
	    !isdigit((unsigned char)*p) || strchr(err->msg, '\n'))
		__builtin_trap();
	while (isdigit((unsigned char)*p))
		p++;
	if (strncmp(p, ": ", 2) != 0)
		__builtin_trap();
}

static int variant_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 255)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return 0;
	return 1;
}

/* "" (the default), absolute, or under the plan's directory. */
static int path_ok(const char *s)
{
	return !s[0] || s[0] == '/' || !strncmp(s, DIR "/", strlen(DIR "/"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct plan p;
	struct al_err err;

	if (plan_load_buf(&p, NAME, data, size, &err) < 0) {
		check_error(&err);
		return 0;
	}
	if (p.nvariants < 1 || p.nvariants > PLAN_MAX_VARIANTS ||
	    p.nsuites < 1 || p.nsuites > PLAN_MAX_SUITES || p.repeat < 1 ||
	    p.repeat > 100 || p.nthresholds < 0 ||
	    p.nthresholds > PLAN_MAX_METRICS || !path_ok(p.lab) ||
	    !path_ok(p.topology) || strcmp(p.path, NAME) != 0)
		__builtin_trap();
	for (int i = 0; i < p.nvariants; i++)
		if (!variant_ok(p.variants[i]) || p.variant_line[i] < 1)
			__builtin_trap();
	for (int i = 0; i < p.nsuites; i++) {
		const struct plan_suite *s = &p.suites[i];

		if (!suite_find(s->name, &err) || s->line < 1 ||
		    !(s->length_s == 0 ||
		      (s->length_s >= 1 && s->length_s <= 86400)) ||
		    s->streams > 1024)
			__builtin_trap();
	}
	for (int i = 0; i < p.nthresholds; i++) {
		const char *m = p.thresholds[i].metric;
		double v = p.thresholds[i].value;

		if (!cmp_metric_find(m) || !(v >= 0 && v <= 10) ||
		    plan_threshold(&p, m, -1) != v)
			__builtin_trap();
		for (int j = 0; j < i; j++)
			if (!strcmp(p.thresholds[j].metric, m))
				__builtin_trap();
	}
	return 0;
}
