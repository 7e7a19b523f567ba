/* The sweep strategy's plan on the repo's virtual lab and 4-station cell
 * (run from the tree's root, as make check does): the steps an
 * attenuation or rate sweep takes, the stations it watches, and every
 * refusal, each as bad input, before anything is touched. Running a sweep
 * against a lab that fails is in test_bringup (it needs an SSH host). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../strategy/sweep.h"

static struct sweep *planned(const struct sweep_args *a, struct al_err *err,
			     int *rc)
{
	struct sweep *sw = calloc(1, sizeof(*sw));

	assert_non_null(sw);
	sw->cell =
	    (struct cell_paths){"lab/virtual.yaml", "topology/cell-4sta.yaml",
				"mac80211-6.12", "kernel"};
	sw->root = ".";
	sw->results = "/nonexistent/results";
	*rc = sweep_plan(sw, a, err);
	return sw;
}

static void attenuation_steps_end_at_the_last_db(void **state)
{
	struct sweep_args a = {
	    .paths = "path1,path3", .from = "50", .to = "60", .step = "4"};
	struct al_err err;
	struct sweep *sw;
	int rc;

	(void)state;
	sw = planned(&a, &err, &rc);
	if (rc < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(sw->mode, SWEEP_ATTEN);
	assert_int_equal(sw->nx, 4);
	assert_true(sw->x[0] == 50 && sw->x[1] == 54 && sw->x[2] == 58 &&
		    sw->x[3] == 60);
	/* the stations on the moved paths, sta1 and sta3 */
	assert_int_equal(sw->nwatch, 2);
	assert_int_equal(sw->watch[0], 0);
	assert_int_equal(sw->watch[1], 2);
	assert_string_equal(sw->suite, "rtt_fair");
	assert_int_equal(sw->dwell_s, 20);
	assert_int_equal(sw->nvariants, 1);
	assert_string_equal(sw->variants[0], "mac80211-6.12");
	free(sw);

	a = (struct sweep_args){.paths = "path2",
				.from = "60",
				.to = "50",
				.step = "5",
				.variants = "stock-6.1,mac80211-6.12",
				.suite = "ping",
				.dwell_s = 7,
				.length_s = 3};
	sw = planned(&a, &err, &rc);
	if (rc < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(sw->nx, 3);
	assert_true(sw->x[0] == 60 && sw->x[1] == 55 && sw->x[2] == 50);
	assert_int_equal(sw->nvariants, 2);
	assert_string_equal(sw->variants[1], "mac80211-6.12");
	assert_int_equal(sw->nwatch, 1);
	assert_int_equal(sw->watch[0], 1);
	assert_int_equal(sw->dwell_s, 7);
	assert_true(sw->params.length_s == 3);
	free(sw);
}

static void rate_steps_watch_every_station(void **state)
{
	struct sweep_args a = {.rates = "mcs:0,7,15"};
	struct al_err err;
	struct sweep *sw;
	int rc;

	(void)state;
	sw = planned(&a, &err, &rc);
	if (rc < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(sw->mode, SWEEP_MCS);
	assert_int_equal(sw->nx, 3);
	assert_true(sw->x[2] == 15);
	assert_int_equal(sw->nwatch, 4);
	free(sw);
	a.stations = "sta4,sta2";
	sw = planned(&a, &err, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(sw->nwatch, 2);
	assert_int_equal(sw->watch[0], 3);
	assert_int_equal(sw->watch[1], 1);
	free(sw);
}

static void refused(const struct sweep_args *a, const char *want)
{
	struct al_err err = {0};
	struct sweep *sw;
	int rc;

	sw = planned(a, &err, &rc);
	free(sw);
	assert_int_equal(rc, -1);
	if (!strstr(err.msg, want))
		fail_msg("got '%s', want '%s'", err.msg, want);
	assert_true(err.bad_input);
}

static void refusals_are_bad_input(void **state)
{
	(void)state;
	refused(&(struct sweep_args){0}, "give --path P --from DB");
	refused(&(struct sweep_args){.rates = "mcs:1", .from = "3"},
		"--from/--to/--step are for attenuation");
	refused(&(struct sweep_args){.paths = "path1,,path2"},
		"--path 'path1,,path2' is not a list of paths");
	refused(&(struct sweep_args){.paths = "path1", .from = "0", .to = "9"},
		"--step '' is not a number of dB");
	refused(
	    &(struct sweep_args){
		.paths = "path1", .from = "0", .to = "9", .step = "-1"},
	    "--step -1 must be above 0 dB");
	refused(
	    &(struct sweep_args){
		.paths = "path1", .from = "0", .to = "1000", .step = "1"},
	    "more than 200 steps from 0 to 1000 dB by 1");
	refused(
	    &(struct sweep_args){
		.paths = "path9", .from = "0", .to = "9", .step = "3"},
	    "no attenuator has RF path 'path9'");
	refused(&(struct sweep_args){.rates = "vht:3"},
		"--rates 'vht:3': give mcs:N");
	refused(&(struct sweep_args){.rates = "mcs:3.5"},
		"'3.5' is not an HT MCS index");
	/* 2.4 GHz, no basic_rates: hostapd's 1 2 5.5 11 */
	refused(&(struct sweep_args){.rates = "legacy:54"},
		"54 Mb/s is not among the cell's basic rates");
	refused(&(struct sweep_args){.rates = "legacy:7"},
		"'7' is not a 2.4 GHz legacy rate");
	refused(&(struct sweep_args){.rates = "mcs:1", .stations = "sta9"},
		"has no station 'sta9'");
	refused(&(struct sweep_args){.rates = "mcs:1", .suite = "nosuch"},
		"unknown suite 'nosuch'");
	refused(&(struct sweep_args){.rates = "mcs:1", .variants = "nosuch"},
		"unknown variant 'nosuch'");
	refused(&(struct sweep_args){.rates = "mcs:1",
				     .variants = "a,b,c,d,e,f,g,h,i"},
		"give 1 to 8 variants");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(attenuation_steps_end_at_the_last_db),
	    cmocka_unit_test(rate_steps_watch_every_station),
	    cmocka_unit_test(refusals_are_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
