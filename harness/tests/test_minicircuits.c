/* The Mini-Circuits attenuator drivers (HTTP and telnet) against an
 * emulator that speaks the boxes' command set on a loopback port: every
 * channel set and read back, the model's range and step enforced before a
 * command goes out, a lab with more paths than the model has channels, an
 * unknown model, and the faults: no answer, garbage, a dropped
 * connection, nothing listening; each error names the attenuator and its
 * address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cell/atten.h"
#include "../drivers/atten/minicircuits.h"
#include "emu_minicircuits.h"

static struct lab lab;
static struct atten_handle h;

/* Opens the lab's attenuator `box` (driver, the emulator's port, paths). */
static int open_box(const char *driver, int port, const char *paths,
		    const char *extra, struct al_err *err)
{
	char text[1024];
	const struct lab_atten *a;
	int ch;

	snprintf(text, sizeof(text),
		 "lab: t\nhosts:\n  dut1:\n    shell: {driver: ssh}\n"
		 "attenuators:\n  box:\n    driver: %s\n"
		 "    address: 127.0.0.1:%d\n    timeout_ms: 400\n"
		 "    paths: %s\n%s",
		 driver, port, paths, extra);
	lab_free(&lab);
	memset(&lab, 0, sizeof(lab));
	if (lab_load_buf(&lab, "t.yaml", text, strlen(text), err) < 0)
		fail_msg("%s", err->msg);
	assert_int_equal(atten_path_find(&lab, "p1", &a, &ch, err), 0);
	return atten_open(&h, &lab, a, err);
}

static void teardown_box(void)
{
	atten_close(&h);
	memset(&h, 0, sizeof(h));
}

static void set_get_every_channel(const char *driver, int http)
{
	struct mc_emu e = {http, "RC4DAT-6000-90", 4, 90, 0, 0, 0, 0, 0};
	static const double v[] = {0, 12.75, 30.5, 90};
	struct al_err err;
	char where[64];
	double db;

	assert_int_equal(mc_emu_start(&e), 0);
	if (open_box(driver, e.port, "p1 p2 p3 p4", "", &err) < 0)
		fail_msg("%s", err.msg);
	for (int ch = 1; ch <= 4; ch++) {
		if (h.ops->set_db(h.dev, ch, v[ch - 1], &err) < 0)
			fail_msg("%s", err.msg);
	}
	for (int ch = 1; ch <= 4; ch++) {
		if (h.ops->get_db(h.dev, ch, &db, &err) < 0)
			fail_msg("%s", err.msg);
		assert_true(db == v[ch - 1]);
	}
	/* Refused before it is sent: the box still holds 12.75. */
	snprintf(where, sizeof(where), "127.0.0.1:%d", e.port);
	assert_int_equal(h.ops->set_db(h.dev, 2, 90.25, &err), -1);
	assert_non_null(strstr(err.msg, "outside RC4DAT-6000-90's range"));
	assert_non_null(strstr(err.msg, "attenuator box"));
	assert_non_null(strstr(err.msg, where));
	assert_int_equal(h.ops->set_db(h.dev, 2, 10.1, &err), -1);
	assert_non_null(strstr(err.msg, "0.25 dB steps"));
	assert_int_equal(h.ops->set_db(h.dev, 2, -1, &err), -1);
	assert_int_equal(h.ops->get_db(h.dev, 2, &db, &err), 0);
	assert_true(db == 12.75);
	assert_int_equal(h.ops->set_db(h.dev, 5, 1, &err), -1);
	assert_non_null(strstr(err.msg, "no channel 5"));
	teardown_box();
	mc_emu_stop(&e);
}

static void telnet_four_channels(void **state)
{
	(void)state;
	set_get_every_channel("minicircuits-telnet", 0);
}

static void http_four_channels(void **state)
{
	(void)state;
	set_get_every_channel("minicircuits-http", 1);
}

/* A single-channel model takes :SETATT= and :ATT? (no CHAN). */
static void single_channel_model(void **state)
{
	struct mc_emu e = {0, "RCDAT-6000-60", 1, 60, 0, 0, 0, 0, 0};
	struct al_err err;
	double db;

	(void)state;
	assert_int_equal(mc_emu_start(&e), 0);
	if (open_box("minicircuits-telnet", e.port, "p1", "", &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(h.ops->set_db(h.dev, 1, 33.25, &err), 0);
	assert_int_equal(h.ops->get_db(h.dev, 1, &db, &err), 0);
	assert_true(db == 33.25);
	assert_int_equal(h.ops->set_db(h.dev, 1, 60.25, &err), -1);
	teardown_box();
	mc_emu_stop(&e);
}

static void lab_and_model_mismatch(void **state)
{
	struct mc_emu e = {1, "RC4DAT-6000-90", 4, 90, 0, 0, 0, 0, 0};
	struct mc_emu z = {1, "ZX76-31R5-PP", 1, 31, 0, 0, 0, 0, 0};
	struct al_err err;

	(void)state;
	assert_int_equal(mc_emu_start(&e), 0);
	assert_int_equal(
	    open_box("minicircuits-http", e.port, "p1 p2 p3 p4 p5", "", &err),
	    -1);
	assert_non_null(strstr(err.msg, "5 paths, but the RC4DAT-6000-90"));
	assert_non_null(strstr(err.msg, "has 4 channels"));
	assert_non_null(strstr(err.msg, "t.yaml:"));
	mc_emu_stop(&e);
	assert_int_equal(mc_emu_start(&z), 0);
	assert_int_equal(open_box("minicircuits-http", z.port, "p1", "", &err),
			 -1);
	assert_non_null(strstr(err.msg, "not one airlab knows"));
	mc_emu_stop(&z);
	/* Settings are checked with the lab file's line. */
	assert_int_equal(open_box("minicircuits-http", 1, "p1",
				  "    community: public\n", &err),
			 -1);
	if (!strstr(err.msg,
		    "t.yaml:11: attenuator box (driver minicircuits-http): "
		    "unknown setting 'community'"))
		fail_msg("%s", err.msg);
}

/* Each fault: a clear error naming box and address, no hang. */
static void faults(void **state)
{
	struct mc_emu e;
	struct al_err err;
	char where[64];
	double db;

	(void)state;
	for (int http = 0; http < 2; http++) {
		const char *drv =
		    http ? "minicircuits-http" : "minicircuits-telnet";

		/* Stops answering after :MN?, :SN? and one set. */
		e = (struct mc_emu){http, "RC4DAT-6000-90", 4, 90, 3, 0, 0, 0,
				    0};
		assert_int_equal(mc_emu_start(&e), 0);
		snprintf(where, sizeof(where), "127.0.0.1:%d", e.port);
		if (open_box(drv, e.port, "p1 p2", "", &err) < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(h.ops->set_db(h.dev, 1, 3, &err), 0);
		assert_int_equal(h.ops->get_db(h.dev, 1, &db, &err), -1);
		assert_non_null(strstr(err.msg, "no reply"));
		assert_non_null(strstr(err.msg, "attenuator box"));
		assert_non_null(strstr(err.msg, where));
		assert_non_null(strstr(err.msg, ":CHAN:1:ATT?"));
		teardown_box();
		mc_emu_stop(&e);

		e = (struct mc_emu){http, "RC4DAT-6000-90", 4, 90, 0, 0, 1, 0,
				    0};
		assert_int_equal(mc_emu_start(&e), 0);
		if (open_box(drv, e.port, "p1", "", &err) < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(h.ops->get_db(h.dev, 1, &db, &err), -1);
		assert_non_null(strstr(err.msg, "is not an attenuation"));
		teardown_box();
		mc_emu_stop(&e);

		/* Drops the connection on the third command. */
		e = (struct mc_emu){http, "RC4DAT-6000-90", 4, 90, 0, 2, 0, 0,
				    0};
		assert_int_equal(mc_emu_start(&e), 0);
		if (open_box(drv, e.port, "p1", "", &err) < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(h.ops->set_db(h.dev, 1, 3, &err), -1);
		assert_non_null(strstr(err.msg, "attenuator box"));
		teardown_box();
		mc_emu_stop(&e);

		/* Nothing listening any more on that port. */
		assert_int_equal(open_box(drv, e.port, "p1", "", &err), -1);
		assert_non_null(strstr(err.msg, "cannot connect to 127.0.0.1"));
		assert_non_null(strstr(err.msg, "attenuator box"));
	}
	lab_free(&lab);
	memset(&lab, 0, sizeof(lab));
}

/* The parsers on their own: strict about what a reply is. */
static void parsers(void **state)
{
	struct mc_model m;
	char msg[256];
	double db;

	(void)state;
	assert_int_equal(
	    mc_parse_model("MN=RUDAT-6000-90\r\n", &m, msg, sizeof(msg)), 0);
	assert_int_equal(m.channels, 1);
	assert_true(m.max_db == 90 && m.step_db == 0.25);
	assert_int_equal(
	    mc_parse_model("MN=RC8DAT-8000-30", &m, msg, sizeof(msg)), 0);
	assert_int_equal(m.channels, 8);
	assert_int_equal(mc_parse_model("RC4DAT-6000-90", &m, msg, sizeof(msg)),
			 -1);
	assert_int_equal(
	    mc_parse_model("MN=RC4DAT-6000-x", &m, msg, sizeof(msg)), -1);
	assert_int_equal(
	    mc_parse_model("MN=RC4DAT\r\nMN=", &m, msg, sizeof(msg)), -1);
	assert_int_equal(mc_parse_att("12.75", &db), 0);
	assert_true(db == 12.75);
	assert_int_equal(mc_parse_att("12.75\r\n", &db), 0);
	assert_int_equal(mc_parse_att("", &db), -1);
	assert_int_equal(mc_parse_att("12.75 dB", &db), -1);
	assert_int_equal(mc_parse_att("nan", &db), -1);
	assert_int_equal(mc_parse_att("1e999", &db), -1);
}

/* After each test, also one an assertion cut short: no emulator or
 * driver is left behind to hold a port or a lock. */
static int cleanup(void **state)
{
	(void)state;
	atten_close(&h);
	memset(&h, 0, sizeof(h));
	mc_emu_stop_all();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(telnet_four_channels, cleanup),
	    cmocka_unit_test_teardown(http_four_channels, cleanup),
	    cmocka_unit_test_teardown(single_channel_model, cleanup),
	    cmocka_unit_test_teardown(lab_and_model_mismatch, cleanup),
	    cmocka_unit_test_teardown(faults, cleanup),
	    cmocka_unit_test_teardown(parsers, cleanup),
	};
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
