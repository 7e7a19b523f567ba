/* atten=minicircuits-usb: a Mini-Circuits attenuator on USB (HID, VID
 * 0x20CE PID 0x0023) through libusb: 64-byte reports on the interrupt
 * endpoints, byte 0 the command and the reply's byte 0 the same code:
 *
 *   40  model     reply: ASCII from byte 1 ("RC4DAT-6000-90")
 *   41  serial    reply: ASCII from byte 1
 *   18  read      request byte 1: channel (multi-channel models);
 *                 reply byte 1: whole dB, byte 2: quarter-dB steps
 *   19  set       byte 1: whole dB, byte 2: fraction x 4, byte 3: channel
 *                 (multi-channel models)
 *
 * This file only carries minicircuits.c's commands (":MN?", ":SN?",
 * ":CHAN:n:SETATT:v", ...) as those reports and brings their replies
 * back in the text form minicircuits.c reads: the model table, the
 * range and step checks before sending and the read back are shared
 * with the HTTP and telnet drivers. The kernel's usbhid is detached
 * while the driver holds the box.
 *
 * Settings: serial (which box, when several), timeout_ms (per reply,
 * 3000), paths (channel N is the Nth path). */
#include "minicircuits.h"
#include "../../lab/rfpath.h"

#include <libusb.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRIVER	   "minicircuits-usb"
#define VID	   0x20ce
#define PID	   0x0023
#define REPORT	   64
#define CMD_MODEL  40
#define CMD_SERIAL 41
#define CMD_READ   18
#define CMD_SET	   19

struct mc_link {
	libusb_context *ctx;
	libusb_device_handle *h;
	int iface, ep_in, ep_out, timeout_ms;
	char serial[64], where[128];
};

/* One report out, the reply whose byte 0 is code back (a stale reply of
 * an earlier command is skipped). */
static int transact(struct mc_link *l, unsigned char *r, struct al_err *err)
{
	unsigned char code = r[0];
	int rc, n;

	rc = libusb_interrupt_transfer(l->h, (unsigned char)l->ep_out, r,
				       REPORT, &n, l->timeout_ms);
	if (rc < 0 || n != REPORT)
		return al_errf(err, "HID command %u: sending the report: %s",
			       code, rc < 0 ? libusb_strerror(rc) : "short");
	for (int tries = 0; tries < 4; tries++) {
		rc = libusb_interrupt_transfer(l->h, (unsigned char)l->ep_in, r,
					       REPORT, &n, l->timeout_ms);
		if (rc == LIBUSB_ERROR_TIMEOUT)
			return al_errf(err,
				       "HID command %u: no reply within %d ms",
				       code, l->timeout_ms);
		if (rc < 0)
			return al_errf(err,
				       "HID command %u: reading the "
				       "reply: %s",
				       code, libusb_strerror(rc));
		if (n >= 4 && r[0] == code)
			return 0;
	}
	return al_errf(err,
		       "HID command %u: the replies answer another "
		       "command (byte 0 = %u)",
		       code, r[0]);
}

/* The ASCII from byte 1 of a reply, printable characters only. */
static void ascii(const unsigned char *r, char *out, size_t len)
{
	size_t n = 0;

	for (int i = 1; i < REPORT && r[i] && n + 1 < len; i++)
		if (r[i] >= ' ' && r[i] <= '~')
			out[n++] = (char)r[i];
	out[n] = 0;
}

static int usb_query(struct mc_link *l, const char *cmd, char *reply,
		     size_t len, struct al_err *err)
{
	unsigned char r[REPORT] = {0};
	char text[REPORT], tail;
	double db;
	int ch = 0;

	if (!strcmp(cmd, ":MN?") || !strcmp(cmd, ":SN?")) {
		r[0] = cmd[1] == 'M' ? CMD_MODEL : CMD_SERIAL;
		if (transact(l, r, err) < 0)
			return -1;
		ascii(r, text, sizeof(text));
		snprintf(reply, len, "%cN=%s", cmd[1], text);
		return 0;
	}
	if (sscanf(cmd, ":SETATT=%lf%c", &db, &tail) == 1 ||
	    sscanf(cmd, ":CHAN:%d:SETATT:%lf%c", &ch, &db, &tail) == 2) {
		double whole = floor(db);

		r[0] = CMD_SET;
		r[1] = (unsigned char)whole;
		r[2] = (unsigned char)lround((db - whole) * 4);
		r[3] = (unsigned char)ch;
		if (transact(l, r, err) < 0)
			return -1;
		snprintf(reply, len, "1");
		return 0;
	}
	if (!strcmp(cmd, ":ATT?") ||
	    (sscanf(cmd, ":CHAN:%d:ATT%c", &ch, &tail) == 2 && tail == '?')) {
		r[0] = CMD_READ;
		r[1] = (unsigned char)ch;
		if (transact(l, r, err) < 0)
			return -1;
		if (r[2] > 3)
			return al_errf(err,
				       "HID command %u: byte 2 of the reply "
				       "(%u) is not a count of quarter dB",
				       CMD_READ, r[2]);
		snprintf(reply, len, "%g", r[1] + r[2] / 4.0);
		return 0;
	}
	return al_errf(err, "'%s' has no USB form", cmd);
}

static void usb_close(struct mc_link *l)
{
	if (l->h) {
		libusb_release_interface(l->h, l->iface);
		libusb_close(l->h);
	}
	if (l->ctx)
		libusb_exit(l->ctx);
	free(l);
}

static const struct mc_transport usb_tr = {usb_query, usb_close};

/* The HID interface of dev and its interrupt endpoints; -1 if none. */
static int endpoints(libusb_device *dev, struct mc_link *l)
{
	struct libusb_config_descriptor *cfg;
	int ok = -1;

	if (libusb_get_active_config_descriptor(dev, &cfg) < 0)
		return -1;
	for (int i = 0; i < cfg->bNumInterfaces && ok < 0; i++) {
		const struct libusb_interface_descriptor *id =
		    cfg->interface[i].altsetting;

		if (!cfg->interface[i].num_altsetting ||
		    id->bInterfaceClass != LIBUSB_CLASS_HID)
			continue;
		l->iface = id->bInterfaceNumber;
		l->ep_in = l->ep_out = 0;
		for (int e = 0; e < id->bNumEndpoints; e++) {
			const struct libusb_endpoint_descriptor *ep =
			    &id->endpoint[e];

			if ((ep->bmAttributes & 3) !=
			    LIBUSB_TRANSFER_TYPE_INTERRUPT)
				continue;
			if (ep->bEndpointAddress & LIBUSB_ENDPOINT_IN)
				l->ep_in = ep->bEndpointAddress;
			else
				l->ep_out = ep->bEndpointAddress;
		}
		if (l->ep_in && l->ep_out)
			ok = 0;
	}
	libusb_free_config_descriptor(cfg);
	return ok;
}

/* Opens every 20ce:0023 box in turn and keeps the one whose serial is
 * want (the only one when want is NULL). */
static int find_box(struct mc_link *l, const char *device, const char *want,
		    struct al_err *err)
{
	libusb_device **list;
	char seen[256] = "", why[200] = "";
	size_t len = 0;
	int found = 0;
	ssize_t n = libusb_get_device_list(l->ctx, &list);

	if (n < 0)
		return al_errf(err,
			       "attenuator %s (%s): libusb_get_device_list: "
			       "%s",
			       device, DRIVER, libusb_strerror((int)n));
	for (ssize_t i = 0; i < n; i++) {
		struct libusb_device_descriptor dd;
		struct mc_link c = *l;
		unsigned char r[REPORT] = {CMD_SERIAL};
		struct al_err e2;
		int rc;

		if (libusb_get_device_descriptor(list[i], &dd) < 0 ||
		    dd.idVendor != VID || dd.idProduct != PID)
			continue;
		c.h = NULL;
		if (endpoints(list[i], &c) < 0) {
			snprintf(why, sizeof(why),
				 "bus %d dev %d has no HID interface with "
				 "interrupt in and out endpoints",
				 libusb_get_bus_number(list[i]),
				 libusb_get_device_address(list[i]));
			continue;
		}
		rc = libusb_open(list[i], &c.h);
		if (rc == 0) {
			libusb_set_auto_detach_kernel_driver(c.h, 1);
			rc = libusb_claim_interface(c.h, c.iface);
			if (rc < 0) {
				libusb_close(c.h);
				c.h = NULL;
			}
		}
		if (rc < 0) {
			snprintf(why, sizeof(why), "bus %d dev %d: %s",
				 libusb_get_bus_number(list[i]),
				 libusb_get_device_address(list[i]),
				 libusb_strerror(rc));
			continue;
		}
		if (transact(&c, r, &e2) < 0) {
			snprintf(why, sizeof(why), "bus %d dev %d: %.150s",
				 libusb_get_bus_number(list[i]),
				 libusb_get_device_address(list[i]), e2.msg);
			libusb_release_interface(c.h, c.iface);
			libusb_close(c.h);
			continue;
		}
		ascii(r, c.serial, sizeof(c.serial));
		if (len < sizeof(seen))
			len +=
			    (size_t)snprintf(seen + len, sizeof(seen) - len,
					     "%s%s", len ? ", " : "", c.serial);
		if ((want && strcmp(want, c.serial)) || (!want && found++)) {
			libusb_release_interface(c.h, c.iface);
			libusb_close(c.h);
			continue;
		}
		if (want)
			found++;
		*l = c;
		snprintf(l->where, sizeof(l->where),
			 "USB %04x:%04x serial %s, bus %d dev %d", VID, PID,
			 c.serial, libusb_get_bus_number(list[i]),
			 libusb_get_device_address(list[i]));
	}
	libusb_free_device_list(list, 1);
	if (l->h && found == 1)
		return 0;
	return al_errf(err,
		       "attenuator %s (%s at USB %04x:%04x serial %s): %s "
		       "(boxes: %s%s%s)",
		       device, DRIVER, VID, PID, want ? want : "(any)",
		       found > 1 ? "several boxes and no 'serial' to pick one"
				 : "box not found",
		       len ? seen : "none", why[0] ? "; " : "", why);
}

struct usb_conf {
	char serial[64];
	int timeout_ms;
};

static const struct drv_setting settings[] = {
    {.name = "serial", DRV_FIELD(struct usb_conf, serial)},
    {.name = "timeout_ms",
     .type = DRV_INT,
     .default_value = "3000",
     .min = 1,
     .max = 600000,
     DRV_FIELD(struct usb_conf, timeout_ms)},
    {0},
};

static int usb_open(struct atten_dev **out, const struct drv_target *t,
		    struct al_err *err)
{
	const struct lab_atten *a = atten_of_binding(t->lab, t->binding);
	const char *name = a ? a->name : "?";
	struct usb_conf c;
	struct mc_link *l;
	int rc;

	*out = NULL;
	if (drv_settings_read(t, settings, &c, err) < 0)
		return -1;
	l = calloc(1, sizeof(*l));
	if (!l)
		return al_errf(err, "%s: out of memory", DRIVER);
	l->timeout_ms = c.timeout_ms;
	rc = libusb_init(&l->ctx);
	if (rc < 0) {
		l->ctx = NULL;
		usb_close(l);
		return al_errf(err, "attenuator %s (%s): libusb_init: %s", name,
			       DRIVER, libusb_strerror(rc));
	}
	if (find_box(l, name, c.serial[0] ? c.serial : NULL, err) < 0) {
		usb_close(l);
		return -1;
	}
	return mc_open(out, t, DRIVER, &usb_tr, l, l->where, err);
}

const struct atten_ops atten_minicircuits_usb_ops = {
    DRIVER, usb_open, mc_set_db, mc_get_db, mc_close, settings};
