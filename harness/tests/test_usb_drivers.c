/* The USB drivers' settings and their "where is the device" errors, on a
 * machine without the devices: ftdi-relay, usb-hid-relay and
 * minicircuits-usb refuse unknown settings, a missing or out-of-range
 * port, a bad vid/pid, active_low or timeout_ms with the lab file's line,
 * and a board that is not plugged in with an error naming the host (or
 * attenuator), the vid:pid and the serial asked for. Against emulated
 * devices (dummy_hcd gadgets in the guest) they run in it_usb.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cell/atten.h"
#include "../drivers/driver.h"

static struct lab lab;

/* Opens relay1's power driver DRIVER with the binding's other lines. */
static int open_power(const char *driver, const char *lines,
		      struct power_dev **d, struct al_err *err)
{
	char text[1024];
	struct drv_target t;
	const struct power_ops *ops;

	snprintf(text, sizeof(text),
		 "lab: t\nstate_dir: /tmp\nhosts:\n  relay1:\n    power:\n"
		 "      driver: %s\n%s",
		 driver, lines);
	lab_free(&lab);
	memset(&lab, 0, sizeof(lab));
	if (lab_load_buf(&lab, "t.yaml", text, strlen(text), err) < 0)
		fail_msg("%s", err->msg);
	ops = power_driver(driver, err);
	assert_non_null(ops);
	t.lab = &lab;
	t.host = &lab.hosts[0];
	t.binding = &lab.hosts[0].power;
	*d = NULL;
	return ops->open(d, &t, err);
}

static void expect_refused(const char *driver, const char *lines,
			   const char *want1, const char *want2)
{
	struct power_dev *d;
	struct al_err err = {0};

	assert_int_equal(open_power(driver, lines, &d, &err), -1);
	assert_null(d);
	if (!strstr(err.msg, want1) || (want2 && !strstr(err.msg, want2)))
		fail_msg("'%s' lacks '%s' / '%s'", err.msg, want1,
			 want2 ? want2 : "");
}

static void ftdi_settings(void **state)
{
	(void)state;
	expect_refused(
	    "ftdi-relay", "      port: 2\n      relay: 3\n",
	    "t.yaml:8: relay1 power (driver ftdi-relay): unknown setting "
	    "'relay'",
	    "known: vid, pid, serial, port, active_low");
	expect_refused(
	    "ftdi-relay", "      serial: A1\n",
	    "t.yaml:5: relay1 power (driver ftdi-relay): setting port is "
	    "missing",
	    NULL);
	expect_refused(
	    "ftdi-relay", "      port: 9\n",
	    "t.yaml:7: relay1 power (driver ftdi-relay): port '9' is not "
	    "a whole number from 1 to 8",
	    NULL);
	expect_refused("ftdi-relay", "      port: 0\n",
		       "t.yaml:7:", "port '0'");
	expect_refused("ftdi-relay", "      port: 1\n      vid: 0x1ffff\n",
		       "t.yaml:8:", "vid '0x1ffff'");
	expect_refused("ftdi-relay", "      port: 1\n      pid: six\n",
		       "t.yaml:8:", "pid 'six'");
	expect_refused("ftdi-relay", "      port: 1\n      active_low: maybe\n",
		       "t.yaml:8:", "active_low 'maybe' is neither yes nor no");
}

/* Nothing with that vid:pid on this machine: the error says which board
 * was looked for and for which host and relay. */
static void ftdi_board_missing(void **state)
{
	(void)state;
	expect_refused("ftdi-relay",
		       "      port: 4\n      vid: 0x0403\n      pid: 0x6015\n"
		       "      serial: NOPE42\n      active_low: yes\n",
		       "relay1: power", "FTDI 0403:6015 serial NOPE42 port 4");
}

static void hid_relay_settings(void **state)
{
	(void)state;
	expect_refused(
	    "usb-hid-relay", "      port: 2\n      vid: 0x16c0\n",
	    "t.yaml:8: relay1 power (driver usb-hid-relay): unknown "
	    "setting 'vid'",
	    "known: serial, port, boot_timeout_s, ready_marker, off_s");
	expect_refused("usb-hid-relay", "      serial: QWERT\n",
		       "t.yaml:5:", "setting port is missing");
	expect_refused("usb-hid-relay", "      port: 12\n",
		       "t.yaml:7:", "port '12'");
	expect_refused("usb-hid-relay", "      port: 3\n      serial: ABCDEF\n",
		       "t.yaml:8: relay1 power (driver usb-hid-relay): serial "
		       "'ABCDEF' is not a board id",
		       NULL);
	expect_refused("usb-hid-relay", "      port: 3\n      serial: ABCDE\n",
		       "relay1: power", "16c0:05df serial ABCDE port 3");
}

static int open_atten(const char *lines, struct atten_handle *h,
		      struct al_err *err)
{
	char text[1024];
	const struct lab_atten *a;
	int ch;

	snprintf(text, sizeof(text),
		 "lab: t\nstate_dir: /tmp/airlab-test-usbdrv\nhosts:\n  dut1:\n"
		 "    shell: {driver: ssh}\nattenuators:\n  box:\n"
		 "    driver: minicircuits-usb\n    paths: p1 p2\n%s",
		 lines);
	lab_free(&lab);
	memset(&lab, 0, sizeof(lab));
	if (lab_load_buf(&lab, "t.yaml", text, strlen(text), err) < 0)
		fail_msg("%s", err->msg);
	assert_int_equal(atten_path_find(&lab, "p2", &a, &ch, err), 0);
	assert_int_equal(ch, 2);
	return atten_open(h, &lab, a, err);
}

static void minicircuits_usb(void **state)
{
	struct atten_handle h = {0};
	struct al_err err = {0};

	(void)state;
	assert_int_equal(open_atten("    address: 10.0.0.1\n", &h, &err), -1);
	assert_non_null(strstr(err.msg, "t.yaml:10: attenuator box "
					"(driver minicircuits-usb): unknown "
					"setting "
					"'address' (known: serial, "
					"timeout_ms, paths)"));
	atten_close(&h);
	assert_int_equal(open_atten("    timeout_ms: 0\n", &h, &err), -1);
	assert_non_null(strstr(err.msg, "t.yaml:10:"));
	assert_non_null(strstr(err.msg, "timeout_ms '0' is not a whole number "
					"from 1 to 600000"));
	atten_close(&h);
	assert_int_equal(open_atten("    serial: 11912140001\n", &h, &err), -1);
	assert_non_null(strstr(err.msg, "attenuator box (minicircuits-usb at "
					"USB 20ce:0023 serial 11912140001)"));
	atten_close(&h);
	lab_free(&lab);
	memset(&lab, 0, sizeof(lab));
	assert_int_equal(system("rm -rf /tmp/airlab-test-usbdrv"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(ftdi_settings),
	    cmocka_unit_test(ftdi_board_missing),
	    cmocka_unit_test(hid_relay_settings),
	    cmocka_unit_test(minicircuits_usb),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	lab_free(&lab);
	return rc;
}
