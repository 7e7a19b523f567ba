/* power=ftdi-relay: an FT245R / FT232R relay board (SainSmart, Denkovi
 * and the like) driven in bit-bang mode through libftdi: one data pin per
 * relay, D0 is relay 1.
 *
 *   power:
 *     driver: ftdi-relay
 *     vid: 0x0403          # default 0x0403
 *     pid: 0x6001          # default 0x6001 (FT245R/FT232R)
 *     serial: A50285BI     # which board, when several are plugged in
 *     port: 3              # relay 1..8
 *     active_low: false    # boards whose relay closes on a low pin
 *
 * set reads the pins, changes only this relay's bit, writes the byte and
 * reads the pins back; get reads them. Both put the board in bit-bang
 * mode (all eight pins outputs) first: before that the pins are inputs
 * and read high. A board fresh from power-up drives its latch (all low)
 * from then on. */
#include "../driver.h"

#include <ftdi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRIVER "ftdi-relay"

struct relay_conf {
	int vid, pid;
	char serial[64];
	int port;
	bool active_low;
};

static const struct drv_setting settings[] = {
    {.name = "vid",
     .type = DRV_INT,
     .default_value = "0x0403",
     .max = 0xffff,
     DRV_FIELD(struct relay_conf, vid)},
    {.name = "pid",
     .type = DRV_INT,
     .default_value = "0x6001",
     .max = 0xffff,
     DRV_FIELD(struct relay_conf, pid)},
    {.name = "serial", DRV_FIELD(struct relay_conf, serial)},
    POWER_RELAY_PORT(struct relay_conf, port),
    {.name = "active_low",
     .type = DRV_BOOL,
     .default_value = "no",
     DRV_FIELD(struct relay_conf, active_low)},
    {0},
};

struct power_dev {
	const struct lab_host *host;
	struct ftdi_context *ftdi;
	int port, active_low, bitbang;
	char board[128]; /* "FTDI 0403:6001 serial A50285BI" */
};

/* "HOST: power OP: BOARD port N: CALL: libftdi's message" */
static int ftdi_fail(struct power_dev *d, const char *op, const char *call,
		     struct al_err *err)
{
	return al_errf(err, "%s: power %s: %s port %d: %s: %s", d->host->name,
		       op, d->board, d->port, call,
		       ftdi_get_error_string(d->ftdi));
}

/* Lists the boards with vid:pid into d->ftdi and opens the one whose
 * serial is `serial` (any, when NULL and there is exactly one). */
static int find_board(struct power_dev *d, int vid, int pid, const char *serial,
		      struct al_err *err)
{
	struct ftdi_device_list *list = NULL, *e, *pick = NULL;
	char seen[256] = "", sn[64];
	size_t len = 0;
	int n, found = 0;

	n = ftdi_usb_find_all(d->ftdi, &list, vid, pid);
	if (n < 0)
		return al_errf(err,
			       "%s: power: %s port %d: ftdi_usb_find_all: %s",
			       d->host->name, d->board, d->port,
			       ftdi_get_error_string(d->ftdi));
	for (e = list; e; e = e->next) {
		sn[0] = 0;
		if (ftdi_usb_get_strings(d->ftdi, e->dev, NULL, 0, NULL, 0, sn,
					 sizeof(sn)) < 0)
			snprintf(sn, sizeof(sn), "?");
		if (len < sizeof(seen))
			len += (size_t)snprintf(seen + len, sizeof(seen) - len,
						"%s%s", len ? ", " : "", sn);
		if (!serial || !strcmp(serial, sn)) {
			found++;
			if (!pick) {
				pick = e;
				snprintf(d->board, sizeof(d->board),
					 "FTDI %04x:%04x serial %s", vid, pid,
					 sn);
			}
		}
	}
	if (!found || (!serial && found > 1)) {
		al_errf(err,
			"%s: power: %s port %d: %s (boards with %04x:%04x: "
			"%s)",
			d->host->name, d->board, d->port,
			found ? "several boards and no 'serial' to pick one"
			      : "board not found",
			vid, pid, n ? seen : "none");
		ftdi_list_free(&list);
		return -1;
	}
	if (ftdi_usb_open_dev(d->ftdi, pick->dev) < 0) {
		ftdi_fail(d, "open", "ftdi_usb_open_dev", err);
		ftdi_list_free(&list);
		return -1;
	}
	ftdi_list_free(&list);
	return 0;
}

static void relay_close(struct power_dev *d)
{
	if (!d)
		return;
	if (d->ftdi) {
		ftdi_usb_close(d->ftdi);
		ftdi_free(d->ftdi);
	}
	free(d);
}

static int relay_open(struct power_dev **out, const struct drv_target *t,
		      struct al_err *err)
{
	struct relay_conf c = {0};
	struct power_dev *d;

	*out = NULL;
	if (drv_settings_read(t, settings, &c, err) < 0)
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d)
		return al_errf(err, "%s power: out of memory", t->host->name);
	d->host = t->host;
	d->port = c.port;
	d->active_low = c.active_low;
	snprintf(d->board, sizeof(d->board), "FTDI %04x:%04x serial %s", c.vid,
		 c.pid, c.serial[0] ? c.serial : "(any)");
	d->ftdi = ftdi_new();
	if (!d->ftdi) {
		free(d);
		return al_errf(err, "%s: power: ftdi_new failed",
			       t->host->name);
	}
	if (find_board(d, c.vid, c.pid, c.serial[0] ? c.serial : NULL, err) <
	    0) {
		relay_close(d);
		return -1;
	}
	*out = d;
	return 0;
}

/* Bit-bang mode with all eight pins outputs, once per open. Before it the
 * pins are inputs and read high whatever the relays hold; entering it
 * again keeps the output latch, so the relays do not move. */
static int bitbang(struct power_dev *d, const char *op, struct al_err *err)
{
	if (d->bitbang)
		return 0;
	if (ftdi_set_bitmode(d->ftdi, 0xff, BITMODE_BITBANG) < 0)
		return ftdi_fail(d, op, "ftdi_set_bitmode(0xff, BITBANG)", err);
	d->bitbang = 1;
	return 0;
}

static int relay_get(struct power_dev *d, bool *on, struct al_err *err)
{
	unsigned char pins;

	if (bitbang(d, "get", err) < 0)
		return -1;
	if (ftdi_read_pins(d->ftdi, &pins) < 0)
		return ftdi_fail(d, "get", "ftdi_read_pins", err);
	*on = ((pins >> (d->port - 1)) & 1) != d->active_low;
	return 0;
}

static int relay_set(struct power_dev *d, bool on, struct al_err *err)
{
	unsigned char pins, want, bit = (unsigned char)(1u << (d->port - 1));

	if (bitbang(d, "set", err) < 0)
		return -1;
	if (ftdi_read_pins(d->ftdi, &pins) < 0)
		return ftdi_fail(d, "set", "ftdi_read_pins", err);
	want = on != (bool)d->active_low ? pins | bit : pins & ~bit;
	if (ftdi_write_data(d->ftdi, &want, 1) != 1)
		return ftdi_fail(d, "set", "ftdi_write_data", err);
	if (ftdi_read_pins(d->ftdi, &pins) < 0)
		return ftdi_fail(d, "set", "ftdi_read_pins (read back)", err);
	if (pins != want)
		return al_errf(
		    err,
		    "%s: power set %s: %s port %d: wrote pins 0x%02x, "
		    "read back 0x%02x",
		    d->host->name, on ? "on" : "off", d->board, d->port, want,
		    pins);
	return 0;
}

const struct power_ops power_ftdi_relay_ops = {
    DRIVER, relay_open, relay_set, relay_get, relay_close, settings};
