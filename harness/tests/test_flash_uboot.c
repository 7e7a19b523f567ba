/* flash=uboot-tftp at the wire: the driver opens a pty's slave through the
 * serial console driver; on the master side emu_uboot.h plays a U-Boot
 * board that fetches the image over TFTP for real from the in.tftpd the
 * driver started. Checked on the board's side: what arrived (CRC-32 against
 * the image file), the commands in order, the boot; then the ready marker,
 * as `airlab up` waits for it. Faults: no autoboot prompt, silence in the
 * middle of the transfer, a file the server does not have, line noise, the
 * port gone mid-flash. After every case no in.tftpd of the test is left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <pty.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "../cell/dut.h"
#include "../drivers/console/expect.h"
#include "../drivers/driver.h"
#include "emu_uboot.h"

#define IMAGE_NAME  "openwrt-ath79-stock-6.1.bin"
#define IMAGE_BYTES 300001 /* 586 blocks and a short one */

struct fixture {
	char dir[64];
	char image[128];
	char link[160];
	char console_log[128];
	int port;
	int master; /* until the board takes it */
	struct uboot_emu emu;
	struct lab lab;
	struct drv_target flash_t, console_t;
	struct flash_env env;
	char powered[16]; /* the power switches the driver made: "01" */
};

static int power_cb(void *ctx, bool on, struct al_err *err)
{
	struct fixture *f = ctx;
	size_t n = strlen(f->powered);

	if (n + 1 < sizeof(f->powered))
		f->powered[n] = on ? '1' : '0';
	if (uboot_emu_power(&f->emu, on) < 0)
		return al_errf(err, "emulator gone");
	return 0;
}

/* A UDP port nobody holds now on the loopback. */
static int free_udp_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_DGRAM, 0), port;

	assert_true(s >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(s);
	return port;
}

static void write_image(const char *path)
{
	FILE *f = fopen(path, "w");
	uint32_t x = 2463534242u;

	assert_non_null(f);
	for (int i = 0; i < IMAGE_BYTES; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		fputc((int)(x & 0xff), f);
	}
	fclose(f);
}

static uint32_t file_crc32(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	unsigned char *buf = malloc(IMAGE_BYTES + 1);
	uint32_t crc;

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, IMAGE_BYTES + 1, f);
	fclose(f);
	crc = uboot_crc32(buf, *len);
	free(buf);
	return crc;
}

/* in.tftpd processes serving somewhere under the test's directory. */
static int tftpd_left(const char *dir)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], cmd[4096];
		size_t len;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		len = fread(cmd, 1, sizeof(cmd) - 1, f);
		fclose(f);
		for (size_t i = 0; i < len; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		cmd[len] = 0;
		if (strstr(cmd, "in.tftpd") && strstr(cmd, dir))
			n++;
	}
	closedir(d);
	return n;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char slave[128], path[200];
	int master, s;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/airlab-test-uboot.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(path, sizeof(path), "%s/images", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/state", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/state/dut1", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(f->image, sizeof(f->image), "%s/images/%s", f->dir,
		 IMAGE_NAME);
	write_image(f->image);
	assert_int_equal(openpty(&master, &s, slave, NULL, NULL), 0);
	close(s);
	snprintf(f->link, sizeof(f->link), "%s/state/dut1/console", f->dir);
	assert_int_equal(symlink(slave, f->link), 0);
	snprintf(f->console_log, sizeof(f->console_log), "%s/console.log",
		 f->dir);
	snprintf(f->emu.log, sizeof(f->emu.log), "%s/board.log", f->dir);
	f->emu.power = -1;
	f->port = free_udp_port();
	/* The board starts in the test, once its fault is chosen. */
	f->master = master;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	uboot_emu_stop(&f->emu);
	if (f->master >= 0)
		close(f->master);
	lab_free(&f->lab);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	free(f);
	return system(cmd) == 0 ? 0 : -1;
}

/* Loads the lab with extra flash settings. */
static void load(struct fixture *f, const char *extra)
{
	char text[4096];
	struct al_err err;

	snprintf(text, sizeof(text),
		 "lab: t\nstate_dir: %s/state\nimage_dir: %s/images\n"
		 "hosts:\n  dut1:\n"
		 "    power:\n      driver: command\n"
		 "      on: \"true\"\n      off: \"true\"\n"
		 "    flash:\n      driver: uboot-tftp\n"
		 "      image: \"{images}/openwrt-ath79-{variant}.bin\"\n"
		 "      tftp_listen: 127.0.0.1:%d\n"
		 "      dut_ip: 192.168.1.1\n"
		 "      load_addr: \"0x81000000\"\n"
		 "      timeout_s: 3\n%s"
		 "    console:\n      driver: serial\n"
		 "      port: \"{state}/console\"\n"
		 "    shell:\n      driver: ssh\n      host: 127.0.0.1\n",
		 f->dir, f->dir, f->port, extra);
	if (lab_load_buf(&f->lab, "t.yaml", text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg);
	f->flash_t = (struct drv_target){&f->lab, &f->lab.hosts[0],
					 &f->lab.hosts[0].flash};
	f->console_t = (struct drv_target){&f->lab, &f->lab.hosts[0],
					   &f->lab.hosts[0].console};
	f->env = (struct flash_env){
	    .dut = "dut1",
	    .console = &console_serial_ops,
	    .console_t = &f->console_t,
	    .console_log = f->console_log,
	    .power_set = power_cb,
	    .power_ctx = f,
	    .boot_timeout_s = 20,
	};
}

/* The lab, and the board with fault on the pty's master. */
static void start(struct fixture *f, enum uboot_fault fault, const char *extra)
{
	load(f, extra);
	f->emu.fault = fault;
	assert_int_equal(uboot_emu_start(&f->emu, f->master), 0);
	f->master = -1;
}

static int flash(struct fixture *f, struct al_err *err)
{
	const struct flash_ops *ops = flash_driver("uboot-tftp", err);
	struct flash_image img = {"stock-6.1", "6.1", "AIRLAB_VARIANT=x\n"};

	assert_non_null(ops);
	assert_true(ops->boots);
	return ops->flash(&f->flash_t, &img, &f->env, err);
}

/* What `airlab up` does next: the ready marker on the console. */
static void wait_ready(struct fixture *f)
{
	struct console_session s;
	struct al_err err;
	const char *marker = UBOOT_EMU_MARKER;

	if (console_session_open(&s, &console_serial_ops, &f->console_t,
				 f->console_log, &err) < 0)
		fail_msg("%s", err.msg);
	if (console_expect(&s, &marker, 1, 20000, &err) < 0) {
		console_session_close(&s);
		fail_msg("%s", err.msg);
	}
	console_session_close(&s);
}

static char *board_log(struct fixture *f)
{
	static char text[8192];
	FILE *l = fopen(f->emu.log, "r");
	size_t n;

	assert_non_null(l);
	n = fread(text, 1, sizeof(text) - 1, l);
	fclose(l);
	text[n] = 0;
	return text;
}

static void assert_has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("'%s' not in:\n%s", want, text);
}

/* A line starting with prefix and what follows it to the end of line. */
static void assert_line(const char *text, const char *line)
{
	char want[300];

	snprintf(want, sizeof(want), "%s\n", line);
	assert_has(text, want);
}

static void ram_boot(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};
	char want[200], *log;
	size_t len;
	uint32_t crc = file_crc32(f->image, &len);

	start(f, UBOOT_OK, "");
	if (flash(f, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(f->powered, "01");
	assert_int_equal(tftpd_left(f->dir), 0);
	wait_ready(f);
	log = board_log(f);
	assert_line(log, "cmd: setenv ipaddr 192.168.1.1");
	assert_line(log, "cmd: setenv serverip 127.0.0.1");
	snprintf(want, sizeof(want), "cmd: setenv tftpdstp %d", f->port);
	assert_line(log, want);
	assert_line(log, "cmd: tftpboot 0x81000000 " IMAGE_NAME);
	snprintf(want, sizeof(want), "tftp %s %zu bytes crc32 %08x", IMAGE_NAME,
		 len, (unsigned)crc);
	assert_line(log, want);
	assert_line(log, "cmd: bootm 0x81000000");
	assert_line(log, "boot ram");
	/* The console log has the conversation with airlab's notes. */
	{
		FILE *c = fopen(f->console_log, "r");
		char text[65536];
		size_t n;

		assert_non_null(c);
		n = fread(text, 1, sizeof(text) - 1, c);
		fclose(c);
		text[n] = 0;
		assert_has(text, "# airlab: sending 'tftpboot 0x81000000");
		assert_has(text, "Bytes transferred = 300001 (493e1 hex)");
		assert_has(text, UBOOT_EMU_MARKER);
	}
}

static void flash_mode(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};
	char want[200], *log, *erase, *cp, *reset, *boot;
	size_t len;
	uint32_t crc = file_crc32(f->image, &len);

	start(f, UBOOT_OK,
	      "      mode: flash\n"
	      "      flash_commands: \"erase 0x9f050000 +{size}; cp.b "
	      "{load_addr} 0x9f050000 {size}\"\n");
	if (flash(f, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(tftpd_left(f->dir), 0);
	wait_ready(f);
	log = board_log(f);
	erase = strstr(log, "cmd: erase 0x9f050000 +0x493e1\n");
	cp = strstr(log, "cmd: cp.b 0x81000000 0x9f050000 0x493e1\n");
	reset = strstr(log, "cmd: reset\n");
	snprintf(want, sizeof(want), "boot flash crc32 %08x", (unsigned)crc);
	boot = strstr(log, want);
	if (!erase || !cp || !reset || !boot)
		fail_msg("missing a step in:\n%s", log);
	assert_true(erase < cp && cp < reset && reset < boot);
	snprintf(want, sizeof(want), "flash %zu bytes crc32 %08x", len,
		 (unsigned)crc);
	assert_line(log, want);
	assert_null(strstr(log, "cmd: bootm"));
}

/* A flash command U-Boot refuses stops the flash before the reset. */
static void flash_command_refused(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};

	start(f, UBOOT_OK,
	      "      mode: flash\n"
	      "      flash_commands: \"erase 0x9f050000 +{size}; cp.b "
	      "{load_addr} 0x9f000000 {size}\"\n");
	assert_int_equal(flash(f, &err), -1);
	assert_has(err.msg, "step 'cp.b 0x81000000 0x9f000000 0x493e1'");
	assert_has(err.msg, f->link);
	assert_has(err.msg, "U-Boot said 'Copy to Flash... Error: not erased");
	assert_null(strstr(board_log(f), "cmd: reset"));
	assert_int_equal(tftpd_left(f->dir), 0);
}

static void no_autoboot_prompt(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};

	start(f, UBOOT_NO_AUTOBOOT, "");
	assert_int_equal(flash(f, &err), -1);
	assert_has(err.msg, "dut1");
	assert_has(err.msg, f->link);
	assert_has(err.msg, "step 'stop autoboot'");
	assert_has(err.msg, "Hit any key to stop autoboot");
	assert_has(err.msg, "within 3000 ms");
	/* What the board did say is quoted. */
	assert_has(err.msg, "Net:   eth0");
	assert_int_equal(tftpd_left(f->dir), 0);
}

static void silent_mid_transfer(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};

	start(f, UBOOT_SILENT_IN_TFTP, "");
	assert_int_equal(flash(f, &err), -1);
	assert_has(err.msg, f->link);
	assert_has(err.msg, "step 'tftpboot 0x81000000 " IMAGE_NAME);
	assert_has(err.msg, "no 'Bytes transferred = '");
	assert_has(err.msg, "Loading:");
	assert_int_equal(tftpd_left(f->dir), 0);
}

static void file_not_on_server(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};

	start(f, UBOOT_ASKS_OTHER, "");
	assert_int_equal(flash(f, &err), -1);
	assert_has(err.msg, f->link);
	assert_has(err.msg, "step 'tftpboot 0x81000000 " IMAGE_NAME);
	assert_has(err.msg, "U-Boot said 'TFTP error: 'File not found'");
	assert_int_equal(tftpd_left(f->dir), 0);
}

static void garbage_on_the_line(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};
	size_t len;
	uint32_t crc = file_crc32(f->image, &len);
	char want[200];

	start(f, UBOOT_GARBAGE, "");
	if (flash(f, &err) < 0)
		fail_msg("%s", err.msg);
	wait_ready(f);
	snprintf(want, sizeof(want), "tftp %s %zu bytes crc32 %08x", IMAGE_NAME,
		 len, (unsigned)crc);
	assert_line(board_log(f), want);
	assert_int_equal(tftpd_left(f->dir), 0);
}

static void port_gone_mid_flash(void **state)
{
	struct fixture *f = *state;
	struct al_err err = {0};

	start(f, UBOOT_CLOSE_IN_TFTP, "");
	assert_int_equal(flash(f, &err), -1);
	assert_has(err.msg, f->link);
	assert_has(err.msg, "hangup");
	assert_has(err.msg, "step 'tftpboot 0x81000000 " IMAGE_NAME);
	assert_int_equal(tftpd_left(f->dir), 0);
}

/* Settings are refused with the lab file's line before anything starts. */
static void bad_settings(void **state)
{
	static const struct {
		const char *extra, *says;
	} cases[] = {
	    {"      mode: rom\n", "t.yaml:17: dut1 flash (driver uboot-tftp): "
				  "mode 'rom' is not one of ram, flash"},
	    {"      baudrate: 9600\n",
	     "t.yaml:17: dut1 flash (driver uboot-tftp): unknown setting "
	     "'baudrate'"},
	    {"      mode: flash\n", "dut1 flash: mode flash needs "
				    "flash_commands"},
	    {"      server_ip: tftp.lab\n",
	     "t.yaml:17: dut1 flash: server_ip 'tftp.lab' is not an IPv4"},
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct al_err err = {0};

		lab_free(&f->lab);
		memset(&f->lab, 0, sizeof(f->lab));
		/* No board: the power must not even be touched. */
		load(f, cases[i].extra);
		assert_int_equal(flash(f, &err), -1);
		if (!strstr(err.msg, cases[i].says))
			fail_msg("got '%s', want '%s'", err.msg, cases[i].says);
		assert_string_equal(f->powered, "");
		assert_int_equal(tftpd_left(f->dir), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(ram_boot, setup, teardown),
	    cmocka_unit_test_setup_teardown(flash_mode, setup, teardown),
	    cmocka_unit_test_setup_teardown(flash_command_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(no_autoboot_prompt, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(silent_mid_transfer, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(file_not_on_server, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(garbage_on_the_line, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(port_gone_mid_flash, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(bad_settings, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
