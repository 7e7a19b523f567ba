/* Driver settings tables (drivers/settings.c): a binding read against a
 * table fills a config struct, with defaults for what is absent; an
 * unknown key, a missing required one and a value of the wrong type or
 * out of range are bad input with the lab file's line, worded exactly as
 * checked here. The DUT's keys pass on a power binding and `paths` on an
 * attenuator's. Every driver's table is sound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../drivers/driver.h"

/* A driver's config struct with a field of every type. */
struct conf {
	char name[8];
	char banner[32];
	char file[128];
	int port;
	int count;
	double scale;
	bool fast;
	int mode;
	int shift; /* no default: the caller's mark stays */
};

static const struct drv_setting table[] = {
    {.name = "name", DRV_FIELD(struct conf, name)},
    {.name = "banner",
     .type = DRV_LINE,
     .default_value = "hello",
     DRV_FIELD(struct conf, banner)},
    {.name = "file",
     .type = DRV_PATH,
     .default_value = "{state}/f",
     DRV_FIELD(struct conf, file)},
    {.name = "port",
     .type = DRV_INT,
     .min = 1,
     .max = 16,
     .required = true,
     .what = "the outlet, 1 to 16",
     DRV_FIELD(struct conf, port)},
    {.name = "count",
     .type = DRV_INT,
     .default_value = "0x10",
     .min = 0,
     .max = 1000,
     DRV_FIELD(struct conf, count)},
    {.name = "scale",
     .type = DRV_DOUBLE,
     .default_value = "1.5",
     .min = 1,
     .max = 1000,
     DRV_FIELD(struct conf, scale)},
    {.name = "fast",
     .type = DRV_BOOL,
     .default_value = "no",
     DRV_FIELD(struct conf, fast)},
    {.name = "mode",
     .type = DRV_CHOICE,
     .default_value = "ram",
     .choices = (const struct drv_choice[]){{"ram", 0}, {"flash", 1}, {0}},
     DRV_FIELD(struct conf, mode)},
    {.name = "shift",
     .type = DRV_INT,
     .min = 0,
     .max = 10,
     DRV_FIELD(struct conf, shift)},
    {0},
};

#define KNOWN "name, banner, file, port, count, scale, fast, mode, shift"

static struct lab lab;
static struct drv_target target;
static struct conf conf;

/* dut1's binding KIND (driver fake) with the given lines from line 7 on;
 * attenuator a1's when kind is NULL. */
static void load(const char *kind, const char *lines)
{
	char text[1024];
	struct al_err err;

	if (kind)
		snprintf(text, sizeof(text),
			 "lab: t\nstate_dir: /tmp/airlab-test-settings\n"
			 "hosts:\n  dut1:\n    %s:\n      driver: fake\n%s",
			 kind, lines);
	else
		snprintf(text, sizeof(text),
			 "lab: t\nstate_dir: /tmp/airlab-test-settings\n"
			 "hosts:\n  dut1:\n    shell: {driver: ssh}\n"
			 "attenuators:\n  a1:\n"
			 "    driver: fake\n%s",
			 lines);
	lab_free(&lab);
	memset(&lab, 0, sizeof(lab));
	if (lab_load_buf(&lab, "t.yaml", text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg);
	target.lab = &lab;
	target.host = kind ? &lab.hosts[0] : NULL;
	target.binding = !kind			    ? &lab.attens[0].binding
			 : !strcmp(kind, "power")   ? &lab.hosts[0].power
			 : !strcmp(kind, "console") ? &lab.hosts[0].console
						    : NULL;
	assert_non_null(target.binding);
}

/* Reads dut1's console with lines; conf.shift starts as -1. */
static int read_console(const char *lines, struct al_err *err)
{
	load("console", lines);
	memset(&conf, 0, sizeof(conf));
	conf.shift = -1;
	memset(err, 0, sizeof(*err));
	return drv_settings_read(&target, table, &conf, err);
}

/* The read fails with exactly want, as bad input. */
static void refused(const char *lines, const char *want)
{
	struct al_err err;

	assert_int_equal(read_console(lines, &err), -1);
	assert_string_equal(err.msg, want);
	assert_true(err.bad_input);
}

static void defaults_applied(void **state)
{
	struct al_err err;

	(void)state;
	if (read_console("      port: 3\n", &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(conf.name, "");
	assert_string_equal(conf.banner, "hello");
	assert_string_equal(conf.file, "/tmp/airlab-test-settings/dut1/f");
	assert_int_equal(conf.port, 3);
	assert_int_equal(conf.count, 16);
	assert_true(conf.scale == 1.5);
	assert_false(conf.fast);
	assert_int_equal(conf.mode, 0);
	assert_int_equal(conf.shift, -1);
}

static void values_read(void **state)
{
	struct al_err err;

	(void)state;
	if (read_console("      name: abcdefg\n      banner: one line\n"
			 "      file: /dev/ttyUSB0\n      port: 8\n"
			 "      count: 0x3e8\n      scale: 2.5\n"
			 "      fast: On\n      mode: flash\n      shift: 0\n",
			 &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(conf.name, "abcdefg");
	assert_string_equal(conf.banner, "one line");
	assert_string_equal(conf.file, "/dev/ttyUSB0");
	assert_int_equal(conf.port, 8);
	assert_int_equal(conf.count, 1000);
	assert_true(conf.scale == 2.5);
	assert_true(conf.fast);
	assert_int_equal(conf.mode, 1);
	assert_int_equal(conf.shift, 0);
	/* Decimal unless 0x: a leading zero is not octal. */
	if (read_console("      port: 08\n      count: 010\n", &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(conf.port, 8);
	assert_int_equal(conf.count, 10);
}

static void unknown_key(void **state)
{
	(void)state;
	refused("      port: 3\n      prot: 3\n",
		"t.yaml:8: dut1 console (driver fake): unknown setting 'prot' "
		"(known: " KNOWN ")");
	/* The DUT's keys belong on its power binding only. */
	refused("      port: 3\n      off_s: 3\n",
		"t.yaml:8: dut1 console (driver fake): unknown setting "
		"'off_s' (known: " KNOWN ")");
}

static void missing_required(void **state)
{
	(void)state;
	/* The binding's line, where the setting would go. */
	refused("      name: x\n",
		"t.yaml:5: dut1 console (driver fake): setting port is "
		"missing (the outlet, 1 to 16)");
	/* An empty value is no value: its own line. */
	refused("      port: \"\"\n",
		"t.yaml:7: dut1 console (driver fake): setting port is "
		"missing (the outlet, 1 to 16)");
}

static void empty_is_absent(void **state)
{
	struct al_err err;

	(void)state;
	if (read_console("      port: 2\n      banner: \"\"\n      scale: ''\n",
			 &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(conf.banner, "hello");
	assert_true(conf.scale == 1.5);
}

static void bad_int(void **state)
{
	(void)state;
	refused("      port: many\n",
		"t.yaml:7: dut1 console (driver fake): port 'many' is not a "
		"whole number from 1 to 16");
	refused("      port: 3x\n",
		"t.yaml:7: dut1 console (driver fake): port '3x' is not a "
		"whole number from 1 to 16");
	refused("      port: 1\n      count: 0x\n",
		"t.yaml:8: dut1 console (driver fake): count '0x' is not a "
		"whole number from 0 to 1000");
	refused("      port: 1\n      count: 99999999999999999999\n",
		"t.yaml:8: dut1 console (driver fake): count "
		"'99999999999999999999' is not a whole number from 0 to 1000");
}

static void out_of_range(void **state)
{
	(void)state;
	refused("      port: 17\n",
		"t.yaml:7: dut1 console (driver fake): port '17' is not a "
		"whole number from 1 to 16");
	refused("      port: 0\n",
		"t.yaml:7: dut1 console (driver fake): port '0' is not a "
		"whole number from 1 to 16");
	refused("      port: -1\n",
		"t.yaml:7: dut1 console (driver fake): port '-1' is not a "
		"whole number from 1 to 16");
	refused("      port: 1\n      count: 0x3e9\n",
		"t.yaml:8: dut1 console (driver fake): count '0x3e9' is not a "
		"whole number from 0 to 1000");
	refused("      port: 1\n      scale: 0.5\n",
		"t.yaml:8: dut1 console (driver fake): scale '0.5' is not a "
		"number from 1 to 1000");
	refused("      port: 1\n      scale: inf\n",
		"t.yaml:8: dut1 console (driver fake): scale 'inf' is not a "
		"number from 1 to 1000");
	refused("      port: 1\n      scale: nan\n",
		"t.yaml:8: dut1 console (driver fake): scale 'nan' is not a "
		"number from 1 to 1000");
}

static void bad_bool_choice_text(void **state)
{
	(void)state;
	refused("      port: 1\n      fast: maybe\n",
		"t.yaml:8: dut1 console (driver fake): fast 'maybe' is "
		"neither yes nor no (true, false, on, off, 1, 0 also do)");
	refused("      port: 1\n      mode: rom\n",
		"t.yaml:8: dut1 console (driver fake): mode 'rom' is not one "
		"of ram, flash");
	refused("      port: 1\n      name: abcdefgh\n",
		"t.yaml:8: dut1 console (driver fake): name 'abcdefgh' is "
		"longer than 7 characters");
	/* A line break in a quoted value stays out of the one-line error. */
	refused("      port: 1\n      banner: \"a\\nb\"\n",
		"t.yaml:8: dut1 console (driver fake): banner 'a?b' is not "
		"one line");
}

static void path_expanded(void **state)
{
	struct al_err err;

	(void)state;
	assert_int_equal(
	    read_console("      port: 1\n      file: \"{nope}/x\"\n", &err),
	    -1);
	assert_true(err.bad_input);
	assert_string_equal(err.msg,
			    "t.yaml:8: dut1 console file: '{nope}/x': unknown "
			    "placeholder '{nope}' (known: {state}, {images})");
	assert_int_equal(read_console("      port: 1\n      file: \"{state}/"
				      "0123456789012345678901234567890123456789"
				      "0123456789012345678901234567890123456789"
				      "0123456789012345678901234567890123456789"
				      "\"\n",
				      &err),
			 -1);
	assert_true(err.bad_input);
	assert_non_null(strstr(err.msg, "t.yaml:8: dut1 console file: "));
	assert_non_null(strstr(err.msg, "expands to more than 127 bytes"));
}

/* A power binding passes the DUT's keys and lists them; an attenuator's
 * passes `paths`. */
static void shared_keys(void **state)
{
	struct al_err err = {0};

	(void)state;
	load("power",
	     "      port: 2\n      off_s: 3\n      boot_timeout_s: 9\n");
	if (drv_settings_read(&target, table, &conf, &err) < 0)
		fail_msg("%s", err.msg);
	load("power", "      port: 2\n      of_s: 3\n");
	assert_int_equal(drv_settings_read(&target, table, &conf, &err), -1);
	assert_string_equal(err.msg,
			    "t.yaml:8: dut1 power (driver fake): unknown "
			    "setting 'of_s' (known: " KNOWN ", boot_timeout_s, "
			    "ready_marker, off_s, boot_attempts)");
	/* No host: file's default ({state}/f) cannot expand. */
	load(NULL, "    paths: p1 p2\n    port: 1\n");
	assert_int_equal(drv_settings_read(&target, table, &conf, &err), -1);
	assert_string_equal(err.msg, "t.yaml:7: attenuator a1 file: "
				     "'{state}/f': {state} needs a host");
	load(NULL, "    paths: p1 p2\n    port: 1\n    file: /x\n");
	if (drv_settings_read(&target, table, &conf, &err) < 0)
		fail_msg("%s", err.msg);
	load(NULL, "    paths: p1 p2\n    file: /x\n");
	assert_int_equal(drv_settings_read(&target, table, &conf, &err), -1);
	assert_string_equal(err.msg, "t.yaml:7: attenuator a1 (driver fake): "
				     "setting port is missing (the outlet, "
				     "1 to 16)");
}

/* fill reads what the table lists and lets the rest be. */
static void fill_leaves_other_keys(void **state)
{
	struct al_err err = {0};

	(void)state;
	load("console", "      port: 4\n      frob: 1\n");
	if (drv_settings_fill(&target, table, &conf, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(conf.port, 4);
	assert_int_equal(drv_settings_read(&target, table, &conf, &err), -1);
	assert_non_null(strstr(err.msg, "unknown setting 'frob'"));
}

static void invalid_names_the_value(void **state)
{
	struct al_err err = {0};

	(void)state;
	load("console", "      port: 4\n      name: x y\n");
	assert_int_equal(
	    drv_setting_invalid(&target, "name", "is not a word", &err), -1);
	assert_true(err.bad_input);
	assert_string_equal(err.msg, "t.yaml:8: dut1 console (driver fake): "
				     "name 'x y' is not a word");
	assert_int_equal(drv_setting_line(&target, "port"), 7);
	assert_int_equal(drv_setting_line(&target, "banner"), 5);
}

static void every_driver_table_is_sound(void **state)
{
	const struct {
		const char *driver;
		const struct drv_setting *settings;
	} tables[] = {
	    {"power qemu", power_qemu_ops.settings},
	    {"power command", power_command_ops.settings},
	    {"power ftdi-relay", power_ftdi_relay_ops.settings},
	    {"power usb-hid-relay", power_usb_hid_relay_ops.settings},
	    {"flash qemu-image", flash_qemu_image_ops.settings},
	    {"flash uboot-tftp", flash_uboot_tftp_ops.settings},
	    {"flash sysupgrade", flash_sysupgrade_ops.settings},
	    {"console serial", console_serial_ops.settings},
	    {"shell ssh", shell_ssh_ops.settings},
	    {"atten medium", atten_medium_ops.settings},
	    {"atten minicircuits-http", atten_minicircuits_http_ops.settings},
	    {"atten minicircuits-telnet",
	     atten_minicircuits_telnet_ops.settings},
	    {"atten minicircuits-usb", atten_minicircuits_usb_ops.settings},
	    {"ap hostapd", ap_hostapd_ops.settings},
	    {"ap virtual", ap_virtual_ops.settings},
	    {"the DUT's on power", power_dut_settings},
	    {"this test's", table},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		struct al_err err = {0};

		if (!tables[i].settings)
			fail_msg("%s: no settings table", tables[i].driver);
		if (drv_settings_table_check(tables[i].settings, &err) < 0)
			fail_msg("%s: %s", tables[i].driver, err.msg);
	}
}

static void table_faults_found(void **state)
{
	static const struct drv_setting out_of_range[] = {
	    {.name = "port",
	     .type = DRV_INT,
	     .default_value = "9",
	     .min = 1,
	     .max = 8,
	     DRV_FIELD(struct conf, port)},
	    {0},
	};
	static const struct drv_setting required_default[] = {
	    {.name = "name",
	     .default_value = "x",
	     .required = true,
	     DRV_FIELD(struct conf, name)},
	    {0},
	};
	static const struct drv_setting wrong_field[] = {
	    {.name = "fast", .type = DRV_BOOL, DRV_FIELD(struct conf, port)},
	    {0},
	};
	static const struct drv_setting twice[] = {
	    {.name = "name", DRV_FIELD(struct conf, name)},
	    {.name = "name", DRV_FIELD(struct conf, banner)},
	    {0},
	};
	static const struct drv_setting no_max[] = {
	    {.name = "count", .type = DRV_INT, DRV_FIELD(struct conf, count)},
	    {0},
	};
	static const struct drv_setting no_choices[] = {
	    {.name = "mode", .type = DRV_CHOICE, DRV_FIELD(struct conf, mode)},
	    {0},
	};
	struct al_err err;

	(void)state;
	assert_int_equal(drv_settings_table_check(out_of_range, &err), -1);
	assert_string_equal(err.msg, "setting port: default '9' is not a "
				     "whole number from 1 to 8");
	assert_int_equal(drv_settings_table_check(required_default, &err), -1);
	assert_string_equal(err.msg,
			    "setting name: required, yet with a default");
	assert_int_equal(drv_settings_table_check(wrong_field, &err), -1);
	assert_string_equal(err.msg,
			    "setting fast: a field of 4 bytes for type 5");
	assert_int_equal(drv_settings_table_check(twice, &err), -1);
	assert_string_equal(err.msg, "setting name: listed twice");
	assert_int_equal(drv_settings_table_check(no_max, &err), -1);
	assert_string_equal(err.msg, "setting count: range 0 to 0");
	assert_int_equal(drv_settings_table_check(no_choices, &err), -1);
	assert_string_equal(err.msg, "setting mode: choices missing");
}

static int teardown(void **state)
{
	(void)state;
	lab_free(&lab);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(defaults_applied),
	    cmocka_unit_test(values_read),
	    cmocka_unit_test(unknown_key),
	    cmocka_unit_test(missing_required),
	    cmocka_unit_test(empty_is_absent),
	    cmocka_unit_test(bad_int),
	    cmocka_unit_test(out_of_range),
	    cmocka_unit_test(bad_bool_choice_text),
	    cmocka_unit_test(path_expanded),
	    cmocka_unit_test(shared_keys),
	    cmocka_unit_test(fill_leaves_other_keys),
	    cmocka_unit_test(invalid_names_the_value),
	    cmocka_unit_test(every_driver_table_is_sound),
	    cmocka_unit_test(table_faults_found),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
