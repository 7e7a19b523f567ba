/* power=usb-hid-relay: the common "USBRelay" HID boards (V-USB firmware,
 * VID 0x16C0 PID 0x05DF, product "USBRelayN" for N relays), through
 * libusb feature reports on interface 0 (report id 0, 8 bytes):
 *
 *   SET_REPORT [0xFF, relay]   relay on      [0xFD, relay]  relay off
 *   GET_REPORT                 bytes 0-4 the board's serial (ASCII),
 *                              byte 7 the relays, bit 0 = relay 1
 *
 *   power:
 *     driver: usb-hid-relay
 *     serial: QWERT     # the board's 5-character id, when several
 *     port: 2           # relay 1..8 (at most the board's N)
 *
 * The kernel's usbhid is detached while airlab holds the board and
 * given it back on close. Every set is read back. */
#include "../driver.h"

#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRIVER	     "usb-hid-relay"
#define VID	     0x16c0
#define PID	     0x05df
#define TIMEOUT_MS   2000
#define REPORT_LEN   8
#define SET_REPORT   0x09
#define GET_REPORT   0x01
#define FEATURE_ID_0 0x0300 /* wValue: report type feature, id 0 */

struct hid_conf {
	char serial[64];
	int port;
};

static const struct drv_setting settings[] = {
    {.name = "serial", DRV_FIELD(struct hid_conf, serial)},
    POWER_RELAY_PORT(struct hid_conf, port),
    {0},
};

struct power_dev {
	const struct lab_host *host;
	libusb_context *ctx;
	libusb_device_handle *h;
	int port, relays;
	char board[96]; /* "USBRelay8 16c0:05df serial QWERT (bus 1 dev 2)" */
};

static int usb_fail(struct power_dev *d, const char *op, const char *call,
		    int rc, struct al_err *err)
{
	return al_errf(err, "%s: power %s: %s port %d: %s: %s", d->host->name,
		       op, d->board, d->port, call, libusb_strerror(rc));
}

static int get_report(libusb_device_handle *h, unsigned char *r)
{
	int rc = libusb_control_transfer(
	    h,
	    LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_CLASS |
		LIBUSB_RECIPIENT_INTERFACE,
	    GET_REPORT, FEATURE_ID_0, 0, r, REPORT_LEN, TIMEOUT_MS);

	if (rc >= 0 && rc != REPORT_LEN)
		return LIBUSB_ERROR_IO;
	return rc < 0 ? rc : 0;
}

/* Opens a candidate: a USBRelayN board, interface 0 claimed; its relay
 * count and serial. NULL when it is not one or cannot be read (why in
 * why). */
static libusb_device_handle *probe(libusb_device *dev, int *relays,
				   char *serial, char *why, size_t wlen)
{
	struct libusb_device_descriptor dd;
	libusb_device_handle *h;
	unsigned char prod[64], r[REPORT_LEN];
	int rc, n;

	if (libusb_get_device_descriptor(dev, &dd) < 0 || dd.idVendor != VID ||
	    dd.idProduct != PID)
		return NULL;
	rc = libusb_open(dev, &h);
	if (rc < 0) {
		snprintf(why, wlen, "libusb_open: %s", libusb_strerror(rc));
		return NULL;
	}
	rc = libusb_get_string_descriptor_ascii(h, dd.iProduct, prod,
						sizeof(prod));
	if (rc < 0 || sscanf((char *)prod, "USBRelay%d", &n) != 1 || n < 1 ||
	    n > 8) {
		libusb_close(h);
		return NULL; /* another V-USB device */
	}
	libusb_set_auto_detach_kernel_driver(h, 1);
	rc = libusb_claim_interface(h, 0);
	if (rc >= 0)
		rc = get_report(h, r);
	if (rc < 0) {
		snprintf(why, wlen, "%s: %s", prod, libusb_strerror(rc));
		libusb_release_interface(h, 0);
		libusb_close(h);
		return NULL;
	}
	for (int i = 0; i < 5; i++)
		serial[i] = r[i] >= ' ' && r[i] <= '~' ? (char)r[i] : '?';
	serial[5] = 0;
	*relays = n;
	return h;
}

static void relay_close(struct power_dev *d)
{
	if (!d)
		return;
	if (d->h) {
		libusb_release_interface(d->h, 0);
		libusb_close(d->h);
	}
	if (d->ctx)
		libusb_exit(d->ctx);
	free(d);
}

static int relay_open(struct power_dev **out, const struct drv_target *t,
		      struct al_err *err)
{
	struct hid_conf c = {0};
	const char *want;
	libusb_device **list = NULL;
	struct power_dev *d;
	char seen[256] = "", why[160] = "", sn[8];
	size_t len = 0;
	ssize_t n;
	int rc, relays, found = 0;

	*out = NULL;
	if (drv_settings_read(t, settings, &c, err) < 0)
		return -1;
	want = c.serial[0] ? c.serial : NULL;
	if (want && strlen(want) != 5)
		return drv_setting_invalid(
		    t, "serial", "is not a board id (5 characters, e.g. QWERT)",
		    err);
	d = calloc(1, sizeof(*d));
	if (!d)
		return al_errf(err, "%s power: out of memory", t->host->name);
	d->host = t->host;
	d->port = c.port;
	snprintf(d->board, sizeof(d->board), "USBRelay %04x:%04x serial %s",
		 VID, PID, want ? want : "(any)");
	rc = libusb_init(&d->ctx);
	if (rc < 0) {
		d->ctx = NULL;
		usb_fail(d, "open", "libusb_init", rc, err);
		goto fail;
	}
	n = libusb_get_device_list(d->ctx, &list);
	if (n < 0) {
		usb_fail(d, "open", "libusb_get_device_list", (int)n, err);
		goto fail;
	}
	for (ssize_t i = 0; i < n; i++) {
		libusb_device_handle *h =
		    probe(list[i], &relays, sn, why, sizeof(why));

		if (!h)
			continue;
		if (len < sizeof(seen))
			len += (size_t)snprintf(seen + len, sizeof(seen) - len,
						"%s%s", len ? ", " : "", sn);
		if ((want && strcmp(want, sn)) || (!want && found++)) {
			libusb_release_interface(h, 0);
			libusb_close(h);
			continue;
		}
		if (want)
			found++;
		d->h = h;
		d->relays = relays;
		snprintf(d->board, sizeof(d->board),
			 "USBRelay%d %04x:%04x serial %s (bus %d dev %d)",
			 relays, VID, PID, sn, libusb_get_bus_number(list[i]),
			 libusb_get_device_address(list[i]));
	}
	libusb_free_device_list(list, 1);
	if (!d->h || found > 1) {
		al_errf(err,
			"%s: power: %s port %d: %s (USBRelay boards: %s%s%s)",
			t->host->name, d->board, d->port,
			found > 1 ? "several boards and no 'serial' to pick one"
				  : "board not found",
			len ? seen : "none", why[0] ? "; " : "", why);
		goto fail;
	}
	if (d->port > d->relays) {
		al_err_input(
		    err,
		    "%s:%d: %s power (driver %s): port %d, but %s has %d "
		    "relay%s",
		    t->lab->path, drv_setting_line(t, "port"), t->host->name,
		    DRIVER, d->port, d->board, d->relays,
		    d->relays == 1 ? "" : "s");
		goto fail;
	}
	*out = d;
	return 0;
fail:
	relay_close(d);
	return -1;
}

static int relay_get(struct power_dev *d, bool *on, struct al_err *err)
{
	unsigned char r[REPORT_LEN];
	int rc = get_report(d->h, r);

	if (rc < 0)
		return usb_fail(d, "get", "GET_REPORT (feature)", rc, err);
	*on = (r[7] >> (d->port - 1)) & 1;
	return 0;
}

static int relay_set(struct power_dev *d, bool on, struct al_err *err)
{
	unsigned char r[REPORT_LEN] = {on ? 0xff : 0xfd,
				       (unsigned char)d->port};
	const char *op = on ? "set on" : "set off";
	bool now;
	int rc = libusb_control_transfer(
	    d->h,
	    LIBUSB_ENDPOINT_OUT | LIBUSB_REQUEST_TYPE_CLASS |
		LIBUSB_RECIPIENT_INTERFACE,
	    SET_REPORT, FEATURE_ID_0, 0, r, REPORT_LEN, TIMEOUT_MS);

	if (rc < 0)
		return usb_fail(d, op,
				on ? "SET_REPORT [0xff port]"
				   : "SET_REPORT [0xfd port]",
				rc, err);
	rc = get_report(d->h, r);
	if (rc < 0)
		return usb_fail(d, op, "GET_REPORT (read back)", rc, err);
	now = (r[7] >> (d->port - 1)) & 1;
	if (now != on)
		return al_errf(err,
			       "%s: power %s: %s port %d: the board still "
			       "reports it %s (relays 0x%02x)",
			       d->host->name, op, d->board, d->port,
			       now ? "on" : "off", r[7]);
	return 0;
}

const struct power_ops power_usb_hid_relay_ops = {
    DRIVER, relay_open, relay_set, relay_get, relay_close, settings};
