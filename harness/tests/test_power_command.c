/* power=command: templates run for real with sh (a fake PDU CLI that
 * keeps its outlets in files), {port}/{host}/{pdu} filled in quoted (an
 * injected ';' stays a word), get read back, the last commanded state
 * without a get, a command that fails (its exit status and output in the
 * error), one that hangs (killed with what it started, after timeout_s),
 * and settings checked with the lab file's line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../cell/dut.h"
#include "../drivers/driver.h"

static char dir[64];
static struct lab lab;

/* A PDU CLI: `pdu OUTLET on|off|status`, outlets as files in DIR. */
static void write_pdu(void)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/pdu", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n"
		   "d=$(dirname \"$0\")\n"
		   "o=$(printf %%s \"$1\" | tr -c 'A-Za-z0-9' _)\n"
		   "printf '%%s\\n' \"$1\" > \"$d/last-outlet\"\n"
		   "case \"$2\" in\n"
		   "on|off) echo \"$2\" > \"$d/outlet-$o\" ;;\n"
		   "status) cat \"$d/outlet-$o\" 2>/dev/null || echo off ;;\n"
		   "*) echo \"pdu: bad verb '$2'\" >&2; exit 3 ;;\n"
		   "esac\n");
	fclose(f);
	chmod(path, 0755);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/airlab-test-pcmd.XXXXXX");
	assert_non_null(mkdtemp(dir));
	write_pdu();
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	lab_free(&lab);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Opens dut1's power with the given binding lines. */
static int open_power(const char *binding, struct power_dev **d,
		      struct al_err *err)
{
	char text[2048];
	struct drv_target t;

	snprintf(text, sizeof(text),
		 "lab: t\nstate_dir: %s/state\nhosts:\n  dut1:\n    power:\n"
		 "      driver: command\n%s",
		 dir, binding);
	lab_free(&lab);
	memset(&lab, 0, sizeof(lab));
	if (lab_load_buf(&lab, "t.yaml", text, strlen(text), err) < 0)
		fail_msg("%s", err->msg);
	t = (struct drv_target){&lab, &lab.hosts[0], &lab.hosts[0].power};
	return power_command_ops.open(d, &t, err);
}

static void on_off_get(void **state)
{
	struct power_dev *d;
	struct al_err err;
	char b[1024], outlet[128], text[64] = "";
	bool on = true;
	FILE *f;

	(void)state;
	snprintf(b, sizeof(b),
		 "      on: \"%s/pdu {port} on\"\n"
		 "      off: \"%s/pdu {port} off\"\n"
		 "      get: \"%s/pdu {port} status\"\n"
		 "      port: 3\n",
		 dir, dir, dir);
	if (open_power(b, &d, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(power_command_ops.get(d, &on, &err), 0);
	assert_false(on);
	assert_int_equal(power_command_ops.set(d, true, &err), 0);
	snprintf(outlet, sizeof(outlet), "%s/outlet-3", dir);
	f = fopen(outlet, "r");
	assert_non_null(f);
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	assert_string_equal(text, "on\n");
	assert_int_equal(power_command_ops.get(d, &on, &err), 0);
	assert_true(on);
	assert_int_equal(power_command_ops.set(d, false, &err), 0);
	assert_int_equal(power_command_ops.get(d, &on, &err), 0);
	assert_false(on);
	power_command_ops.close(d);
}

/* A port value with shell in it reaches the PDU as one word. */
static void fields_are_quoted(void **state)
{
	struct power_dev *d;
	struct al_err err;
	char b[1024], pwned[128];

	(void)state;
	snprintf(pwned, sizeof(pwned), "%s/pwned", dir);
	snprintf(b, sizeof(b),
		 "      on: \"%s/pdu {port} on\"\n"
		 "      off: \"%s/pdu {port} off\"\n"
		 "      port: \"1; touch %s\"\n",
		 dir, dir, pwned);
	if (open_power(b, &d, &err) < 0)
		fail_msg("%s", err.msg);
	char last[128], got[256] = "", want[256];
	FILE *f;

	if (power_command_ops.set(d, true, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(access(pwned, F_OK), -1);
	snprintf(last, sizeof(last), "%s/last-outlet", dir);
	snprintf(want, sizeof(want), "1; touch %s\n", pwned);
	f = fopen(last, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, want);
	power_command_ops.close(d);
}

/* Without get: the last commanded state, and none before the first. */
static void no_get_template(void **state)
{
	struct power_dev *d;
	struct al_err err;
	char b[1024];
	bool on;

	(void)state;
	snprintf(b, sizeof(b),
		 "      on: \"%s/pdu 7 on\"\n      off: \"%s/pdu 7 off\"\n",
		 dir, dir);
	if (open_power(b, &d, &err) < 0)
		fail_msg("%s", err.msg);
	snprintf(b, sizeof(b), "%s/state/dut1/power.state", dir);
	unlink(b);
	assert_int_equal(power_command_ops.get(d, &on, &err), -1);
	assert_non_null(strstr(err.msg, "dut1: power get: no 'get' template"));
	assert_int_equal(power_command_ops.set(d, true, &err), 0);
	assert_int_equal(power_command_ops.get(d, &on, &err), 0);
	assert_true(on);
	power_command_ops.close(d);
}

static void failing_and_hanging_commands(void **state)
{
	struct power_dev *d;
	struct al_err err;
	char b[1024], late[128];
	time_t t0;
	bool on;

	(void)state;
	snprintf(late, sizeof(late), "%s/late", dir);
	snprintf(b, sizeof(b),
		 "      on: \"%s/pdu 1 explode\"\n"
		 "      off: \"sleep 5; touch %s\"\n"
		 "      get: \"echo maybe\"\n"
		 "      timeout_s: 1\n",
		 dir, late);
	if (open_power(b, &d, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(power_command_ops.set(d, true, &err), -1);
	assert_non_null(strstr(err.msg, "dut1: power on:"));
	assert_non_null(strstr(err.msg, "exited 3"));
	assert_non_null(strstr(err.msg, "bad verb 'explode'"));
	t0 = time(NULL);
	assert_int_equal(power_command_ops.set(d, false, &err), -1);
	assert_true(time(NULL) - t0 < 4);
	assert_non_null(strstr(err.msg, "did not finish within 1 s"));
	sleep(5);
	/* The whole group went: what it would have done later never ran. */
	assert_int_equal(access(late, F_OK), -1);
	assert_int_equal(power_command_ops.get(d, &on, &err), -1);
	assert_non_null(strstr(err.msg, "neither on nor off"));
	power_command_ops.close(d);
}

static void settings_checked(void **state)
{
	struct power_dev *d;
	struct al_err err;

	(void)state;
	assert_int_equal(open_power("      on: \"true\"\n", &d, &err), -1);
	if (strcmp(err.msg, "t.yaml:5: dut1 power (driver command): setting "
			    "off is missing (the command template that "
			    "switches the DUT off)"))
		fail_msg("%s", err.msg);
	assert_int_equal(open_power("      on: \"true\"\n      off: \"true\"\n"
				    "      outlet: 3\n",
				    &d, &err),
			 -1);
	if (!strstr(err.msg, "t.yaml:9: dut1 power (driver command): unknown "
			     "setting 'outlet'"))
		fail_msg("%s", err.msg);
	assert_int_equal(open_power("      on: \"pdu {port} on\"\n"
				    "      off: \"true\"\n",
				    &d, &err),
			 -1);
	assert_non_null(strstr(err.msg, "uses {port}, but the binding has no "
					"port"));
	assert_int_equal(open_power("      on: \"true\"\n      off: \"true\"\n"
				    "      timeout_s: 0\n",
				    &d, &err),
			 -1);
	assert_non_null(strstr(err.msg, "timeout_s '0' is not a whole number "
					"from 1 to 3600"));
}

/* The DUT's own keys on the power binding: the driver takes them, the
 * DUT checks them, and a power cycle's time off comes from off_s. */
static void dut_settings_on_power(void **state)
{
	struct power_dev *d;
	struct dut dut;
	struct al_err err;

	(void)state;
	assert_int_equal(open_power("      on: \"true\"\n      off: \"true\"\n"
				    "      off_s: 7\n      boot_timeout_s: 30\n"
				    "      ready_marker: \"login:\"\n"
				    "    shell: {driver: ssh}\n",
				    &d, &err),
			 0);
	power_command_ops.close(d);
	if (dut_open(&dut, &lab, "dut1", &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(dut.off_s, 7);
	assert_int_equal(dut.boot_timeout_s, 30);
	assert_string_equal(dut.ready_marker, "login:");
	dut_close(&dut);

	assert_int_equal(
	    open_power("      on: \"true\"\n      off: \"true\"\n"
		       "      off_s: soon\n    shell: {driver: ssh}\n",
		       &d, &err),
	    0);
	power_command_ops.close(d);
	assert_int_equal(dut_open(&dut, &lab, "dut1", &err), -1);
	dut_close(&dut);
	if (!strstr(err.msg, "t.yaml:9: dut1 power (driver command): off_s "
			     "'soon' is not a whole number from 0 to 86400"))
		fail_msg("%s", err.msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(on_off_get),
	    cmocka_unit_test(fields_are_quoted),
	    cmocka_unit_test(no_get_template),
	    cmocka_unit_test(failing_and_hanging_commands),
	    cmocka_unit_test(settings_checked),
	    cmocka_unit_test(dut_settings_on_power),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
