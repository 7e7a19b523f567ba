/* The serial console driver on a real pty pair: the test holds the master
 * (the "device", as QEMU does) and the driver opens the slave through a
 * "{state}/console" symlink, as in the virtual lab. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../drivers/driver.h"

#define BANNER "U-Boot 2023.01\n=> "

struct fixture {
	char dir[64];
	char link[128];
	int master;
	struct lab lab;
	struct lab_host host;
	struct drv_target t;
	struct console_dev *c;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_param(struct lab_binding *b, const char *key, const char *value)
{
	struct lab_param *p = &b->params[b->nparams++];

	snprintf(p->key, sizeof(p->key), "%s", key);
	p->value = strdup(value);
	p->line = 20 + b->nparams;
	assert_non_null(p->value);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char slave[128];
	int s;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/airlab-test-serial.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(openpty(&f->master, &s, slave, NULL, NULL), 0);
	/* Like QEMU, keep only the master: the slave is the driver's. */
	close(s);
	snprintf(f->link, sizeof(f->link), "%s/console", f->dir);
	assert_int_equal(symlink(slave, f->link), 0);

	snprintf(f->lab.path, sizeof(f->lab.path), "lab/test.yaml");
	snprintf(f->lab.state_dir, sizeof(f->lab.state_dir), "%s", f->dir);
	snprintf(f->host.name, sizeof(f->host.name), "dut1");
	snprintf(f->host.state_dir, sizeof(f->host.state_dir), "%s", f->dir);
	snprintf(f->host.console.driver, sizeof(f->host.console.driver),
		 "serial");
	set_param(&f->host.console, "port", "{state}/console");
	set_param(&f->host.console, "baud", "115200");
	f->t.lab = &f->lab;
	f->t.host = &f->host;
	f->t.binding = &f->host.console;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->c)
		console_serial_ops.close(f->c);
	if (f->master >= 0)
		close(f->master);
	for (int i = 0; i < f->host.console.nparams; i++)
		free(f->host.console.params[i].value);
	unlink(f->link);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void open_ok(struct fixture *f)
{
	struct al_err err = {0};

	if (console_serial_ops.open(&f->c, &f->t, &err) < 0)
		fail_msg("%s", err.msg);
}

static void write_master(struct fixture *f, const char *s)
{
	assert_int_equal(write(f->master, s, strlen(s)), (ssize_t)strlen(s));
}

/* Reads until want has arrived or timeout_ms passed. */
static void read_until(struct fixture *f, const char *want, int timeout_ms)
{
	char buf[256] = "";
	size_t have = 0;
	int64_t deadline = now_ms() + timeout_ms;
	struct al_err err = {0};

	while (!strstr(buf, want)) {
		ssize_t n;

		if (now_ms() > deadline)
			fail_msg("only '%s' within %d ms", buf, timeout_ms);
		n = console_serial_ops.read(f->c, buf + have,
					    sizeof(buf) - 1 - have, 200, &err);
		if (n < 0)
			fail_msg("%s", err.msg);
		have += (size_t)n;
		buf[have] = 0;
	}
	assert_string_equal(buf, want);
}

static void banner_read_command_written(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};
	struct pollfd p;
	char buf[64];
	int64_t deadline;
	size_t have = 0;

	open_ok(f);
	write_master(f, BANNER);
	/* The driver's fd polls readable when data waits. */
	p.fd = console_serial_ops.fd(f->c);
	p.events = POLLIN;
	assert_true(p.fd >= 0);
	assert_int_equal(poll(&p, 1, 2000), 1);
	/* Raw: no echo, no "\r\n" translation. */
	read_until(f, BANNER, 2000);

	assert_int_equal(console_serial_ops.write(f->c, "printenv\n", 9, &err),
			 0);
	deadline = now_ms() + 2000;
	while (have < 9 && now_ms() < deadline) {
		struct pollfd m = {.fd = f->master, .events = POLLIN};
		ssize_t n;

		if (poll(&m, 1, 200) <= 0)
			continue;
		n = read(f->master, buf + have, sizeof(buf) - 1 - have);
		assert_true(n > 0);
		have += (size_t)n;
	}
	buf[have] = 0;
	assert_string_equal(buf, "printenv\n");
}

static void silence_reads_zero_after_timeout(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};
	char buf[16];
	int64_t t0;

	open_ok(f);
	t0 = now_ms();
	assert_int_equal(
	    console_serial_ops.read(f->c, buf, sizeof(buf), 300, &err), 0);
	assert_in_range(now_ms() - t0, 290, 1500);
	/* timeout 0 only looks. */
	assert_int_equal(
	    console_serial_ops.read(f->c, buf, sizeof(buf), 0, &err), 0);
}

static void master_gone_is_hangup(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};
	char buf[16];

	open_ok(f);
	close(f->master);
	f->master = -1;
	assert_int_equal(
	    console_serial_ops.read(f->c, buf, sizeof(buf), 1000, &err), -1);
	assert_non_null(strstr(err.msg, f->link));
	assert_non_null(strstr(err.msg, "hangup"));
}

static void missing_port_names_path(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};

	unlink(f->link);
	assert_int_equal(console_serial_ops.open(&f->c, &f->t, &err), -1);
	assert_null(f->c);
	assert_non_null(strstr(err.msg, f->link));
	assert_non_null(strstr(err.msg, "No such file"));
}

static void not_a_serial_port_refused(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};

	/* A plain file: libserialport cannot describe it, and it is not a
	 * pty either. */
	unlink(f->link);
	assert_int_equal(symlink("/etc/hostname", f->link), 0);
	assert_int_equal(console_serial_ops.open(&f->c, &f->t, &err), -1);
	assert_non_null(strstr(err.msg, f->link));
	assert_non_null(strstr(err.msg, "/etc/hostname"));
	assert_non_null(strstr(err.msg, "sp_get_port_by_name"));
}

/* Where the machine has a UART node, the libserialport path (not the
 * pty one) opens and configures it. */
static void real_uart_through_libserialport(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};
	char buf[16];

	if (access("/dev/ttyS0", R_OK | W_OK) != 0)
		skip();
	free(f->host.console.params[0].value);
	f->host.console.params[0].value = strdup("/dev/ttyS0");
	if (console_serial_ops.open(&f->c, &f->t, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(console_serial_ops.fd(f->c) >= 0);
	assert_true(
	    console_serial_ops.read(f->c, buf, sizeof(buf), 100, &err) >= 0);
}

static void bad_settings_refused(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};

	/* baud is the binding's second setting, on line 22. */
	free(f->host.console.params[1].value);
	f->host.console.params[1].value = strdup("fast");
	assert_int_equal(console_serial_ops.open(&f->c, &f->t, &err), -1);
	assert_non_null(strstr(err.msg,
			       "lab/test.yaml:22: dut1 console (driver "
			       "serial): baud 'fast' is not a whole "
			       "number from 1 to 2147483647"));

	snprintf(f->host.console.params[1].key,
		 sizeof(f->host.console.params[1].key), "speed");
	assert_int_equal(console_serial_ops.open(&f->c, &f->t, &err), -1);
	assert_non_null(strstr(
	    err.msg, "lab/test.yaml:22: dut1 console (driver serial): unknown "
		     "setting 'speed'"));
}

/* Each new line setting with a value it does not know, and the line it
 * is on. */
static void bad_line_settings_refused(void **state)
{
	static const struct {
		const char *key, *value, *says;
	} cases[] = {
	    {"parity", "maybe", "parity 'maybe' is not one of none, odd, even"},
	    {"parity", "mark", "parity 'mark' is not one of none, odd, even"},
	    {"data_bits", "9", "data_bits '9' is not one of 5, 6, 7, 8"},
	    {"stop_bits", "1.5", "stop_bits '1.5' is not one of 1, 2"},
	    {"flow_control", "dtrdsr",
	     "flow_control 'dtrdsr' is not one of none, rtscts, xonxoff"},
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct al_err err = {0};
		char want[160];

		set_param(&f->host.console, cases[i].key, cases[i].value);
		assert_int_equal(console_serial_ops.open(&f->c, &f->t, &err),
				 -1);
		assert_null(f->c);
		snprintf(want, sizeof(want),
			 "lab/test.yaml:23: dut1 console (driver serial): %s",
			 cases[i].says);
		if (!strstr(err.msg, want))
			fail_msg("got '%s', want '%s'", err.msg, want);
		free(f->host.console.params[2].value);
		f->host.console.nparams = 2;
	}
}

/* A pty's line settings are shared by both ends: what the driver set on
 * the slave, the master reads back. */
static void line_settings_applied(void **state)
{
	struct fixture *f = *state;
	struct termios tio;

	set_param(&f->host.console, "stop_bits", "2");
	set_param(&f->host.console, "flow_control", "rtscts");
	open_ok(f);
	assert_int_equal(tcgetattr(f->master, &tio), 0);
	assert_true(tio.c_cflag & CSTOPB);
	assert_true(tio.c_cflag & CRTSCTS);
	assert_false(tio.c_iflag & IXON);
	console_serial_ops.close(f->c);
	f->c = NULL;

	free(f->host.console.params[3].value);
	f->host.console.params[3].value = strdup("xonxoff");
	open_ok(f);
	assert_int_equal(tcgetattr(f->master, &tio), 0);
	assert_false(tio.c_cflag & CRTSCTS);
	assert_true(tio.c_iflag & IXON);
	assert_true(tio.c_iflag & IXOFF);
}

/* Linux's pty forces 8 data bits without parity: asking for 7E1 on one is
 * refused, not silently ignored. */
static void pty_refuses_parity(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};

	set_param(&f->host.console, "data_bits", "7");
	set_param(&f->host.console, "parity", "even");
	assert_int_equal(console_serial_ops.open(&f->c, &f->t, &err), -1);
	assert_null(f->c);
	assert_non_null(strstr(err.msg, f->link));
	assert_non_null(strstr(err.msg, "is a pty"));
}

/* On a real UART the settings go through libserialport; the port's
 * termios says what it got. */
static void uart_line_settings_applied(void **state)
{
	struct fixture *f = *state;
	struct termios tio, before;
	int keep;

	if (access("/dev/ttyS0", R_OK | W_OK) != 0)
		skip();
	/* The UART may be the machine's own console: put its line back. */
	keep = open("/dev/ttyS0", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	assert_true(keep >= 0);
	assert_int_equal(tcgetattr(keep, &before), 0);
	free(f->host.console.params[0].value);
	f->host.console.params[0].value = strdup("/dev/ttyS0");
	set_param(&f->host.console, "data_bits", "7");
	set_param(&f->host.console, "parity", "odd");
	set_param(&f->host.console, "stop_bits", "2");
	set_param(&f->host.console, "flow_control", "rtscts");
	open_ok(f);
	assert_int_equal(tcgetattr(console_serial_ops.fd(f->c), &tio), 0);
	assert_int_equal(tio.c_cflag & CSIZE, CS7);
	assert_true(tio.c_cflag & PARENB);
	assert_true(tio.c_cflag & PARODD);
	assert_true(tio.c_cflag & CSTOPB);
	assert_true(tio.c_cflag & CRTSCTS);
	console_serial_ops.close(f->c);
	f->c = NULL;

	free(f->host.console.params[3].value);
	f->host.console.params[3].value = strdup("even");
	free(f->host.console.params[5].value);
	f->host.console.params[5].value = strdup("xonxoff");
	open_ok(f);
	assert_int_equal(tcgetattr(console_serial_ops.fd(f->c), &tio), 0);
	assert_true(tio.c_cflag & PARENB);
	assert_false(tio.c_cflag & PARODD);
	assert_false(tio.c_cflag & CRTSCTS);
	assert_true(tio.c_iflag & IXON);
	assert_true(tio.c_iflag & IXOFF);
	console_serial_ops.close(f->c);
	f->c = NULL;
	assert_int_equal(tcsetattr(keep, TCSANOW, &before), 0);
	close(keep);
}

/* Without the settings: 8N1, no flow control, as before. */
static void default_line_is_8n1(void **state)
{
	struct fixture *f = *state;
	struct termios tio;

	open_ok(f);
	assert_int_equal(tcgetattr(f->master, &tio), 0);
	assert_int_equal(tio.c_cflag & CSIZE, CS8);
	assert_false(tio.c_cflag & (PARENB | CSTOPB | CRTSCTS));
	assert_false(tio.c_iflag & (IXON | IXOFF));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(banner_read_command_written, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(silence_reads_zero_after_timeout,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(master_gone_is_hangup, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(missing_port_names_path, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(not_a_serial_port_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(real_uart_through_libserialport,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(bad_settings_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(bad_line_settings_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(line_settings_applied, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(pty_refuses_parity, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(uart_line_settings_applied, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(default_line_is_8n1, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
