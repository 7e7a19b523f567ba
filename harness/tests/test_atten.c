/* Attenuators: the lab file's `paths:` map RF paths to channels (found,
 * unknown, duplicate, malformed), the registry finds the medium driver,
 * its settings are checked before any shell is opened, and its parser of
 * airlab-medium replies takes ok / error: / truncated / garbage apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cell/atten.h"
#include "../drivers/atten/medium.h"
#include "../lab/topology.h"
#include "fixture_repo.h"

static const char two_attens[] =
    "lab: t\n"				      /* 1 */
    "hosts:\n"				      /* 2 */
    "  dut1:\n"				      /* 3 */
    "    shell: {driver: ssh}\n"	      /* 4 */
    "attenuators:\n"			      /* 5 */
    "  medium:\n"			      /* 6 */
    "    driver: medium\n"		      /* 7 */
    "    host: dut1\n"			      /* 8 */
    "    paths: path1 path2\n"		      /* 9 */
    "  mc:\n"				      /* 10 */
    "    driver: minicircuits-http\n"	      /* 11 */
    "    paths: \" pathA\tpathB  pathC \"\n"; /* 12 */

/* Loads text as "t.yaml"; fails the test when it does not parse. */
static struct lab *load(const char *text)
{
	struct lab *lab = calloc(1, sizeof(*lab));
	struct al_err err;

	assert_non_null(lab);
	if (lab_load_buf(lab, "t.yaml", text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg);
	return lab;
}

static void drop(struct lab *lab)
{
	lab_free(lab);
	free(lab);
}

static void paths_are_found(void **state)
{
	struct lab *lab = load(two_attens);
	struct atten_path all[ATTEN_MAX_PATHS];
	const struct lab_atten *a = NULL;
	struct al_err err;
	char path[LAB_NAME_MAX];
	int channel = 0;

	(void)state;
	assert_int_equal(atten_paths_check(lab, &err), 0);
	assert_int_equal(atten_path_find(lab, "pathB", &a, &channel, &err), 0);
	assert_ptr_equal(a, &lab->attens[1]);
	assert_int_equal(channel, 2);
	assert_int_equal(atten_path_find(lab, "path1", &a, &channel, &err), 0);
	assert_string_equal(a->name, "medium");
	assert_int_equal(channel, 1);

	assert_int_equal(atten_paths_list(lab, all, ATTEN_MAX_PATHS, &err), 5);
	assert_string_equal(all[0].path, "path1");
	assert_ptr_equal(all[1].atten, &lab->attens[0]);
	assert_int_equal(all[1].channel, 2);
	assert_string_equal(all[4].path, "pathC");
	assert_ptr_equal(all[4].atten, &lab->attens[1]);
	assert_int_equal(all[4].channel, 3);
	/* A list that does not fit is refused, not cut. */
	assert_int_equal(atten_paths_list(lab, all, 4, &err), -1);
	assert_non_null(strstr(err.msg, "more than 4 paths"));

	assert_int_equal(atten_channel_path(lab, &lab->attens[1], 3, path,
					    sizeof(path), &err),
			 0);
	assert_string_equal(path, "pathC");
	assert_int_equal(atten_channel_path(lab, &lab->attens[0], 3, path,
					    sizeof(path), &err),
			 -1);
	assert_string_equal(err.msg, "attenuator medium has no channel 3 "
				     "(channels 1..2: path1 .. path2)");
	assert_int_equal(atten_channel_path(lab, &lab->attens[0], 0, path,
					    sizeof(path), &err),
			 -1);
	assert_ptr_equal(atten_of_binding(lab, &lab->attens[1].binding),
			 &lab->attens[1]);
	assert_null(atten_of_binding(lab, &lab->hosts[0].shell));
	drop(lab);
}

static void unknown_path_lists_known(void **state)
{
	struct lab *lab = load(two_attens);
	const struct lab_atten *a = NULL;
	struct al_err err;
	int channel = -7;

	(void)state;
	assert_int_equal(atten_path_find(lab, "path3", &a, &channel, &err), -1);
	assert_string_equal(err.msg,
			    "t.yaml: no attenuator has RF path 'path3' (known: "
			    "path1, path2, pathA, pathB, pathC)");
	assert_null(a);
	assert_int_equal(channel, -7);
	/* names are exact */
	assert_int_equal(atten_path_find(lab, "Path1", &a, &channel, &err), -1);
	drop(lab);

	lab = load("lab: t\nhosts: {h: {shell: {driver: ssh}}}\n");
	assert_int_equal(atten_path_find(lab, "path1", &a, &channel, &err), -1);
	assert_string_equal(err.msg, "t.yaml: no attenuator has RF path "
				     "'path1' (the lab file names none)");
	drop(lab);
}

static void duplicate_path_refused(void **state)
{
	static const char across[] = "lab: t\n"
				     "hosts: {h: {shell: {driver: ssh}}}\n"
				     "attenuators:\n"
				     "  a1:\n"
				     "    driver: medium\n"
				     "    paths: p1 p2 p3\n" /* 6 */
				     "  a2:\n"
				     "    driver: medium\n"
				     "    host: h\n"
				     "    paths: q1 p2\n"; /* 10 */
	static const char within[] =
	    "lab: t\n"
	    "hosts: {h: {shell: {driver: ssh}}}\n"
	    "attenuators:\n"
	    "  a1: {driver: medium, paths: p1 p2 p1}\n";
	struct lab *lab = load(across);
	struct atten_handle h;
	const struct lab_atten *a;
	struct al_err err;
	int channel;

	(void)state;
	assert_int_equal(atten_paths_check(lab, &err), -1);
	assert_err_at(&err, "t.yaml", 10,
		      "attenuator a2: path 'p2' is already channel 2 of "
		      "attenuator a1 (line 6)");
	/* every entry point refuses the lab, even for another path */
	assert_int_equal(atten_path_find(lab, "p1", &a, &channel, &err), -1);
	assert_err_at(&err, "t.yaml", 10, "'p2' is already channel 2");
	assert_int_equal(atten_open(&h, lab, &lab->attens[0], &err), -1);
	assert_err_at(&err, "t.yaml", 10, "'p2' is already channel 2");
	atten_close(&h);
	drop(lab);

	lab = load(within);
	assert_int_equal(atten_paths_check(lab, &err), -1);
	assert_err_at(&err, "t.yaml", 4,
		      "attenuator a1: path 'p1' is both channel 1 and "
		      "channel 3");
	drop(lab);
}

static void bad_paths_refused(void **state)
{
	static const struct {
		const char *paths; /* NULL: no paths setting */
		int line;
		const char *fragment;
	} cases[] = {
	    {"path1,path2", 6,
	     "attenuator a1: path 'path1,path2' must be 1..63 characters of "
	     "[A-Za-z0-9_-] (separate paths with blanks)"},
	    {"ok p$th", 6, "path 'p$th' must be 1..63 characters"},
	    {"path.1", 6, "path 'path.1' must be"},
	    {"\"a\\nb\"", 6, "path 'a?b' must be"},
	    {"\"  \"", 6, "attenuator a1: 'paths' names no path"},
	    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	     6, "must be 1..63 characters"},
	    {NULL, 4, "attenuator a1: setting 'paths' is missing"},
	};
	char text[512];
	struct al_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab *lab;
		char paths[128] = "";

		if (cases[i].paths)
			snprintf(paths, sizeof(paths), "    paths: %s\n",
				 cases[i].paths);
		snprintf(text, sizeof(text),
			 "lab: t\n"
			 "hosts: {h: {shell: {driver: ssh}}}\n"
			 "attenuators:\n"
			 "  a1:\n"
			 "    driver: medium\n"
			 "%s",
			 paths);
		lab = load(text);
		assert_int_equal(atten_paths_check(lab, &err), -1);
		assert_err_at(&err, "t.yaml", cases[i].line, cases[i].fragment);
		drop(lab);
	}
}

/* The repo's virtual lab covers every path of the 4-station cell. */
static void virtual_lab_has_the_cells_paths(void **state)
{
	struct lab *lab = calloc(1, sizeof(*lab));
	struct topology *topo = calloc(1, sizeof(*topo));
	struct atten_path all[ATTEN_MAX_PATHS];
	char path[PATH_MAX];
	struct al_err err;

	(void)state;
	assert_non_null(lab);
	assert_non_null(topo);
	repo_path(path, sizeof(path), "lab/virtual.yaml");
	if (lab_load(lab, path, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(atten_paths_list(lab, all, ATTEN_MAX_PATHS, &err), 4);
	for (int i = 0; i < 4; i++) {
		char want[16];

		snprintf(want, sizeof(want), "path%d", i + 1);
		assert_string_equal(all[i].path, want);
		assert_int_equal(all[i].channel, i + 1);
		assert_string_equal(all[i].atten->binding.driver, "medium");
	}
	repo_path(path, sizeof(path), "topology/cell-4sta.yaml");
	if (topology_load(topo, path, lab, &err) < 0)
		fail_msg("%s", err.msg);
	for (int i = 0; i < topo->nstations; i++) {
		const struct lab_atten *a;
		int channel;

		if (atten_path_find(lab, topo->stations[i].path, &a, &channel,
				    &err) < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(channel, i + 1);
	}
	free(topo);
	drop(lab);
}

static void registry_finds_medium(void **state)
{
	struct al_err err;

	(void)state;
	assert_ptr_equal(atten_driver("medium", &err), &atten_medium_ops);
	assert_string_equal(atten_medium_ops.name, "medium");
	assert_non_null(atten_medium_ops.open);
	assert_non_null(atten_medium_ops.set_db);
	assert_non_null(atten_medium_ops.get_db);
	assert_non_null(atten_medium_ops.close);
	assert_null(atten_driver("mediu", &err));
	assert_string_equal(err.msg, "unknown attenuator driver 'mediu' "
				     "(known: medium, minicircuits-http, "
				     "minicircuits-telnet, minicircuits-usb)");
}

static void open_errors_name_the_setting(void **state)
{
	static const struct {
		const char *settings;
		int line;
		const char *fragment;
	} cases[] = {
	    {"    driver: nosuch\n", 7,
	     "attenuator a1: unknown attenuator driver 'nosuch' (known: "
	     "medium, minicircuits-http, minicircuits-telnet, "
	     "minicircuits-usb)"},
	    {"    driver: medium\n", 7,
	     "attenuator a1 (driver medium): setting host is missing (the lab "
	     "host whose shell reaches airlab-medium)"},
	    {"    driver: medium\n    host: dut9\n", 7,
	     "attenuator a1: host 'dut9' is not a host of this lab"},
	    {"    driver: medium\n    host: h\n    sock: /x\n", 10,
	     "attenuator a1 (driver medium): unknown setting 'sock' (known: "
	     "host, socket, command, paths)"},
	    {"    driver: medium\n    host: h\n    socket: run/m.sock\n", 10,
	     "attenuator a1: socket 'run/m.sock' must be an absolute path"},
	    {"    driver: medium\n    host: h\n    socket: \"/r/m s\"\n", 10,
	     "socket '/r/m s' must be an absolute path of [A-Za-z0-9_./-]"},
	    {"    driver: medium\n    host: h\n    command: \"x;reboot\"\n", 10,
	     "attenuator a1: command 'x;reboot' must be a path"},
	    {"    driver: medium\n    host: h2\n", 7,
	     "attenuator a1: host h2 has no shell"},
	    {"    driver: medium\n    host: h3\n", 5,
	     "attenuator a1: host h3 shell: unknown shell driver 'telnet' "
	     "(known: ssh)"},
	};
	char text[512];
	struct al_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct atten_handle h;
		struct lab *lab;

		snprintf(text, sizeof(text),
			 "lab: t\n"
			 "hosts:\n"
			 "  h: {shell: {driver: ssh}}\n"
			 "  h2: {power: {driver: qemu}}\n"
			 "  h3: {shell: {driver: telnet}}\n"
			 "attenuators:\n"
			 "  a1:\n"
			 "%s"
			 "    paths: p1\n",
			 cases[i].settings);
		lab = load(text);
		assert_int_equal(atten_open(&h, lab, &lab->attens[0], &err),
				 -1);
		assert_null(h.dev);
		assert_err_at(&err, "t.yaml", cases[i].line, cases[i].fragment);
		atten_close(&h);
		drop(lab);
	}
}

static void reply_ok(void **state)
{
	char msg[128] = "";
	double db = -1;

	(void)state;
	assert_int_equal(medium_reply_parse("path2 12.50\nok\n", "path2", &db,
					    msg, sizeof(msg)),
			 0);
	assert_true(db == 12.5);
	assert_int_equal(medium_reply_parse("path2 0.00\nok\n", "path2", &db,
					    msg, sizeof(msg)),
			 0);
	assert_true(db == 0.0);
	assert_int_equal(
	    medium_reply_parse("p 200\nok", "p", &db, msg, sizeof(msg)), 0);
	assert_true(db == 200.0);
	/* no path: the data is not looked at (set-atten, stats, reset) */
	assert_int_equal(
	    medium_reply_parse("ok\n", NULL, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(
	    medium_reply_parse("medium freq=2437 elapsed_us=5\nradio 0 "
			       "name=ap\nok\n",
			       NULL, NULL, msg, sizeof(msg)),
	    0);
}

static void reply_error(void **state)
{
	char msg[128] = "";
	double db = -1;

	(void)state;
	assert_int_equal(
	    medium_reply_parse("error: unknown path 'path9' (get-atten lists "
			       "them)\n",
			       NULL, NULL, msg, sizeof(msg)),
	    -1);
	assert_string_equal(msg, "unknown path 'path9' (get-atten lists them)");
	assert_int_equal(medium_reply_parse("error: 250 dB is outside 0..200 "
					    "dB\n",
					    "path1", &db, msg, sizeof(msg)),
			 -1);
	assert_string_equal(msg, "250 dB is outside 0..200 dB");
	assert_true(db == -1);
	/* msg may be left out */
	assert_int_equal(medium_reply_parse("error: x\n", NULL, NULL, NULL, 0),
			 -1);
}

static void reply_truncated_or_garbage(void **state)
{
	static const struct {
		const char *text;
		const char *path;
		const char *msg;
	} cases[] = {
	    {"", NULL, "no reply"},
	    {NULL, "p", "no reply"},
	    {"path1 3.00\n", "path1", "reply ended without an 'ok' line"},
	    {"path1 3.0", "path1", "reply ended without an 'ok' line"},
	    {"medium freq=2437\n", NULL, "reply ended without an 'ok' line"},
	    {"o", NULL, "reply ended without an 'ok' line"},
	    {"ok\n", "path1", "no 'path1 DB' line in the reply"},
	    {"path1 1\npath1 2\nok\n", "path1",
	     "more than one 'path1 DB' line in the reply"},
	    {"path2 3.00\nok\n", "path1",
	     "unexpected line 'path2 3.00' (want 'path1 DB')"},
	    {"path1 abc\nok\n", "path1",
	     "unexpected line 'path1 abc' (want 'path1 DB')"},
	    {"path1 3dB\nok\n", "path1",
	     "unexpected line 'path1 3dB' (want 'path1 DB')"},
	    {"path1  3\nok\n", "path1",
	     "unexpected line 'path1  3' (want 'path1 DB')"},
	    {"path1 nan\nok\n", "path1",
	     "unexpected line 'path1 nan' (want 'path1 DB')"},
	    {"path1\nok\n", "path1",
	     "unexpected line 'path1' (want 'path1 DB')"},
	    {"sh: airlab-medium: not found\n", "path1",
	     "unexpected line 'sh: airlab-medium: not found' (want 'path1 "
	     "DB')"},
	    {"ok\nok\n", NULL, "text after 'ok': 'ok'"},
	    {"ok\ngarbage\x01\n", NULL, "text after 'ok': 'garbage?'"},
	    {"OK\n", NULL, "reply ended without an 'ok' line"},
	};
	char msg[128];
	double db;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		db = -1;
		msg[0] = 0;
		if (medium_reply_parse(cases[i].text, cases[i].path, &db, msg,
				       sizeof(msg)) != -2)
			fail_msg("case %zu: '%s' was not refused as a bad "
				 "reply",
				 i, cases[i].text ? cases[i].text : "(null)");
		assert_string_equal(msg, cases[i].msg);
		assert_true(db == -1);
	}
	/* a short msg buffer is cut, not overrun */
	assert_int_equal(medium_reply_parse("x\nok\n", "p", &db, msg, 5), -2);
	assert_string_equal(msg, "unex");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(paths_are_found),
	    cmocka_unit_test(unknown_path_lists_known),
	    cmocka_unit_test(duplicate_path_refused),
	    cmocka_unit_test(bad_paths_refused),
	    cmocka_unit_test(virtual_lab_has_the_cells_paths),
	    cmocka_unit_test(registry_finds_medium),
	    cmocka_unit_test(open_errors_name_the_setting),
	    cmocka_unit_test(reply_ok),
	    cmocka_unit_test(reply_error),
	    cmocka_unit_test(reply_truncated_or_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
