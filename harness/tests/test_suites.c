/* Suite definitions: the suite files (suites/) match Flent's tests where
 * Flent has the suite and expand exactly as the C tables they replaced did
 * (the golden), a malformed file is one "path:line" error, the user's
 * directory adds and overrides suites, parameters are checked before
 * anything runs, and the collector turns agent lines into Flent series
 * (and failures into a partial run). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../suites/run.h"
#include "../suites/suites.h"
#include "fixture_repo.h"

static const char *const one[] = {"sta1"};
static const char *const four[] = {"sta1", "sta2", "sta3", "sta4"};

static const struct suite_flow *by_series(const struct suite_plan *p,
					  const char *name)
{
	for (size_t i = 0; i < p->n_flows; i++)
		if (!strcmp(p->flows[i].series, name))
			return &p->flows[i];
	return NULL;
}

static size_t count_kind(const struct suite_plan *p, enum suite_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_flows; i++)
		n += p->flows[i].kind == k;
	return n;
}

static void lists_every_suite(void **state)
{
	(void)state;
	/* By name: what suites/ holds. */
	const char *want[] = {"airtime", "flows100",  "ping",	  "rrul",
			      "rrul_be", "rrul_cell", "rtt_fair", "tcp_1down",
			      "tcp_1up", "tcp_ndown", "tcp_nup"};
	size_t n;
	struct al_err err;
	const struct suite *s = suite_list(&n, &err);

	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(s[i].name, want[i]);
		assert_ptr_equal(suite_find(want[i], &err), &s[i]);
		assert_non_null(s[i].flent_name);
		assert_true(s[i].n_items > 0);
	}
}

static void unknown_suite_lists_known(void **state)
{
	(void)state;
	struct al_err err;

	assert_null(suite_find("rrul2", &err));
	assert_non_null(strstr(err.msg, "unknown suite 'rrul2'"));
	assert_non_null(strstr(err.msg, "rrul_be"));
	assert_non_null(strstr(err.msg, "flows100"));
	assert_null(suite_find(NULL, &err));
}

static void rrul_matches_flent(void **state)
{
	(void)state;
	struct suite_params p = {.stations = one, .n_stations = 1};
	struct suite_plan plan;
	struct al_err err;
	const struct {
		const char *series;
		int tos;
	} want[] = {
	    {"TCP upload BE", 0},	{"TCP upload BK", 0x20},
	    {"TCP upload CS5", 0xa0},	{"TCP upload EF", 0xb8},
	    {"TCP download BE", 0},	{"TCP download BK", 0x20},
	    {"TCP download CS5", 0xa0}, {"TCP download EF", 0xb8},
	    {"Ping (ms) UDP EF", 0xb8}, {"Ping (ms) UDP BK", 0x20},
	    {"Ping (ms) UDP BE", 0},	{"Ping (ms) ICMP", 0},
	};

	assert_int_equal(
	    suite_expand(suite_find("rrul", &err), &p, &plan, &err), 0);
	assert_true(plan.length_s == 60 && plan.delay_s == 5 &&
		    plan.total_s == 70 && fabs(plan.step_s - 0.2) < 1e-12);
	assert_int_equal(plan.n_flows, 12);
	assert_int_equal(count_kind(&plan, SUITE_TCP_UP), 4);
	assert_int_equal(count_kind(&plan, SUITE_TCP_DOWN), 4);
	assert_int_equal(count_kind(&plan, SUITE_UDP_RTT), 3);
	assert_int_equal(count_kind(&plan, SUITE_ICMP), 1);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct suite_flow *f = by_series(&plan, want[i].series);

		assert_non_null(f);
		assert_int_equal(f->tos, want[i].tos);
	}
	/* Bulk flows wait 5 s and run 60; probes cover all 70 s. */
	const struct suite_flow *up = by_series(&plan, "TCP upload EF");
	const struct suite_flow *icmp = by_series(&plan, "Ping (ms) ICMP");

	assert_true(up->delay_s == 5 && up->length_s == 60);
	assert_true(icmp->delay_s == 0 && icmp->length_s == 0);
	assert_int_equal(icmp->interval_ms, 200);
	assert_int_equal(by_series(&plan, "Ping (ms) UDP EF")->interval_ms, 5);

	char cmd[256];

	assert_int_equal(suite_flow_command(&plan, 3, "10.0.0.1", 5201, 5202,
					    NULL, cmd, sizeof(cmd)),
			 0);
	assert_string_equal(cmd, "flow tcp-up up3 10.0.0.1 5201 tos=184 "
				 "delay_ms=5000 length_ms=60000");
	assert_int_equal(suite_flow_command(&plan, 8, "10.0.0.1", 5201, 5202,
					    NULL, cmd, sizeof(cmd)),
			 0);
	assert_string_equal(cmd, "probe udp udp8 10.0.0.1 5202 tos=184 "
				 "interval_ms=5");
	/* A station on a station host: its flows are bound to its radio. */
	assert_int_equal(suite_flow_command(&plan, 3, "10.0.0.1", 5201, 5202,
					    "sta3", cmd, sizeof(cmd)),
			 0);
	assert_string_equal(cmd, "flow tcp-up up3 10.0.0.1 5201 tos=184 "
				 "delay_ms=5000 length_ms=60000 dev=sta3");
	/* Too short for the dev= part: refused, not cut. */
	assert_int_equal(suite_flow_command(&plan, 3, "10.0.0.1", 5201, 5202,
					    "sta3", cmd, 70),
			 -1);
	suite_plan_free(&plan);
}

/* rrul_cell: rrul's twelve flows and probes from every station, each
 * series named after its station, markings as rrul's. */
static void rrul_cell_runs_rrul_on_every_station(void **state)
{
	(void)state;
	static const char *const four[] = {"sta1", "sta2", "sta3", "sta4"};
	struct suite_params p = {.stations = four, .n_stations = 4};
	struct suite_plan plan;
	struct al_err err;

	assert_int_equal(
	    suite_expand(suite_find("rrul_cell", &err), &p, &plan, &err), 0);
	assert_int_equal(plan.n_flows, 48);
	assert_int_equal(count_kind(&plan, SUITE_TCP_UP), 16);
	assert_int_equal(count_kind(&plan, SUITE_UDP_RTT), 12);
	for (size_t i = 0; i < 4; i++) {
		char name[64];
		const struct suite_flow *f;

		snprintf(name, sizeof(name), "TCP download EF %s", four[i]);
		assert_non_null(f = by_series(&plan, name));
		assert_int_equal(f->station, i);
		assert_int_equal(f->tos, 0xb8);
		snprintf(name, sizeof(name), "Ping (ms) UDP BK %s", four[i]);
		assert_non_null(f = by_series(&plan, name));
		assert_int_equal(f->tos, 0x20);
	}
	assert_null(by_series(&plan, "TCP upload BE"));
	suite_plan_free(&plan);
}

static void streams_and_stations_expand(void **state)
{
	(void)state;
	struct suite_params p = {
	    .stations = one, .n_stations = 1, .streams = 7};
	struct suite_plan plan;
	struct al_err err;

	assert_int_equal(
	    suite_expand(suite_find("tcp_nup", &err), &p, &plan, &err), 0);
	assert_int_equal(count_kind(&plan, SUITE_TCP_UP), 7);
	assert_non_null(by_series(&plan, "TCP upload::1"));
	assert_non_null(by_series(&plan, "TCP upload::7"));
	suite_plan_free(&plan);

	/* rtt_fair: Flent's labels and markings, one set per station. */
	p = (struct suite_params){.stations = four, .n_stations = 4};
	assert_int_equal(
	    suite_expand(suite_find("rtt_fair", &err), &p, &plan, &err), 0);
	assert_int_equal(plan.n_flows, 12);
	assert_int_equal(by_series(&plan, "TCP upload BE1 sta1")->tos, 0);
	assert_int_equal(by_series(&plan, "TCP download BK1 sta3")->tos, 0x20);
	assert_int_equal(by_series(&plan, "TCP upload BK2 sta4")->station, 3);
	assert_non_null(by_series(&plan, "Ping (ms) ICMP2 sta2"));
	suite_plan_free(&plan);

	/* flows100: 100 downloads round-robin over the stations, together. */
	assert_int_equal(
	    suite_expand(suite_find("flows100", &err), &p, &plan, &err), 0);
	assert_int_equal(count_kind(&plan, SUITE_TCP_DOWN), 100);
	size_t per[4] = {0};

	for (size_t i = 0; i < plan.n_flows; i++)
		if (plan.flows[i].kind == SUITE_TCP_DOWN) {
			per[plan.flows[i].station]++;
			assert_true(plan.flows[i].delay_s == plan.delay_s);
		}
	assert_true(per[0] == 25 && per[1] == 25 && per[2] == 25 &&
		    per[3] == 25);
	suite_plan_free(&plan);
}

static void bad_parameters_are_refused(void **state)
{
	(void)state;
	const struct suite *rrul = suite_find("rrul", NULL);
	struct suite_params p = {.stations = one, .n_stations = 1};
	struct suite_plan plan;
	struct al_err err;

	p.length_s = -3;
	assert_int_equal(suite_expand(rrul, &p, &plan, &err), -1);
	assert_non_null(strstr(err.msg, "--length -3"));
	p.length_s = 10;
	p.step_s = 0.001;
	assert_int_equal(suite_expand(rrul, &p, &plan, &err), -1);
	assert_non_null(strstr(err.msg, "--step"));
	p.step_s = 20;
	assert_int_equal(suite_expand(rrul, &p, &plan, &err), -1);
	p.step_s = 0;
	p.streams = 3;
	assert_int_equal(suite_expand(rrul, &p, &plan, &err), -1);
	assert_non_null(strstr(err.msg, "no --streams"));
	p.streams = 0;
	p.n_stations = 0;
	assert_int_equal(suite_expand(rrul, &p, &plan, &err), -1);
	assert_non_null(strstr(err.msg, "no stations"));
	const char *const dup[] = {"sta1", "sta1"};

	p.stations = dup;
	p.n_stations = 2;
	assert_int_equal(suite_expand(rrul, &p, &plan, &err), -1);
	assert_non_null(strstr(err.msg, "twice"));
	p.stations = one;
	p.n_stations = 1;
	p.cc = "bbr; rm";
	assert_int_equal(suite_expand(rrul, &p, &plan, &err), -1);
	/* a typo is refused before the lab: bad input, the known listed */
	p.cc = "notacc";
	assert_int_equal(suite_expand(rrul, &p, &plan, &err), -1);
	assert_true(err.bad_input);
	assert_non_null(strstr(err.msg, "'notacc' is not a Linux TCP "
					"congestion control (bbr, bic"));
	p.cc = "cub"; /* a part of a name is not one */
	assert_int_equal(suite_expand(rrul, &p, &plan, &err), -1);
	p.cc = "bbr";
	assert_int_equal(suite_expand(rrul, &p, &plan, &err), 0);
	char cmd[256];

	suite_flow_command(&plan, 0, "10.0.0.1", 1, 2, NULL, cmd, sizeof(cmd));
	assert_non_null(strstr(cmd, " cc=bbr"));
	suite_plan_free(&plan);
}

static void collector_builds_series_and_marks_failures(void **state)
{
	(void)state;
	struct suite_params p = {
	    .stations = one, .n_stations = 1, .length_s = 2};
	struct suite_plan plan;
	struct suite_outcome res;
	struct al_err err;
	struct suite_collector *c;
	struct flent_file *f;
	const double t0 = 1700000000.0;
	char line[256];

	assert_int_equal(
	    suite_expand(suite_find("tcp_1up", &err), &p, &plan, &err), 0);
	c = suite_collector_new(&plan, t0, &err);
	assert_non_null(c);
	/* plan: up0 = TCP upload, icmp1 = Ping (ms) ICMP */
	assert_int_equal(suite_collect_line(c, 0,
					    "e up0 1700000005.0 connected "
					    "0.3 ms",
					    &err),
			 0);
	for (int k = 1; k <= 10; k++) {
		snprintf(line, sizeof(line),
			 "s up0 %.3f 50.0 dur=0.2 tcp_cwnd=20 tcp_rtt=3.5",
			 t0 + 5 + 0.2 * k);
		assert_int_equal(suite_collect_line(c, 0, line, &err), 0);
	}
	assert_int_equal(suite_collect_line(c, 0,
					    "s icmp1 1700000006.0 2.5 "
					    "seq=5",
					    &err),
			 0);
	assert_int_equal(
	    suite_collect_line(c, 0, "l icmp1 1700000006.2 seq=6", &err), 0);
	assert_int_equal(suite_collect_line(c, 0,
					    "sum up0 bytes=1 connected=1 "
					    "failed=0 first_ms=1.5",
					    &err),
			 0);
	assert_int_equal(suite_collect_line(c, 0,
					    "sum icmp1 sent=2 received=1 "
					    "lost=1",
					    &err),
			 0);
	assert_int_equal(suite_collect_line(c, 0, "s nosuch 1.0 1.0", &err),
			 -1);
	assert_non_null(strstr(err.msg, "nosuch"));
	f = suite_collector_finish(c, &res);
	assert_false(res.partial);
	assert_int_equal(res.flows, 1);
	assert_int_equal(res.flows_connected, 1);
	assert_int_equal(res.flows_started_2s, 1);
	int up = flent_series_find(f, "TCP upload");
	int icmp = flent_series_find(f, "Ping (ms) ICMP");

	assert_true(up >= 0 && icmp >= 0);
	assert_int_equal(flent_raw_count(f, up), 10);
	assert_int_equal(flent_raw_count(f, icmp), 2);
	json_t *raw = flent_raw_json(f, up);

	assert_true(json_number_value(json_object_get(json_array_get(raw, 0),
						      "tcp_cwnd")) == 20);
	json_decref(raw);
	json_t *md = flent_metadata(f);

	assert_string_equal(json_string_value(json_object_get(md, "NAME")),
			    "tcp_1up");
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(md, "HOSTS"), 0)),
	    "sta1");
	flent_free(f);

	/* A flow that errors makes the run partial, with the reason. */
	c = suite_collector_new(&plan, t0, &err);
	suite_collect_line(c, 0,
			   "e up0 1700000005.0 error connect to 10.0.0.1 "
			   "port 5201: Connection refused",
			   &err);
	f = suite_collector_finish(c, &res);
	assert_true(res.partial);
	assert_non_null(strstr(res.reasons, "TCP upload (up0 on sta1): error "
					    "connect"));
	assert_non_null(strstr(res.reasons, "no summary"));
	assert_int_equal(res.flows_connected, 0);
	flent_free(f);

	/* Samples in another clock than the run's (a guest under icount
	 * started in the controller's clock) are not lost in silence: the
	 * run is partial and says so, as is a flow without samples. */
	c = suite_collector_new(&plan, t0, &err);
	suite_collect_line(c, 0, "e up0 1700090005.0 connected 0.3 ms", &err);
	for (int k = 1; k <= 3; k++) {
		snprintf(line, sizeof(line), "s up0 %.3f 50.0 dur=0.2",
			 t0 + 90005 + 0.2 * k);
		assert_int_equal(suite_collect_line(c, 0, line, &err), 0);
	}
	suite_collect_line(c, 0, "sum up0 bytes=1 connected=1 failed=0", &err);
	f = suite_collector_finish(c, &res);
	assert_true(res.partial);
	assert_non_null(strstr(res.reasons, "3 samples timed outside the run"));
	flent_free(f);

	c = suite_collector_new(&plan, t0, &err);
	suite_collect_line(c, 0, "e up0 1700000005.0 connected 0.3 ms", &err);
	suite_collect_line(c, 0, "sum up0 bytes=0 connected=1 failed=0", &err);
	f = suite_collector_finish(c, &res);
	assert_true(res.partial);
	assert_non_null(strstr(res.reasons, "TCP upload (up0): no samples"));
	flent_free(f);
	suite_plan_free(&plan);
}

/* ---- suite files ----------------------------------------------------------
 */

/* Each malformed file is one "path:line: what" error, bad input. */
static void bad_suite_files_say_where(void **state)
{
	(void)state;
	static const struct bad_case cases[] = {
	    {"suites/unknown-key.suite", 5, "suite: unknown key 'lenght'"},
	    {"suites/bad-kind.suite", 7,
	     "kind 'tcp' is not one of tcp-up, tcp-down, udp, icmp"},
	    {"suites/no-series.suite", 6, "flows item: 'series' is missing"},
	    {"suites/no-flows.suite", 1, "'flows' must be a list of 1..64"},
	    {"suites/bad-scope.suite", 6,
	     "scope 'all' is not one of one, each, streams"},
	    {"suites/bad-escape.suite", 6, "'%s' is not one of %i (copy"},
	    {"suites/each-alike.suite", 6, "scope each needs %h or %i"},
	    {"suites/streams-alike.suite", 8, "scope streams needs %i"},
	    {"suites/lists-differ.suite", 10,
	     "'markings' has 3 items and 'labels' 4"},
	    {"suites/two-markings.suite", 9, "'marking' and 'markings' both"},
	    {"suites/bad-marking.suite", 7, "marking 'XX9' is not a DSCP name"},
	    {"suites/bad-list-marking.suite", 12,
	     "marking '46' is not a DSCP name"},
	    {"suites/streams-no-param.suite", 5, "go together"},
	    {"suites/streams-scope.suite", 7,
	     "scope streams needs the suite's 'streams'"},
	    {"suites/streams-unused.suite", 5, "no flow has scope streams"},
	    {"suites/interval-tcp.suite", 6,
	     "interval_ms is for udp and icmp probes, not tcp-up"},
	    {"suites/dup-series.suite", 8,
	     "series 'Ping (ms) ICMP' is also the flow's at line 6"},
	    {"suites/computed-dup.suite", 11,
	     "'TCP upload sum' is also the name at line 10"},
	    {"suites/bad-op.suite", 10,
	     "op 'max' is not one of sum, avg, fairness"},
	    {"suites/bad-step.suite", 5,
	     "step 0.0125 s is not a whole number of milliseconds"},
	    {"suites/bad-length.suite", 4,
	     "length 'a minute' is not a number of seconds in 1..86400"},
	    {"suites/bad-report.suite", 5, "report 'jitter' is not one of"},
	    {"suites/bad-bulk.suite", 6,
	     "bulk 'sometimes' is not one of false, true"},
	    {"suites/two-lines.suite", 1, "'description' must be one line"},
	    {"suites/syntax.suite", 7, "YAML syntax error"},
	    {"suites/empty.suite", 1, "empty file"},
	    {"suites/top-list.suite", 1, "suite must be a map, not a list"},
	    {"suites/no-flent.suite", 1, "'flent' is missing"},
	    {"suites/Upper.suite", 1, "the suite's name 'Upper'"},
	};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct suite s;
		struct al_err err = {0};

		data_path(path, sizeof(path), cases[i].file);
		if (suite_load_file(&s, path, &err) == 0)
			fail_msg("%s loaded", path);
		assert_err_at(&err, path, cases[i].line, cases[i].fragment);
		assert_true(err.bad_input);
	}
}

/* Every field there is, read back. */
static void every_field_reads_back(void **state)
{
	(void)state;
	char path[PATH_MAX];
	struct suite s;
	struct al_err err;

	data_path(path, sizeof(path), "suites/all-fields.suite");
	if (suite_load_file(&s, path, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(s.name, "all-fields");
	assert_string_equal(s.path, path);
	assert_null(s.overrides);
	assert_string_equal(s.flent_name, "rtt_fair");
	assert_string_equal(s.plot, "all_scaled");
	assert_true(s.length_s == 30 && s.delay_s == 2.5);
	assert_int_equal(s.step_ms, 50);
	assert_int_equal(s.streams, 3);
	assert_string_equal(s.streams_param, "upload_streams");
	assert_int_equal(s.flags, SUITE_FAIRNESS | SUITE_STARTUP);
	assert_int_equal(s.n_items, 4);
	assert_int_equal(s.items[0].kind, SUITE_TCP_UP);
	assert_int_equal(s.items[0].scope, SUITE_N_SPREAD);
	assert_string_equal(s.items[0].marking, "AF41");
	assert_true(s.items[0].bulk);
	assert_int_equal(s.items[1].kind, SUITE_TCP_DOWN);
	assert_int_equal(s.items[1].scope, SUITE_EACH);
	assert_int_equal(s.items[1].n_labels, 2);
	assert_string_equal(s.items[1].labels[1], "BK1");
	assert_string_equal(s.items[1].markings[1], "CS1");
	assert_string_equal(s.items[1].ping_labels[0], "P1");
	assert_false(s.items[1].bulk);
	assert_null(s.items[1].marking);
	assert_int_equal(s.items[2].kind, SUITE_UDP_RTT);
	assert_int_equal(s.items[2].scope, SUITE_ONE);
	assert_int_equal(s.items[2].interval_ms, 20);
	assert_int_equal(s.items[3].kind, SUITE_ICMP);
	assert_int_equal(s.items[3].interval_ms, 100);
	assert_int_equal(s.n_computed, 3);
	assert_string_equal(s.computed[1].name, "TCP download avg");
	assert_string_equal(s.computed[1].prefix, "TCP download ");
	assert_int_equal(s.computed[1].op, FLENT_AVG);
	assert_string_equal(s.computed[2].units, "Idx");
	assert_int_equal(s.computed[2].op, FLENT_FAIRNESS);

	/* And it runs: 3 streams, 2 stations. */
	static const char *const two[] = {"sta1", "sta2"};
	struct suite_params p = {.stations = two, .n_stations = 2};
	struct suite_plan plan;

	assert_int_equal(suite_expand(&s, &p, &plan, &err), 0);
	assert_int_equal(plan.n_flows, 3 + 2 + 1 + 2);
	assert_non_null(by_series(&plan, "TCP download BK1 sta2"));
	assert_int_equal(by_series(&plan, "TCP download BK1 sta2")->tos, 0x20);
	assert_non_null(by_series(&plan, "Ping (ms) UDP sta1 100%"));
	assert_int_equal(by_series(&plan, "Ping (ms) ICMP2 sta2")->interval_ms,
			 100);
	assert_true(by_series(&plan, "Ping (ms) ICMP2 sta2")->delay_s == 2.5);
	suite_plan_free(&plan);
	suite_free(&s);
}

/* A scratch user directory ($AIRLAB_SUITES) with files written in it. */
static char user_dir[64];

static void user_file(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", user_dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void use_user_dir(const char *dir)
{
	setenv("AIRLAB_SUITES", dir, 1);
	suite_reload();
}

static const char user_rrul[] =
    "description: my rrul, one flow\n"
    "flent: rrul\n"
    "plot: all_scaled\n"
    "length: 10\n"
    "flows:\n"
    "  - {kind: tcp-up, series: TCP upload BE, bulk: true}\n";

/* The user's directory adds suites and replaces the tree's, visibly; a
 * file there that does not load is every lookup's error. */
static void user_directory_overrides(void **state)
{
	(void)state;
	char tree_rrul[PATH_MAX], path[PATH_MAX];
	const struct suite *s;
	struct al_err err;
	size_t n, n_tree;

	assert_non_null(suite_list(&n_tree, &err));
	repo_path(tree_rrul, sizeof(tree_rrul), "suites/rrul.suite");
	snprintf(user_dir, sizeof(user_dir), "/tmp/airlab-test-suites.XXXXXX");
	assert_non_null(mkdtemp(user_dir));
	user_file("rrul.suite", user_rrul);
	user_file("mine.suite", user_rrul);
	user_file("README", "not a suite\n");
	user_file(".hidden.suite", "not: read\n");
	use_user_dir(user_dir);

	assert_non_null(s = suite_list(&n, &err));
	assert_int_equal(n, n_tree + 1); /* mine; rrul replaced */
	assert_non_null(s = suite_find("rrul", &err));
	snprintf(path, sizeof(path), "%s/rrul.suite", user_dir);
	assert_string_equal(s->path, path);
	assert_string_equal(s->overrides, tree_rrul);
	assert_string_equal(s->description, "my rrul, one flow");
	assert_non_null(s = suite_find("mine", &err));
	assert_null(s->overrides);
	assert_null(suite_find("ping", &err)->overrides);

	/* One bad file: nothing loads, and the error says where. */
	user_file("zz-bad.suite", "description: x\nflent: ping\nplot: ping\n"
				  "length: 60\nflows:\n  - {kind: icmpv6, "
				  "series: x}\n");
	use_user_dir(user_dir);
	snprintf(path, sizeof(path), "%s/zz-bad.suite", user_dir);
	for (int k = 0; k < 2; k++) {
		memset(&err, 0, sizeof(err));
		assert_null(suite_find("ping", &err));
		assert_err_at(&err, path, 6, "kind 'icmpv6' is not one of");
		assert_true(err.bad_input);
	}
	assert_null(suite_list(&n, &err));
	assert_int_equal(n, 0);
	unlink(path);

	/* $AIRLAB_SUITES that is not there is a mistake too. */
	use_user_dir("/nonexistent/airlab-suites");
	assert_null(suite_find("ping", &err));
	assert_true(err.bad_input);
	assert_string_equal(err.msg, "AIRLAB_SUITES=/nonexistent/"
				     "airlab-suites: No such file or "
				     "directory");

	/* The same directory as the tree's is the tree's. */
	repo_path(path, sizeof(path), "suites");
	use_user_dir(path);
	assert_non_null(s = suite_find("rrul", &err));
	assert_null(s->overrides);

	for (const char *f = "rrul.suite\0mine.suite\0README\0.hidden.suite\0";
	     *f; f += strlen(f) + 1) {
		snprintf(path, sizeof(path), "%s/%s", user_dir, f);
		unlink(path);
	}
	assert_int_equal(rmdir(user_dir), 0);
	use_user_dir("");
}

/* Without the tree's suites there is nothing to run: said, not empty. */
static void missing_tree_is_an_error(void **state)
{
	(void)state;
	char root[PATH_MAX];
	struct al_err err;
	size_t n;

	snprintf(root, sizeof(root), "%s", repo_root());
	setenv("AIRLAB_ROOT", "/nonexistent/airlab", 1);
	suite_reload();
	assert_null(suite_list(&n, &err));
	assert_non_null(strstr(err.msg, "/nonexistent/airlab/suites: No such "
					"file or directory"));
	setenv("AIRLAB_ROOT", root, 1);
	suite_reload();
	assert_non_null(suite_list(&n, &err));
}

/* ---- the golden expansion ------------------------------------------------
 * Every suite's definition and its expansion for a few parameter sets, as
 * text: harness/tests/data/suites/expansion.golden was written from the C
 * tables the suite files replaced, so a suite file that changes what runs
 * (a series name, a marking, a delay) fails here. After a deliberate
 * change: AIRLAB_GOLDEN_WRITE=1 build/tests/test_suites rewrites it. */

static const char *const three[] = {"sta1", "sta2", "sta3"};
static const char *const five[] = {"sta1", "sta2", "sta3", "sta4", "sta5"};

static const struct golden_params {
	const char *name;
	struct suite_params p;
} golden_params[] = {
    {"default, 1 station", {.stations = one, .n_stations = 1}},
    {"--streams 4, 1 station",
     {.stations = one, .n_stations = 1, .streams = 4}},
    {"3 stations", {.stations = three, .n_stations = 3}},
    {"--streams 5, 3 stations",
     {.stations = three, .n_stations = 3, .streams = 5}},
    /* More stations than rtt_fair has labels: they cycle. */
    {"--length 10 --step 0.5 --cc bbr, 5 stations",
     {.stations = five,
      .n_stations = 5,
      .length_s = 10,
      .step_s = 0.5,
      .cc = "bbr"}},
};

static const char *op_name(enum flent_op op)
{
	return op == FLENT_SUM ? "sum" : op == FLENT_AVG ? "avg" : "fairness";
}

static void dump_plan(FILE *out, const struct suite *s,
		      const struct suite_plan *plan)
{
	char cmd[512];

	fprintf(out,
		"    plan length %g delay %g total %g step %g streams %u\n",
		plan->length_s, plan->delay_s, plan->total_s, plan->step_s,
		plan->streams);
	for (size_t i = 0; i < plan->n_flows; i++) {
		const struct suite_flow *f = &plan->flows[i];

		assert_int_equal(suite_flow_command(plan, i, "10.0.0.1", 5201,
						    5202, NULL, cmd,
						    sizeof(cmd)),
				 0);
		fprintf(out, "    \"%s\" %s %s %s: %s\n", f->series,
			suite_kind_name(f->kind), plan->stations[f->station],
			f->marking, cmd);
	}
	/* What each computed series is made of (run.c's prefix match). */
	for (size_t k = 0; k < s->n_computed; k++) {
		const struct suite_computed *c = &s->computed[k];

		fprintf(out, "    computed \"%s\" %s (%s) of", c->name,
			op_name(c->op), c->units);
		for (size_t i = 0; i < plan->n_flows; i++)
			if (!strncmp(plan->flows[i].series, c->prefix,
				     strlen(c->prefix)))
				fprintf(out, " %s", plan->flows[i].id);
		fprintf(out, "\n");
	}
}

static void dump_suite(FILE *out, const struct suite *s)
{
	fprintf(out, "suite %s\n", s->name);
	fprintf(out, "  description %s\n", s->description);
	fprintf(out, "  flent %s, plot %s\n", s->flent_name, s->plot);
	fprintf(out,
		"  length %g s, delay %g s, step %u ms, streams %u (%s), "
		"flags%s%s\n",
		s->length_s, s->delay_s, s->step_ms, s->streams,
		s->streams_param ? s->streams_param : "-",
		s->flags & SUITE_FAIRNESS ? " fairness" : "",
		s->flags & SUITE_STARTUP ? " startup" : "");
	for (size_t k = 0; k < s->n_computed; k++)
		fprintf(out, "  computed \"%s\" over \"%s\" %s %s\n",
			s->computed[k].name, s->computed[k].prefix,
			op_name(s->computed[k].op), s->computed[k].units);
	for (size_t g = 0; g < sizeof(golden_params) / sizeof(golden_params[0]);
	     g++) {
		struct suite_plan plan;
		struct al_err err;

		fprintf(out, "  params %s\n", golden_params[g].name);
		if (suite_expand(s, &golden_params[g].p, &plan, &err) < 0) {
			fprintf(out, "    error%s: %s\n",
				err.bad_input ? " (input)" : "", err.msg);
			continue;
		}
		dump_plan(out, s, &plan);
		suite_plan_free(&plan);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct suite *const *)a)->name,
		      (*(const struct suite *const *)b)->name);
}

/* The whole golden text for the suites suite_list() gives, by name (the
 * order they are listed in is not what the golden holds). */
static char *dump_all(void)
{
	char *buf = NULL;
	size_t len = 0, n;
	FILE *out = open_memstream(&buf, &len);
	struct al_err err;
	const struct suite *s = suite_list(&n, &err);
	const struct suite **sorted = calloc(n, sizeof(*sorted));

	assert_non_null(out);
	if (!s)
		fail_msg("%s", err.msg);
	assert_non_null(sorted);
	for (size_t i = 0; i < n; i++)
		sorted[i] = &s[i];
	qsort(sorted, n, sizeof(*sorted), by_name);
	fprintf(out, "# Written by harness/tests/test_suites.c "
		     "(AIRLAB_GOLDEN_WRITE=1); do not edit by hand.\n");
	for (size_t i = 0; i < n; i++)
		dump_suite(out, sorted[i]);
	free(sorted);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static void expansion_matches_golden(void **state)
{
	(void)state;
	char path[PATH_MAX], *line = NULL;
	char *got = dump_all();
	const char *g = got;
	size_t cap = 0, glen;
	int n = 0;
	FILE *f;

	data_path(path, sizeof(path), "suites/expansion.golden");
	if (getenv("AIRLAB_GOLDEN_WRITE")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		assert_int_equal(fclose(f), 0);
	}
	if (!(f = fopen(path, "r")))
		fail_msg("%s: cannot open (AIRLAB_GOLDEN_WRITE=1 writes it)",
			 path);
	/* Line by line: the first that differs is the failure. */
	while (getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\n")] = 0;
		glen = strcspn(g, "\n");
		n++;
		if (strlen(line) != glen || strncmp(line, g, glen))
			fail_msg("%s:%d: the expansion differs:\n  want: %s\n  "
				 "got:  %.*s",
				 path, n, line, (int)glen, g);
		g += glen + (g[glen] == '\n');
	}
	if (*g)
		fail_msg("%s:%d: the expansion goes on: %.*s", path, n + 1,
			 (int)strcspn(g, "\n"), g);
	fclose(f);
	free(line);
	free(got);
}

int main(void)
{
	/* The tree's suites only, whatever the user has. */
	setenv("AIRLAB_SUITES", "", 1);
	repo_root();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(lists_every_suite),
	    cmocka_unit_test(unknown_suite_lists_known),
	    cmocka_unit_test(rrul_matches_flent),
	    cmocka_unit_test(rrul_cell_runs_rrul_on_every_station),
	    cmocka_unit_test(streams_and_stations_expand),
	    cmocka_unit_test(bad_parameters_are_refused),
	    cmocka_unit_test(collector_builds_series_and_marks_failures),
	    cmocka_unit_test(bad_suite_files_say_where),
	    cmocka_unit_test(every_field_reads_back),
	    cmocka_unit_test(user_directory_overrides),
	    cmocka_unit_test(missing_tree_is_an_error),
	    cmocka_unit_test(expansion_matches_golden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
