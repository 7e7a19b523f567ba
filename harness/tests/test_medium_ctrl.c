/* The medium's control protocol: well-formed commands do what they say,
 * malformed ones get a one-line "error: ..." and change nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../medium/ctrl.h"
#include "../medium/medium.h"

static struct medium m;
static char out[128 * 1024];

static void nop_status(void *ctx, const struct med_frame *f, bool acked,
		       const struct med_try used[MED_NRATES], int sig)
{
	(void)ctx, (void)f, (void)acked, (void)used, (void)sig;
}

static int setup(void **state)
{
	struct med_conf c;
	struct med_ops ops = {NULL, nop_status, NULL};
	char err[128];
	static const uint8_t hw[6] = {0x42, 0, 0, 0, 1, 0};
	static const uint8_t vif[6] = {0x02, 0, 0, 0, 1, 0};

	(void)state;
	med_conf_defaults(&c);
	c.nradios = 3;
	snprintf(c.radio[0].name, MED_NAME_MAX, "ap");
	snprintf(c.radio[1].name, MED_NAME_MAX, "sta1");
	snprintf(c.radio[1].path, MED_NAME_MAX, "path1");
	c.radio[1].base_loss_db = 50;
	snprintf(c.radio[2].name, MED_NAME_MAX, "sta2");
	snprintf(c.radio[2].path, MED_NAME_MAX, "path2");
	c.radio[2].base_loss_db = 60;
	if (med_init(&m, &c, &ops, 0, err, sizeof(err)) < 0)
		return -1;
	med_radio_set(&m, 1, hw, vif);
	/* Some counters and an attenuation to notice changes to. */
	m.radio[1].tx.frames = 7;
	m.radio[1].tx.airtime_us = 1234;
	m.path[1].atten_db = 3.5;
	med_lag_record(&m.lag, 42000);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	med_free(&m);
	return 0;
}

static const char *cmd(const char *line)
{
	med_ctrl_handle(&m, line, 5000000000LL, out, sizeof(out));
	return out;
}

static void test_malformed_change_nothing(void **state)
{
	static const char *bad[] = {
	    "",
	    "   ",
	    "bogus",
	    "SET-ATTEN path1 3",
	    "set-atten",
	    "set-atten path1",
	    "set-atten path1 3 4",
	    "set-atten nopath 3",
	    "set-atten path1 abc",
	    "set-atten path1 3dB",
	    "set-atten path1 -1",
	    "set-atten path1 201",
	    "set-atten path1 nan",
	    "set-atten path1 inf",
	    "set-atten path1 1e999",
	    "set-atten path1 0x",
	    "get-atten nopath",
	    "get-atten path1 path2",
	    "stats now",
	    "reset all",
	    "lag 1",
	    "set-atten a b c d e f",
	};
	static struct medium before;
	char longline[MED_CTRL_LINE_MAX + 20];
	(void)state;

	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = 0;
	memcpy(&before, &m, sizeof(m));
	for (size_t i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		const char *line =
		    i < sizeof(bad) / sizeof(bad[0]) ? bad[i] : longline;
		const char *r = cmd(line);
		if (strncmp(r, "error: ", 7) != 0)
			fail_msg("'%s' got '%s'", line, r);
		/* exactly one line */
		assert_non_null(strchr(r, '\n'));
		assert_int_equal(strchr(r, '\n')[1], 0);
		assert_memory_equal(&before, &m, sizeof(m));
	}
}

static void test_set_get_atten(void **state)
{
	(void)state;
	assert_string_equal(cmd("set-atten path1 12.5"), "ok\n");
	assert_string_equal(cmd("get-atten path1"), "path1 12.50\nok\n");
	assert_string_equal(cmd("get-atten"), "path1 12.50\npath2 3.50\nok\n");
	/* Tabs and a trailing CR (telnet-style clients) are blanks. */
	assert_string_equal(cmd("set-atten\tpath2  0\r"), "ok\n");
	assert_string_equal(cmd("get-atten path2"), "path2 0.00\nok\n");
	/* The link budget follows: 50 + 12.5 dB from the AP. */
	assert_true(med_link_loss_db(&m, 0, 1) == 62.5);
	assert_string_equal(cmd("set-atten path1 200"), "ok\n");
	assert_string_equal(cmd("set-atten path1 0"), "ok\n");
}

static void test_stats_reset_lag(void **state)
{
	const char *r;
	(void)state;

	r = cmd("stats");
	assert_non_null(strstr(r, "radio 1 name=sta1 path=path1 "));
	assert_non_null(strstr(r, " tx_frames=7 "));
	assert_non_null(strstr(r, " tx_airtime_us=1234 "));
	assert_non_null(strstr(r, "radio 2 name=sta2 path=path2 "));
	assert_non_null(strstr(r, "elapsed_us=5000000"));
	assert_int_equal(strcmp(r + strlen(r) - 3, "ok\n"), 0);
	r = cmd("lag");
	assert_non_null(
	    strstr(r, "lag samples=1 p50_us=42.0 p99_us=42.0 max_us=42.0"));
	assert_string_equal(cmd("reset"), "ok\n");
	r = cmd("stats");
	assert_non_null(strstr(r, " tx_frames=0 "));
	assert_non_null(strstr(r, " tx_airtime_us=0 "));
	assert_non_null(strstr(cmd("lag"), "lag samples=0 "));
	/* reset leaves the attenuators alone */
	assert_string_equal(cmd("set-atten path2 7"), "ok\n");
	assert_string_equal(cmd("reset"), "ok\n");
	assert_string_equal(cmd("get-atten path2"), "path2 7.00\nok\n");
}

/* The stats reply's fields and its table for people. */
static void test_stats_fields_and_table(void **state)
{
	const char *line = "radio 1 name=sta1 path=p1 tx_frames=12";
	const char *reply =
	    "medium freq=2437 elapsed_us=2000 busy_us=500 time_scale=4\n"
	    "radio 1 name=sta1 path=p1 tx_frames=12 tx_rate=MCS7/20 "
	    "tx_ac_ppdus=5/4/3/0\n"
	    "something new\nok\n";
	char *out = NULL;
	size_t n, len = 0;
	FILE *f = open_memstream(&out, &len);
	const char *v;

	(void)state;
	v = med_reply_field(line, strlen(line), "path", &n);
	assert_non_null(v);
	assert_int_equal(n, 2);
	assert_memory_equal(v, "p1", 2);
	/* a key inside another's name is not that key */
	assert_null(med_reply_field(line, strlen(line), "frames", &n));
	assert_null(med_reply_field(line, 20, "tx_frames", &n));
	assert_non_null(f);
	med_stats_print(f, reply);
	fclose(f);
	assert_non_null(strstr(out, "medium 2437 MHz: busy 500 of 2000 us "
				    "(25.0%), time scale 4\n"));
	assert_non_null(strstr(out, "sta1"));
	assert_non_null(strstr(out, "MCS7/20"));
	/* exchanges per access category, VO/VI/BE/BK */
	assert_non_null(strstr(out, "tx_ac_ppdus"));
	assert_non_null(strstr(out, " 5/4/3/0\n"));
	assert_non_null(strstr(out, "\nsomething new\n"));
	assert_null(strstr(out, "ok"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_malformed_change_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_set_get_atten, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_stats_reset_lag, setup,
					    teardown),
	    cmocka_unit_test(test_stats_fields_and_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
