/* The qemu power driver with a real QEMU. The "DUT image" is a 100-byte
 * multiboot program written by the test: it prints a line on COM1 over and
 * over, so power on, the console pty link, power off and the console log
 * are all checked in a second, without a Linux kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../drivers/driver.h"

#define MARKER "fake DUT: ready\n"

/* Multiboot header (a.out kludge: load at 1 MiB, enter at +0x20), then
 * 32-bit code: cld; esi = msg; dx = COM1; print the string byte by byte;
 * spin ~2^25 times; start over. */
static const unsigned char fake_dut[] = {
    0x02, 0xb0, 0xad, 0x1b,	  /* magic 0x1BADB002 */
    0x00, 0x00, 0x01, 0x00,	  /* flags: addresses below are valid */
    0xfe, 0x4f, 0x51, 0xe4,	  /* checksum: -(magic + flags) */
    0x00, 0x00, 0x10, 0x00,	  /* header_addr */
    0x00, 0x00, 0x10, 0x00,	  /* load_addr */
    0x00, 0x00, 0x00, 0x00,	  /* load_end_addr: whole file */
    0x00, 0x00, 0x00, 0x00,	  /* bss_end_addr: none */
    0x20, 0x00, 0x10, 0x00,	  /* entry_addr */
    0xfc,			  /* 20: cld */
    0xbe, 0x40, 0x00, 0x10, 0x00, /* 21: mov esi, 0x100040 */
    0x66, 0xba, 0xf8, 0x03,	  /* 26: mov dx, 0x3f8 */
    0xac,			  /* 2a: lodsb */
    0x84, 0xc0,			  /* 2b: test al, al */
    0x74, 0x03,			  /* 2d: jz 32 */
    0xee,			  /* 2f: out dx, al */
    0xeb, 0xf8,			  /* 30: jmp 2a */
    0xb9, 0x00, 0x00, 0x00, 0x02, /* 32: mov ecx, 0x2000000 */
    0xe2, 0xfe,			  /* 37: loop 37 */
    0xeb, 0xe5,			  /* 39: jmp 20 */
    0x90, 0x90, 0x90, 0x90, 0x90, /* 3b: pad to 40 */
    'f',  'a',	'k',  'e',  ' ',  'D', 'U',  'T', ':',
    ' ',  'r',	'e',  'a',  'd',  'y', '\n', 0,
};

struct fixture {
	char dir[64];
	char port_s[64];
	int port;
	struct lab lab;
	struct lab_host host;
	struct drv_target power_t, console_t;
	struct power_dev *p;
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
	p->line = 10 + b->nparams;
	assert_non_null(p->value);
}

static void free_params(struct lab_binding *b)
{
	for (int i = 0; i < b->nparams; i++)
		free(b->params[i].value);
	b->nparams = 0;
}

static int free_port(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

static void path_of(const struct fixture *f, const char *leaf, char *out,
		    size_t len)
{
	int n = snprintf(out, len, "%s/%s", f->host.state_dir, leaf);

	assert_true(n > 0 && (size_t)n < len);
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static void flash_fake(struct fixture *f, const void *kernel, size_t len)
{
	char p[PATH_MAX];

	path_of(f, "flash", p, sizeof(p));
	mkdir(f->host.state_dir, 0755);
	mkdir(p, 0755);
	path_of(f, "flash/vmlinuz", p, sizeof(p));
	write_file(p, kernel, len);
	path_of(f, "flash/initrd.img", p, sizeof(p));
	write_file(p, "initrd", 6);
	path_of(f, "flash/cmdline", p, sizeof(p));
	write_file(p, " quiet\n", 7);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct lab_binding *b;
	char fwd[64];
	struct al_err err = {0};

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/airlab-test-power.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->lab.path, sizeof(f->lab.path), "lab/test.yaml");
	snprintf(f->host.name, sizeof(f->host.name), "dut1");
	snprintf(f->host.state_dir, sizeof(f->host.state_dir), "%s/dut1",
		 f->dir);
	f->port = free_port();
	snprintf(fwd, sizeof(fwd), "127.0.0.1:%d", f->port);
	snprintf(f->port_s, sizeof(f->port_s), "%s", fwd);
	b = &f->host.power;
	snprintf(b->driver, sizeof(b->driver), "qemu");
	set_param(b, "memory_mb", "64");
	set_param(b, "cpus", "1");
	set_param(b, "ssh_forward", fwd);
	set_param(b, "boot_timeout_s", "30");
	set_param(b, "append", "airlab.test=1");
	b = &f->host.console;
	snprintf(b->driver, sizeof(b->driver), "serial");
	set_param(b, "port", "{state}/console");
	f->power_t = (struct drv_target){&f->lab, &f->host, &f->host.power};
	f->console_t = (struct drv_target){&f->lab, &f->host, &f->host.console};
	if (power_qemu_ops.open(&f->p, &f->power_t, &err) < 0)
		fail_msg("%s", err.msg);
	*state = f;
	return 0;
}

static pid_t read_pid(const struct fixture *f)
{
	char p[PATH_MAX];
	FILE *fp;
	int pid = 0;

	path_of(f, "qemu.pid", p, sizeof(p));
	fp = fopen(p, "r");
	if (!fp)
		return 0;
	if (fscanf(fp, "%d", &pid) != 1)
		pid = 0;
	fclose(fp);
	return pid;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	pid_t pid = read_pid(f);
	char cmd[128];

	/* Whatever a failed test left running. */
	if (pid > 0) {
		kill(pid, SIGCONT);
		kill(pid, SIGKILL);
	}
	power_qemu_ops.close(f->p);
	free_params(&f->host.power);
	free_params(&f->host.console);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static bool on(struct fixture *f)
{
	struct al_err err = {0};
	bool is_on = false;

	if (power_qemu_ops.get(f->p, &is_on, &err) < 0)
		fail_msg("%s", err.msg);
	return is_on;
}

static void set_ok(struct fixture *f, bool to)
{
	struct al_err err = {0};

	if (power_qemu_ops.set(f->p, to, &err) < 0)
		fail_msg("%s", err.msg);
}

static bool exists(const struct fixture *f, const char *leaf)
{
	char p[PATH_MAX];
	struct stat st;

	path_of(f, leaf, p, sizeof(p));
	return lstat(p, &st) == 0;
}

/* The NUL-separated command line of pid, NULs turned into spaces. */
static void cmdline_of(pid_t pid, char *out, size_t len)
{
	char p[64];
	FILE *fp;
	size_t n;

	snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)pid);
	fp = fopen(p, "r");
	assert_non_null(fp);
	n = fread(out, 1, len - 1, fp);
	fclose(fp);
	for (size_t i = 0; i < n; i++)
		if (!out[i])
			out[i] = ' ';
	out[n] = 0;
}

/* Gone or a zombie not yet reaped by init. */
static bool gone(pid_t pid)
{
	char p[64], line[512];
	FILE *fp;
	size_t n;
	const char *st;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	fp = fopen(p, "r");
	if (!fp)
		return true;
	n = fread(line, 1, sizeof(line) - 1, fp);
	fclose(fp);
	line[n] = 0;
	st = strrchr(line, ')');
	return st && (st[2] == 'Z' || st[2] == 'X');
}

static void read_marker(struct fixture *f, int timeout_ms)
{
	struct console_dev *c;
	struct al_err err = {0};
	char buf[512] = "";
	size_t have = 0;
	int64_t deadline = now_ms() + timeout_ms;

	if (console_serial_ops.open(&c, &f->console_t, &err) < 0)
		fail_msg("%s", err.msg);
	while (!strstr(buf, MARKER)) {
		ssize_t n;

		if (now_ms() > deadline)
			fail_msg("console showed '%s' in %d ms", buf,
				 timeout_ms);
		if (have > sizeof(buf) / 2) {
			memmove(buf, buf + have - 32, 32);
			have = 32;
		}
		n = console_serial_ops.read(c, buf + have,
					    sizeof(buf) - 1 - have, 200, &err);
		if (n < 0)
			fail_msg("%s", err.msg);
		have += (size_t)n;
		buf[have] = 0;
	}
	console_serial_ops.close(c);
}

static void nothing_flashed_is_an_error(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};
	char want[PATH_MAX + 64];

	assert_int_equal(power_qemu_ops.set(f->p, true, &err), -1);
	snprintf(want, sizeof(want),
		 "dut1: nothing flashed in %s/flash (run "
		 "flash first",
		 f->host.state_dir);
	assert_non_null(strstr(err.msg, want));
	assert_false(on(f));
}

static void power_cycle(void **state)
{
	struct fixture *f = *state;
	char cmd[4096], want[128], link[PATH_MAX], target[PATH_MAX];
	pid_t pid;
	ssize_t n;
	FILE *log;

	flash_fake(f, fake_dut, sizeof(fake_dut));
	assert_false(on(f));
	set_ok(f, true);
	assert_true(on(f));
	pid = read_pid(f);
	assert_true(pid > 0);
	assert_true(exists(f, "qmp.sock"));

	/* The console link points at QEMU's pty. */
	path_of(f, "console", link, sizeof(link));
	n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = 0;
	assert_memory_equal(target, "/dev/pts/", 9);

	cmdline_of(pid, cmd, sizeof(cmd));
	assert_non_null(strstr(cmd, "-accel tcg "));
	assert_non_null(strstr(cmd, "-m 64 -smp 1 "));
	assert_non_null(strstr(cmd, "console=ttyS0 quiet airlab.test=1 "));
	snprintf(want, sizeof(want), "hostfwd=tcp:%s-:22 ", f->port_s);
	assert_non_null(strstr(cmd, want));

	/* On when on: nothing happens. */
	set_ok(f, true);
	assert_int_equal(read_pid(f), pid);

	read_marker(f, 10000);

	set_ok(f, false);
	assert_true(gone(pid));
	assert_false(exists(f, "qemu.pid"));
	assert_false(exists(f, "qmp.sock"));
	assert_false(exists(f, "console"));
	assert_false(on(f));
	set_ok(f, false);

	/* The console history stays. */
	path_of(f, "serial.log", link, sizeof(link));
	log = fopen(link, "r");
	assert_non_null(log);
	n = (ssize_t)fread(cmd, 1, sizeof(cmd) - 1, log);
	fclose(log);
	assert_true(n > 0);
	cmd[n] = 0;
	assert_non_null(strstr(cmd, MARKER));
}

static void forward_port_in_use(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)f->port)};
	struct al_err err = {0};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	flash_fake(f, fake_dut, sizeof(fake_dut));
	assert_int_equal(power_qemu_ops.set(f->p, true, &err), -1);
	close(fd);
	assert_non_null(strstr(err.msg, f->port_s));
	assert_false(exists(f, "qemu.pid"));
}

static void qemu_stderr_in_error(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};

	/* Neither a bzImage nor multiboot nor PVH: QEMU refuses it. */
	flash_fake(f, "not a kernel", 12);
	assert_int_equal(power_qemu_ops.set(f->p, true, &err), -1);
	assert_non_null(strstr(err.msg, "failed to start (exit 1)"));
	/* QEMU's own words follow ("qemu: linux kernel too old ..."). */
	if (!strstr(err.msg, "(exit 1): qemu"))
		fail_msg("%s", err.msg);
	assert_false(on(f));
}

static void stale_pidfile_reads_off(void **state)
{
	struct fixture *f = *state;
	char p[PATH_MAX], pidtext[32];
	pid_t dead = fork();

	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	mkdir(f->host.state_dir, 0755);
	path_of(f, "qemu.pid", p, sizeof(p));
	snprintf(pidtext, sizeof(pidtext), "%d\n", (int)dead);
	write_file(p, pidtext, strlen(pidtext));
	assert_false(on(f));
	assert_false(exists(f, "qemu.pid"));

	/* A live pid that is not our QEMU (this test) is stale too. */
	snprintf(pidtext, sizeof(pidtext), "%d\n", (int)getpid());
	write_file(p, pidtext, strlen(pidtext));
	assert_false(on(f));
	assert_false(exists(f, "qemu.pid"));
}

/* A QEMU that does not answer quit (stopped) is killed; off still holds. */
static void hung_qemu_is_killed(void **state)
{
	struct fixture *f = *state;
	pid_t pid;
	int64_t t0;

	flash_fake(f, fake_dut, sizeof(fake_dut));
	set_ok(f, true);
	pid = read_pid(f);
	assert_int_equal(kill(pid, SIGSTOP), 0);
	t0 = now_ms();
	set_ok(f, false);
	assert_true(now_ms() - t0 < 20000);
	assert_true(gone(pid));
	assert_false(exists(f, "qemu.pid"));
	assert_false(on(f));
}

static void bad_settings_refused(void **state)
{
	struct fixture *f = *state;
	struct power_dev *p = (struct power_dev *)1;
	struct al_err err = {0};

	free(f->host.power.params[0].value);
	f->host.power.params[0].value = strdup("lots");
	assert_int_equal(power_qemu_ops.open(&p, &f->power_t, &err), -1);
	assert_null(p);
	assert_non_null(strstr(err.msg, "memory_mb 'lots'"));

	free(f->host.power.params[2].value);
	f->host.power.params[2].value = strdup("localhost");
	free(f->host.power.params[0].value);
	f->host.power.params[0].value = strdup("64");
	assert_int_equal(power_qemu_ops.open(&p, &f->power_t, &err), -1);
	assert_non_null(strstr(err.msg, "ssh_forward 'localhost'"));

	snprintf(f->host.power.params[2].key,
		 sizeof(f->host.power.params[2].key), "ssh_fwd");
	assert_int_equal(power_qemu_ops.open(&p, &f->power_t, &err), -1);
	assert_non_null(strstr(err.msg, "unknown setting 'ssh_fwd'"));

	/* Virtual time: a shift QEMU would refuse, a sleep that is neither
	 * on nor off, and a sleep without a shift are refused before any
	 * QEMU starts. */
	snprintf(f->host.power.params[2].key,
		 sizeof(f->host.power.params[2].key), "ssh_forward");
	free(f->host.power.params[2].value);
	f->host.power.params[2].value = strdup("127.0.0.1:1");
	set_param(&f->host.power, "icount_sleep", "off");
	assert_int_equal(power_qemu_ops.open(&p, &f->power_t, &err), -1);
	assert_non_null(strstr(err.msg, "icount_sleep is set without"));
	set_param(&f->host.power, "icount_shift", "11");
	assert_int_equal(power_qemu_ops.open(&p, &f->power_t, &err), -1);
	assert_non_null(strstr(err.msg, "icount_shift '11' is not a whole "
					"number from 0 to 10"));
	free(f->host.power.params[f->host.power.nparams - 1].value);
	f->host.power.params[f->host.power.nparams - 1].value = strdup("0");
	free(f->host.power.params[f->host.power.nparams - 2].value);
	f->host.power.params[f->host.power.nparams - 2].value = strdup("maybe");
	assert_int_equal(power_qemu_ops.open(&p, &f->power_t, &err), -1);
	assert_non_null(
	    strstr(err.msg, "icount_sleep 'maybe' is not one of on, off"));
	free(f->host.power.params[f->host.power.nparams - 2].value);
	f->host.power.params[f->host.power.nparams - 2].value = strdup("on");
	assert_int_equal(power_qemu_ops.open(&p, &f->power_t, &err), 0);
	power_qemu_ops.close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(nothing_flashed_is_an_error, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(power_cycle, setup, teardown),
	    cmocka_unit_test_setup_teardown(forward_port_in_use, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(qemu_stderr_in_error, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(stale_pidfile_reads_off, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(hung_qemu_is_killed, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(bad_settings_refused, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
