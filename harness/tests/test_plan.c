/* Nightly plans: a good plan, and one file:line error per kind of bad
 * input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../strategy/plan.h"

static struct plan plan;

static int load(const char *text, struct al_err *err)
{
	return plan_load_buf(&plan, "/plans/p.yaml", text, strlen(text), err);
}

static void good_plan(void **state)
{
	struct al_err err;

	(void)state;
	if (load("name: n1\n"
		 "lab: virtual.yaml\n"
		 "topology: /abs/cell.yaml\n"
		 "variants: [stock-6.1, mac80211-6.12]\n"
		 "suites:\n"
		 "  - {name: rrul, length: 20}\n"
		 "  - {name: tcp_nup, streams: 8}\n"
		 "  - {name: ping}\n"
		 "repeat: 3\n"
		 "thresholds: {latency: 0.1, goodput: 0.2}\n",
		 &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(plan.name, "n1");
	assert_string_equal(plan.lab, "/plans/virtual.yaml");
	assert_string_equal(plan.topology, "/abs/cell.yaml");
	assert_int_equal(plan.nvariants, 2);
	assert_string_equal(plan.variants[1], "mac80211-6.12");
	assert_int_equal(plan.nsuites, 3);
	assert_true(plan.suites[0].length_s == 20);
	assert_int_equal(plan.suites[1].streams, 8);
	assert_true(plan.suites[2].length_s == 0);
	assert_int_equal(plan.repeat, 3);
	assert_true(plan_threshold(&plan, "goodput", 0.05) == 0.2);
	assert_true(plan_threshold(&plan, "goodput_up", 0.05) == 0.05);
}

static void bad_plans(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *msg;
	} bad[] = {
	    {"name: n\nvariants: [a]\nsuites: [{name: rrul2}]\n", 3,
	     "unknown suite 'rrul2'"},
	    {"name: n\nvariants: [a]\nsuites: [{name: rrul, length: 0}]\n", 3,
	     "length '0' is not a number of seconds"},
	    {"name: n\nvariants: [a]\nsuites: [{name: rrul, streams: x}]\n", 3,
	     "streams 'x' is not in 1..1024"},
	    {"name: n\nvariants: []\nsuites: [{name: rrul}]\n", 2,
	     "'variants' must be a list"},
	    {"name: n\nvariants: [a]\n", 1, "'suites' must be a list"},
	    {"name: n\nvariants: [a]\nsuites: [{name: rrul}]\nrepeat: 0\n", 4,
	     "repeat '0' is not in 1..100"},
	    {"name: n\nvariants: [a]\nsuites: [{name: rrul}]\n"
	     "thresholds: {jitter: 0.1}\n",
	     4, "unknown key 'jitter'"},
	    {"name: n\nvariants: [a]\nsuites: [{name: rrul}]\n"
	     "thresholds: {latency: -1}\n",
	     4, "latency '-1' is not a fraction"},
	    {"name: n\nvariants: ['a b']\nsuites: [{name: rrul}]\n", 2,
	     "variant 'a b' is not a variant name"},
	    {"name: n\nvariant: [a]\n", 2, "unknown key 'variant'"},
	    {"", 1, "empty file"},
	};
	struct al_err err;
	char want[64];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (load(bad[i].text, &err) == 0)
			fail_msg("plan %zu was accepted", i);
		snprintf(want, sizeof(want), "/plans/p.yaml:%d: ", bad[i].line);
		if (strncmp(err.msg, want, strlen(want)) ||
		    !strstr(err.msg, bad[i].msg))
			fail_msg("plan %zu: got '%s', want '%s...%s'", i,
				 err.msg, want, bad[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(good_plan),
	    cmocka_unit_test(bad_plans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
