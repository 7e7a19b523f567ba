/* airlab-usbtest: runs inside the guest (it_usb.sh) and drives airlab's
 * real USB drivers (ftdi-relay, usb-hid-relay, minicircuits-usb, through
 * the driver registry as the CLI does) against devices emulated by
 * airlab-usb-emu on dummy_hcd: every relay switched and read back, every
 * attenuator channel set across its range and read back, values out of
 * range refused before they reach the device, boards told apart by serial,
 * and an emulator that dies in the middle of a command. What the driver
 * reports is held against the emulator's own state
 * (/run/airlab-usb/NAME.state), not only against the driver's read back.
 * Prints "ok - ..." / "not ok - ..." lines; exit 0 when all passed. A step
 * that hangs is reported as such (SIGALRM) and ends the run.
 *
 *   airlab-usbtest UDC0 UDC1 UDC2 UDC3    (four of dummy_hcd's UDCs) */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../cell/atten.h"
#include "../../drivers/driver.h"

#define EMU	  "airlab-usb-emu"
#define STATE_DIR "/tmp/airlab-usbtest"
#define STEP_S	  60

static int passed, failed;
static char step[200];

static void on_alarm(int sig)
{
	char msg[300];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "not ok - hung for %d s in: %s\n",
		     STEP_S, step);
	if (write(1, msg, (size_t)n) < 0)
		_exit(3);
	_exit(3);
}

static void begin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void begin(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(step, sizeof(step), fmt, ap);
	va_end(ap);
	alarm(STEP_S);
}

static void result(bool good, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void result(bool good, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", good ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (good)
		passed++;
	else
		failed++;
}

/* ---- emulators ---- */

struct emu {
	pid_t pid;
	char name[32], serial[32];
	unsigned vid;
	bool hid; /* wait for usbhid to bind it */
};

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = 0;
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The sysfs directory of the configured USB device with this serial. */
static int usb_dev_dir(const struct emu *e, char *out, size_t len)
{
	DIR *d = opendir("/sys/bus/usb/devices");
	struct dirent *de;
	char p[512], v[64];
	int found = -1;

	if (!d)
		return -1;
	while ((de = readdir(d)) && found < 0) {
		snprintf(p, sizeof(p), "/sys/bus/usb/devices/%s/serial",
			 de->d_name);
		if (read_file(p, v, sizeof(v)) < 0 || strcmp(v, e->serial))
			continue;
		snprintf(p, sizeof(p), "/sys/bus/usb/devices/%s/idVendor",
			 de->d_name);
		if (read_file(p, v, sizeof(v)) < 0 ||
		    strtoul(v, NULL, 16) != e->vid)
			continue;
		snprintf(p, sizeof(p),
			 "/sys/bus/usb/devices/%s/bConfigurationValue",
			 de->d_name);
		if (read_file(p, v, sizeof(v)) < 0 || !v[0])
			continue;
		snprintf(out, len, "/sys/bus/usb/devices/%s", de->d_name);
		found = 0;
	}
	closedir(d);
	return found;
}

/* The kernel driver of interface 0 of the emulated device ("usbhid",
 * "usbfs" while libusb holds it), "" for none. */
static const char *iface_driver(const struct emu *e)
{
	static char name[64];
	char dir[300], p[400], link[256];
	ssize_t n;

	name[0] = 0;
	if (usb_dev_dir(e, dir, sizeof(dir)) < 0)
		return name;
	snprintf(p, sizeof(p), "%s/%s:1.0/driver", dir, strrchr(dir, '/') + 1);
	n = readlink(p, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		snprintf(name, sizeof(name), "%s", strrchr(link, '/') + 1);
	}
	return name;
}

static bool iface_bound(const struct emu *e)
{
	return !strcmp(iface_driver(e), "usbhid");
}

/* Starts an emulator and waits until the guest's USB host configured
 * it (and, for a HID device, usbhid took it). */
static bool emu_start(struct emu *e, const char *kind, const char *name,
		      unsigned vid, const char *udc, const char *serial,
		      const char *opt, const char *val, int die_at)
{
	char die[16], line[64] = "";
	int pfd[2];
	FILE *f;

	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->serial, sizeof(e->serial), "%s", serial);
	e->vid = vid;
	e->hid = strcmp(kind, "ftdi") != 0;
	snprintf(die, sizeof(die), "%d", die_at);
	if (pipe(pfd) < 0)
		return false;
	e->pid = fork();
	if (e->pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execlp(EMU, EMU, kind, "--name", name, "--udc", udc, "--serial",
		       serial, "--die-at", die, opt ? opt : NULL, val,
		       (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	if (!f || !fgets(line, sizeof(line), f) || strcmp(line, "ready\n")) {
		if (f)
			fclose(f);
		fprintf(stderr, "usbtest: %s %s did not come up\n", EMU, kind);
		return false;
	}
	fclose(f);
	for (;;) {
		char dir[300];
		int st;

		if (usb_dev_dir(e, dir, sizeof(dir)) == 0 &&
		    (!e->hid || iface_bound(e)))
			return true;
		if (waitpid(e->pid, &st, WNOHANG) == e->pid) {
			fprintf(stderr, "usbtest: %s %s exited (status 0x%x)\n",
				EMU, kind, st);
			e->pid = 0;
			return false;
		}
		sleep_ms(50);
	}
}

static void emu_stop(struct emu *e)
{
	char cmd[128];
	int st;

	if (e->pid > 0) {
		kill(e->pid, SIGTERM);
		waitpid(e->pid, &st, 0);
	}
	e->pid = 0;
	snprintf(cmd, sizeof(cmd), EMU " remove %s", e->name);
	if (system(cmd) != 0)
		fprintf(stderr, "usbtest: %s failed\n", cmd);
}

/* Whether the emulator died of SIGKILL (its --die-at). */
static bool emu_died(struct emu *e)
{
	int st;

	if (e->pid <= 0 || waitpid(e->pid, &st, 0) != e->pid)
		return false;
	e->pid = 0;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

static void emu_state_of(const struct emu *e, char *buf, size_t len)
{
	char p[128];

	snprintf(p, sizeof(p), "/run/airlab-usb/%s.state", e->name);
	read_file(p, buf, len);
}

/* ---- drivers, through the registry ---- */

static struct lab lab;

static int load_lab(const char *text, struct al_err *err)
{
	lab_free(&lab);
	memset(&lab, 0, sizeof(lab));
	return lab_load_buf(&lab, "usb.yaml", text, strlen(text), err);
}

enum op { GET, ON, OFF };

/* Opens relay1's power (driver + settings lines), does op, closes. */
static int power(const char *driver, const char *settings, enum op op, bool *on,
		 struct al_err *err)
{
	char text[1024];
	const struct power_ops *ops;
	struct power_dev *d;
	struct drv_target t;
	int rc;

	snprintf(text, sizeof(text),
		 "lab: usb\nstate_dir: " STATE_DIR "\nhosts:\n  relay1:\n"
		 "    power:\n      driver: %s\n%s",
		 driver, settings);
	if (load_lab(text, err) < 0 || !(ops = power_driver(driver, err)))
		return -1;
	t = (struct drv_target){&lab, &lab.hosts[0], &lab.hosts[0].power};
	if (ops->open(&d, &t, err) < 0)
		return -1;
	rc = op == GET ? ops->get(d, on, err) : ops->set(d, op == ON, err);
	ops->close(d);
	return rc;
}

/* set, then get: 0 when the relay reads back as set. */
static int switch_relay(const char *driver, const char *settings, bool on,
			char *msg, size_t len)
{
	struct al_err err = {0};
	bool now = !on;

	if (power(driver, settings, on ? ON : OFF, NULL, &err) < 0 ||
	    power(driver, settings, GET, &now, &err) < 0) {
		snprintf(msg, len, "%s", err.msg);
		return -1;
	}
	snprintf(msg, len, "read back %s", now ? "on" : "off");
	return now == on ? 0 : -1;
}

static bool has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

/* ---- FTDI relay board ---- */

static void test_ftdi(const char *udc)
{
	struct emu e = {0};
	char set[256], msg[AL_ERR_MAX], st[256];
	unsigned latch = 0, want = 0;
	struct al_err err;
	bool on;

	begin("ftdi emulator up");
	if (!emu_start(&e, "ftdi", "ftdi1", 0x0403, udc, "FT1RELAY", NULL, NULL,
		       0)) {
		result(false, "ftdi: FT245R emulator enumerated");
		return;
	}
	result(true, "ftdi: FT245R emulator enumerated (0403:6001 FT1RELAY)");
	for (int pass = 0; pass < 2; pass++)
		for (int p = 1; p <= 8; p++) {
			bool to = pass == 0;

			begin("ftdi-relay port %d %s", p, to ? "on" : "off");
			snprintf(set, sizeof(set),
				 "      serial: FT1RELAY\n      port: %d\n", p);
			want =
			    to ? want | 1u << (p - 1) : want & ~(1u << (p - 1));
			int rc = switch_relay("ftdi-relay", set, to, msg,
					      sizeof(msg));
			emu_state_of(&e, st, sizeof(st));
			latch = 0xffff;
			if (strstr(st, "latch="))
				latch = (unsigned)strtoul(
				    strstr(st, "latch=") + 6, NULL, 16);
			result(rc == 0 && latch == want && has(st, "mode=1 "),
			       "ftdi-relay: port %d %s, %s; board pins 0x%02x "
			       "(want 0x%02x, only this relay changed)",
			       p, to ? "on" : "off", msg, latch, want);
		}
	begin("ftdi-relay active_low");
	snprintf(set, sizeof(set),
		 "      serial: FT1RELAY\n      port: 3\n"
		 "      active_low: true\n");
	int rc = switch_relay("ftdi-relay", set, false, msg, sizeof(msg));
	emu_state_of(&e, st, sizeof(st));
	result(rc == 0 && has(st, "latch=0x04"),
	       "ftdi-relay active_low: port 3 off drives its pin high (%s; %s)",
	       msg, st);
	rc = switch_relay("ftdi-relay", set, true, msg, sizeof(msg));
	emu_state_of(&e, st, sizeof(st));
	result(rc == 0 && has(st, "latch=0x00"),
	       "ftdi-relay active_low: port 3 on drives it low (%s; %s)", msg,
	       st);

	begin("ftdi-relay unknown serial");
	rc = power("ftdi-relay", "      serial: NOSUCH\n      port: 1\n", GET,
		   &on, &err);
	result(rc < 0 && has(err.msg, "relay1: power") &&
		   has(err.msg, "FTDI 0403:6001 serial NOSUCH port 1") &&
		   has(err.msg, "board not found") && has(err.msg, "FT1RELAY"),
	       "ftdi-relay: a serial not plugged in is refused: %s", err.msg);
	emu_stop(&e);

	begin("ftdi-relay emulator killed mid-command");
	if (!emu_start(&e, "ftdi", "ftdi1", 0x0403, udc, "FT1RELAY", NULL, NULL,
		       1)) {
		result(false, "ftdi: emulator with --die-at 1 enumerated");
		return;
	}
	rc = power("ftdi-relay", "      serial: FT1RELAY\n      port: 4\n", ON,
		   NULL, &err);
	result(rc < 0 && emu_died(&e) && has(err.msg, "relay1: power set") &&
		   has(err.msg, "FTDI 0403:6001 serial FT1RELAY port 4") &&
		   has(err.msg, "ftdi_"),
	       "ftdi-relay: board gone in the middle of a set: %s", err.msg);
	emu_stop(&e);
	rc = power("ftdi-relay", "      serial: FT1RELAY\n      port: 4\n", GET,
		   &on, &err);
	result(rc < 0 && has(err.msg, "board not found"),
	       "ftdi-relay: then the board is reported missing: %s", err.msg);
}

/* ---- USBRelay HID boards ---- */

static void test_hid_relay(const char *udc_a, const char *udc_b)
{
	struct emu a = {0}, b = {0};
	char set[256], msg[AL_ERR_MAX], st[256], want[64];
	struct al_err err;
	unsigned bits = 0;
	bool on;
	int rc;

	begin("usbrelay emulators up");
	if (!emu_start(&a, "usbrelay", "relay8", 0x16c0, udc_a, "QWERT",
		       "--relays", "8", 0) ||
	    !emu_start(&b, "usbrelay", "relay4", 0x16c0, udc_b, "ASDFG",
		       "--relays", "4", 0)) {
		result(false,
		       "usb-hid-relay: two USBRelay emulators enumerated");
		emu_stop(&a);
		emu_stop(&b);
		return;
	}
	result(iface_bound(&a) && iface_bound(&b),
	       "usb-hid-relay: two boards enumerated, usbhid bound to both");
	for (int pass = 0; pass < 2; pass++)
		for (int p = 1; p <= 8; p++) {
			bool to = pass == 0;

			begin("usb-hid-relay port %d", p);
			bits =
			    to ? bits | 1u << (p - 1) : bits & ~(1u << (p - 1));
			snprintf(set, sizeof(set),
				 "      serial: QWERT\n      port: %d\n", p);
			rc = switch_relay("usb-hid-relay", set, to, msg,
					  sizeof(msg));
			emu_state_of(&a, st, sizeof(st));
			snprintf(want, sizeof(want), "relays=0x%02x ", bits);
			result(rc == 0 && has(st, want),
			       "usb-hid-relay: QWERT relay %d %s, %s; board "
			       "says %s",
			       p, to ? "on" : "off", msg, st);
		}
	result(iface_bound(&a),
	       "usb-hid-relay: usbhid has the board back after close");

	begin("usb-hid-relay second board");
	rc = switch_relay("usb-hid-relay",
			  "      serial: ASDFG\n      port: 4\n", true, msg,
			  sizeof(msg));
	emu_state_of(&b, st, sizeof(st));
	char sta[256];
	emu_state_of(&a, sta, sizeof(sta));
	result(rc == 0 && has(st, "relays=0x08 ") && has(sta, "relays=0x00 "),
	       "usb-hid-relay: serial picks the board: ASDFG relay 4 on (%s; "
	       "%s; QWERT %s)",
	       msg, st, sta);
	rc = power("usb-hid-relay", "      serial: ASDFG\n      port: 5\n", GET,
		   &on, &err);
	result(rc < 0 && has(err.msg, "usb.yaml:8:") &&
		   has(err.msg, "port 5, but USBRelay4") &&
		   has(err.msg, "has 4 relays"),
	       "usb-hid-relay: a port beyond the board's relays is refused: %s",
	       err.msg);
	rc = power("usb-hid-relay", "      port: 1\n", GET, &on, &err);
	result(rc < 0 && has(err.msg, "several boards") &&
		   has(err.msg, "QWERT") && has(err.msg, "ASDFG"),
	       "usb-hid-relay: two boards and no serial is refused: %s",
	       err.msg);
	emu_stop(&b);

	begin("usb-hid-relay emulator killed mid-command");
	emu_stop(&a);
	if (!emu_start(&a, "usbrelay", "relay8", 0x16c0, udc_a, "QWERT",
		       "--relays", "8", 1)) {
		result(false, "usb-hid-relay: emulator with --die-at 1 up");
		emu_stop(&a);
		return;
	}
	rc = power("usb-hid-relay", "      serial: QWERT\n      port: 2\n", ON,
		   NULL, &err);
	result(rc < 0 && emu_died(&a) && has(err.msg, "relay1: power set on") &&
		   has(err.msg, "USBRelay8 16c0:05df serial QWERT") &&
		   has(err.msg, "port 2: SET_REPORT"),
	       "usb-hid-relay: board gone in the middle of a set: %s", err.msg);
	emu_stop(&a);
}

/* ---- Mini-Circuits USB attenuator ---- */

static int open_box(struct atten_handle *h, const char *serial, int npaths,
		    struct al_err *err)
{
	char text[1024];
	const struct lab_atten *a;
	int ch;

	snprintf(text, sizeof(text),
		 "lab: usb\nstate_dir: " STATE_DIR "\nhosts:\n  dut1:\n"
		 "    shell: {driver: ssh}\nattenuators:\n  box:\n"
		 "    driver: minicircuits-usb\n    serial: %s\n"
		 "    timeout_ms: 1000\n    paths: %s\n",
		 serial, npaths == 1 ? "p1" : "p1 p2 p3 p4");
	if (load_lab(text, err) < 0 ||
	    atten_path_find(&lab, "p1", &a, &ch, err) < 0)
		return -1;
	return atten_open(h, &lab, a, err);
}

/* The value the emulator holds on channel ch, from "att=a,b,c,d ...". */
static double emu_att(const struct emu *e, int ch, int *sets)
{
	char st[256], *p;
	double v = -1;

	emu_state_of(e, st, sizeof(st));
	p = strstr(st, "att=");
	for (int i = 1; p && i <= ch; i++) {
		v = strtod(p + (i == 1 ? 4 : 1), &p);
	}
	p = strstr(st, "sets=");
	*sets = p ? atoi(p + 5) : -1;
	return v;
}

static void test_minicircuits(const char *udc)
{
	static const double vals[] = {0, 0.25, 12.75, 45.5, 89.75, 90};
	static const double bad[] = {90.25, -0.25, 10.1};
	struct atten_handle h = {0};
	struct emu e = {0};
	struct al_err err;
	char got[256];
	double db;
	int sets, sets0;

	begin("minicircuits emulator up");
	if (!emu_start(&e, "minicircuits", "mc1", 0x20ce, udc, "11912140001",
		       "--model", "RC4DAT-6000-90", 0)) {
		result(false, "minicircuits-usb: RC4DAT emulator enumerated");
		emu_stop(&e);
		return;
	}
	begin("minicircuits-usb open");
	if (open_box(&h, "11912140001", 4, &err) < 0) {
		result(false, "minicircuits-usb: open: %s", err.msg);
		emu_stop(&e);
		return;
	}
	result(!strcmp(iface_driver(&e), "usbfs"),
	       "minicircuits-usb: opened RC4DAT-6000-90 11912140001 (usbhid "
	       "detached while held: the interface's driver is '%s')",
	       iface_driver(&e));
	for (int ch = 1; ch <= 4; ch++) {
		bool good = true;
		size_t n = 0;

		begin("minicircuits-usb channel %d", ch);
		got[0] = 0;
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			double v = vals[(i + (size_t)ch) % 6];

			if (h.ops->set_db(h.dev, ch, v, &err) < 0 ||
			    h.ops->get_db(h.dev, ch, &db, &err) < 0) {
				good = false;
				n += (size_t)snprintf(got + n, sizeof(got) - n,
						      " [%s]", err.msg);
				break;
			}
			good = good && db == v && emu_att(&e, ch, &sets) == v;
			if (n < sizeof(got))
				n += (size_t)snprintf(got + n, sizeof(got) - n,
						      " %g", db);
		}
		result(good,
		       "minicircuits-usb: channel %d set and read back across "
		       "0..90 dB:%s",
		       ch, got);
	}
	begin("minicircuits-usb out of range");
	h.ops->set_db(h.dev, 2, 30.5, &err);
	emu_att(&e, 2, &sets0);
	for (size_t i = 0; i < 3; i++) {
		int rc = h.ops->set_db(h.dev, 2, bad[i], &err);
		double held = emu_att(&e, 2, &sets);

		result(rc < 0 && sets == sets0 && held == 30.5 &&
			   has(err.msg, "attenuator box (minicircuits-usb at "
					"USB 20ce:0023 serial 11912140001"),
		       "minicircuits-usb: %g dB refused before sending (box "
		       "still %g, %d sets): %s",
		       bad[i], held, sets, err.msg);
	}
	result(h.ops->set_db(h.dev, 5, 1, &err) < 0 &&
		   has(err.msg, "has no channel 5"),
	       "minicircuits-usb: channel 5 refused: %s", err.msg);
	atten_close(&h);
	result(iface_bound(&e), "minicircuits-usb: usbhid has it back after "
				"close");
	emu_stop(&e);

	begin("minicircuits-usb single channel");
	if (!emu_start(&e, "minicircuits", "mc1", 0x20ce, udc, "11912140002",
		       "--model", "RUDAT-6000-30", 0) ||
	    open_box(&h, "11912140002", 1, &err) < 0) {
		result(false, "minicircuits-usb: RUDAT-6000-30: %s", err.msg);
	} else {
		int rc = h.ops->set_db(h.dev, 1, 29.75, &err);

		rc = rc < 0 ? rc : h.ops->get_db(h.dev, 1, &db, &err);
		result(rc == 0 && db == 29.75 && emu_att(&e, 1, &sets) == 29.75,
		       "minicircuits-usb: RUDAT-6000-30 holds 29.75 dB");
		result(h.ops->set_db(h.dev, 1, 30.25, &err) < 0 &&
			   has(err.msg, "outside RUDAT-6000-30's range"),
		       "minicircuits-usb: 30.25 dB refused on a 30 dB model: "
		       "%s",
		       err.msg);
	}
	atten_close(&h);
	emu_stop(&e);

	begin("minicircuits-usb emulator killed mid-command");
	/* open asks the serial twice and the model once: the 4th report is
	 * the set. */
	if (!emu_start(&e, "minicircuits", "mc1", 0x20ce, udc, "11912140001",
		       "--model", "RC4DAT-6000-90", 4) ||
	    open_box(&h, "11912140001", 4, &err) < 0) {
		result(false, "minicircuits-usb: --die-at 4: %s", err.msg);
	} else {
		int rc = h.ops->set_db(h.dev, 3, 20, &err);

		result(rc < 0 && emu_died(&e) &&
			   has(err.msg, "attenuator box (minicircuits-usb at "
					"USB 20ce:0023 serial 11912140001") &&
			   has(err.msg, "no reply within 1000 ms"),
		       "minicircuits-usb: box gone in the middle of a set: %s",
		       err.msg);
	}
	atten_close(&h);
	emu_stop(&e);
}

int main(int argc, char **argv)
{
	signal(SIGALRM, on_alarm);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 5) {
		fprintf(stderr, "usage: airlab-usbtest UDC0 UDC1 UDC2 UDC3\n");
		return 2;
	}
	mkdir(STATE_DIR, 0755);
	test_ftdi(argv[1]);
	test_hid_relay(argv[2], argv[3]);
	test_minicircuits(argv[4]);
	lab_free(&lab);
	alarm(0);
	printf("# usbtest: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
