/* airlab-usb-emu: USB devices for the USB driver tests, emulated inside
 * the guest as gadgets on dummy_hcd, each answering what its vendor
 * documents (the Mini-Circuits HID codes come from one public source and
 * are not confirmed against a real box):
 *
 *   airlab-usb-emu minicircuits --name N --udc U --serial S --model M
 *       a Mini-Circuits USB attenuator: configfs HID function (20ce:0023,
 *       64-byte input and output reports on interrupt endpoints) answering
 *       40 model, 41 serial, 18 read, 19 set from /dev/hidg.
 *   airlab-usb-emu usbrelay --name N --udc U --serial S --relays K
 *       a "USBRelayK" HID board (16c0:05df) on FunctionFS: feature
 *       reports over ep0 (SET_REPORT [0xff|0xfd relay], GET_REPORT serial
 *       and relay bitmap), its HID report descriptor, SET_IDLE.
 *   airlab-usb-emu ftdi --name N --udc U --serial S
 *       an FT245R (0403:6001, bcdDevice 6.00) on FunctionFS: FTDI's
 *       vendor requests (reset, baud rate, bit mode, read pins, ...) and
 *       bulk OUT writes that drive the pins in bit-bang mode.
 *   airlab-usb-emu remove N      unplugs and removes gadget N
 *
 * --die-at K: the emulator kills itself (SIGKILL) when the K-th command
 * arrives, before answering it: the attenuator's K-th report, the relay
 * board's K-th SET_REPORT, the FTDI chip's K-th bulk write. Its state
 * (what a test compares with what the driver says) is kept in
 * /run/airlab-usb/N.state. It prints "ready" once plugged in; SIGTERM
 * unplugs and removes it. */
#include "gadget.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

struct opts {
	const char *kind, *name, *udc, *serial, *model;
	int relays, die_at;
};

static void die_now(const char *what, int n)
{
	fprintf(stderr, "usb-emu: dying at %s %d (--die-at)\n", what, n);
	raise(SIGKILL);
}

/* ---- Mini-Circuits attenuator: configfs HID ---------------------------- */

/* Vendor page, 64-byte input report and 64-byte output report. */
static const uint8_t mc_report_desc[] = {
    0x06, 0x00, 0xff, 0x09, 0x01, 0xa1, 0x01, 0x15, 0x00,
    0x26, 0xff, 0x00, 0x75, 0x08, 0x95, 0x40, 0x09, 0x01,
    0x81, 0x02, 0x95, 0x40, 0x09, 0x01, 0x91, 0x02, 0xc0};

/* Channels and range of a model name "FAMILY-MHz-dB". */
static int mc_model(const char *m, int *channels, int *max_db)
{
	const char *last = strrchr(m, '-');

	if (!strncmp(m, "RUDAT-", 6) || !strncmp(m, "RCDAT-", 6))
		*channels = 1;
	else if (sscanf(m, "RC%dDAT-", channels) != 1)
		return -1;
	if (!last || sscanf(last + 1, "%d", max_db) != 1)
		return -1;
	return *channels >= 1 && *channels <= 8 ? 0 : -1;
}

static void mc_save(const struct opts *o, const int *q, int channels, int sets,
		    int reports)
{
	char att[128];
	size_t n = 0;

	for (int i = 0; i < channels; i++)
		n += (size_t)snprintf(att + n, sizeof(att) - n, "%s%.2f",
				      i ? "," : "", q[i] / 4.0);
	emu_state(o->name, "att=%s sets=%d reports=%d", att, sets, reports);
}

static int run_minicircuits(const struct opts *o)
{
	struct gadget g = {0};
	struct gadget_ids ids;
	char fdir[320], dev[32], node[400];
	unsigned maj, min;
	int channels, max_db, fd = -1, sets = 0, reports = 0, q[8] = {0};
	FILE *f;

	ids.vid = 0x20ce;
	ids.pid = 0x0023;
	ids.bcd_device = 0x0100;
	ids.manufacturer = "Mini-Circuits";
	ids.product = o->model;
	ids.serial = o->serial;
	if (mc_model(o->model, &channels, &max_db) < 0) {
		fprintf(stderr, "usb-emu: model '%s' is not FAMILY-MHz-dB\n",
			o->model);
		return 2;
	}
	snprintf(g.name, sizeof(g.name), "%s", o->name);
	snprintf(g.func, sizeof(g.func), "hid.%s", o->name);
	if (gadget_create(&g, &ids) < 0)
		return 1;
	gadget_function_dir(&g, fdir, sizeof(fdir));
	if (emu_writes(fdir, "protocol", "0") < 0 ||
	    emu_writes(fdir, "subclass", "0") < 0 ||
	    emu_writes(fdir, "report_length", "64") < 0 ||
	    emu_write(fdir, "report_desc", mc_report_desc,
		      sizeof(mc_report_desc)) < 0 ||
	    gadget_link(&g) < 0 || gadget_bind(&g, o->udc) < 0)
		return 1;
	snprintf(node, sizeof(node), "%s/dev", fdir);
	f = fopen(node, "r");
	if (!f || !fgets(dev, sizeof(dev), f) ||
	    sscanf(dev, "%u:%u", &maj, &min) != 2) {
		fprintf(stderr, "usb-emu: cannot read %s\n", node);
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	mkdir(EMU_RUN, 0755);
	snprintf(node, sizeof(node), EMU_RUN "/hidg-%s", o->name);
	unlink(node);
	if (mknod(node, S_IFCHR | 0600, makedev(maj, min)) < 0 ||
	    (fd = open(node, O_RDWR | O_CLOEXEC)) < 0) {
		fprintf(stderr, "usb-emu: %s: %s\n", node, strerror(errno));
		return 1;
	}
	mc_save(o, q, channels, sets, reports);
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		uint8_t r[64];
		ssize_t n = read(fd, r, sizeof(r));
		int ch, v;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "usb-emu: read %s: %s\n", node,
				n < 0 ? strerror(errno) : "end of file");
			break;
		}
		memset(r + n, 0, sizeof(r) - (size_t)n);
		reports++;
		if (o->die_at && reports == o->die_at)
			die_now("report", reports);
		switch (r[0]) {
		case 40:
		case 41:
			memset(r + 1, 0, sizeof(r) - 1);
			snprintf((char *)r + 1, sizeof(r) - 1, "%s",
				 r[0] == 40 ? o->model : o->serial);
			break;
		case 18:
			ch = channels > 1 ? r[1] : 1;
			v = ch >= 1 && ch <= channels ? q[ch - 1] : 0;
			memset(r + 1, 0, sizeof(r) - 1);
			r[1] = (uint8_t)(v / 4);
			r[2] = (uint8_t)(v % 4);
			break;
		case 19:
			ch = channels > 1 ? r[3] : 1;
			v = r[1] * 4 + (r[2] & 3);
			if (v > max_db * 4)
				v = max_db * 4;
			if (ch >= 1 && ch <= channels)
				q[ch - 1] = v;
			sets++;
			memset(r + 1, 0, sizeof(r) - 1);
			r[1] = 1;
			break;
		default:
			memset(r + 1, 0, sizeof(r) - 1);
		}
		mc_save(o, q, channels, sets, reports);
		if (write(fd, r, sizeof(r)) != (ssize_t)sizeof(r) &&
		    errno != EINTR) {
			fprintf(stderr, "usb-emu: write %s: %s\n", node,
				strerror(errno));
			break;
		}
	}
	close(fd);
	unlink(node);
	gadget_remove(o->name);
	return 0;
}

/* ---- FunctionFS devices ------------------------------------------------- */

static void ep0_ack(int ep0)
{
	if (read(ep0, NULL, 0) < 0)
		fprintf(stderr, "usb-emu: ep0 status: %s\n", strerror(errno));
}

static void ep0_stall(int ep0, const struct usb_ctrlrequest *s)
{
	/* FunctionFS stalls on a transfer in the wrong direction. */
	if (s->bRequestType & USB_DIR_IN) {
		if (read(ep0, NULL, 0) >= 0 || errno != EL2HLT)
			fprintf(stderr, "usb-emu: ep0 stall\n");
	} else if (write(ep0, NULL, 0) >= 0 || errno != EL2HLT) {
		fprintf(stderr, "usb-emu: ep0 stall\n");
	}
}

static void ep0_reply(int ep0, const struct usb_ctrlrequest *s,
		      const void *data, size_t len)
{
	size_t want = le16toh(s->wLength);

	if (write(ep0, data, len < want ? len : want) < 0)
		fprintf(stderr, "usb-emu: ep0 reply: %s\n", strerror(errno));
}

typedef void (*setup_fn)(int ep0, const struct usb_ctrlrequest *s, void *ctx);

/* Reads ep0's events until SIGTERM or ep0 fails, answering SETUPs. */
static void ep0_loop(int ep0, setup_fn fn, void *ctx)
{
	while (!stop) {
		struct usb_functionfs_event ev[4];
		ssize_t n = read(ep0, ev, sizeof(ev));

		/* EIDRM: the host gave up on a request before it was
		 * answered (a new SETUP came); the next events follow. */
		if (n < 0 && (errno == EINTR || errno == EIDRM))
			continue;
		if (n < 0) {
			fprintf(stderr, "usb-emu: ep0: %s\n", strerror(errno));
			return;
		}
		for (size_t i = 0; i < (size_t)n / sizeof(ev[0]); i++)
			if (ev[i].type == FUNCTIONFS_SETUP)
				fn(ep0, &ev[i].u.setup, ctx);
	}
}

/* An interface descriptor, then endpoints: descriptor bytes. */
#define IFACE(n_ep, cls, sub, proto)                                           \
	9, USB_DT_INTERFACE, 0, 0, n_ep, cls, sub, proto, 1
#define EP(addr, attr, mps, ival)                                              \
	7, USB_DT_ENDPOINT, addr, attr, (mps)&0xff, (mps) >> 8, ival

static int ffs_run(const struct opts *o, const struct gadget_ids *ids,
		   struct gadget *g, uint32_t flags, const uint8_t *fs,
		   size_t fs_len, const uint8_t *hs, size_t hs_len, int count)
{
	int ep0;

	snprintf(g->name, sizeof(g->name), "%s", o->name);
	snprintf(g->func, sizeof(g->func), "ffs.%s", o->name);
	if (gadget_create(g, ids) < 0 || gadget_link(g) < 0)
		return -1;
	ep0 = ffs_start(g, flags, fs, fs_len, count, hs, hs_len, count,
			ids->product);
	if (ep0 < 0)
		return -1;
	if (gadget_bind(g, o->udc) < 0) {
		close(ep0);
		return -1;
	}
	return ep0;
}

/* ---- USBRelay HID board ------------------------------------------------- */

/* Vendor page, one 8-byte feature report (id 0). */
static const uint8_t relay_report_desc[] = {
    0x06, 0x00, 0xff, 0x09, 0x01, 0xa1, 0x01, 0x15, 0x00, 0x26, 0xff,
    0x00, 0x75, 0x08, 0x95, 0x08, 0x09, 0x00, 0xb2, 0x02, 0x01, 0xc0};

struct relay {
	const struct opts *o;
	uint8_t state;
	int sets;
};

static void relay_setup(int ep0, const struct usb_ctrlrequest *s, void *ctx)
{
	struct relay *r = ctx;
	uint16_t val = le16toh(s->wValue), len = le16toh(s->wLength);
	uint8_t b[8] = {0};

	if (s->bRequestType == (USB_DIR_IN | USB_RECIP_INTERFACE) &&
	    s->bRequest == USB_REQ_GET_DESCRIPTOR && (val >> 8) == 0x22) {
		ep0_reply(ep0, s, relay_report_desc, sizeof(relay_report_desc));
	} else if (s->bRequestType ==
		       (USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE) &&
		   s->bRequest == 0x01 /* GET_REPORT */) {
		memcpy(b, r->o->serial, strnlen(r->o->serial, 5));
		b[7] = r->state;
		ep0_reply(ep0, s, b, sizeof(b));
	} else if (s->bRequestType == (USB_TYPE_CLASS | USB_RECIP_INTERFACE) &&
		   s->bRequest == 0x09 /* SET_REPORT */ && len) {
		r->sets++;
		if (r->o->die_at && r->sets == r->o->die_at)
			die_now("SET_REPORT", r->sets);
		if (read(ep0, b, len < 8 ? len : 8) < 2) {
			fprintf(stderr, "usb-emu: SET_REPORT data: %s\n",
				strerror(errno));
			return;
		}
		if (b[0] == 0xfe || b[0] == 0xfc)
			r->state = b[0] == 0xfe
				       ? (uint8_t)((1u << r->o->relays) - 1)
				       : 0;
		else if ((b[0] == 0xff || b[0] == 0xfd) && b[1] >= 1 &&
			 b[1] <= r->o->relays)
			r->state =
			    b[0] == 0xff
				? r->state | (uint8_t)(1u << (b[1] - 1))
				: r->state & (uint8_t) ~(1u << (b[1] - 1));
		emu_state(r->o->name, "relays=0x%02x sets=%d", r->state,
			  r->sets);
	} else if (s->bRequestType == (USB_TYPE_CLASS | USB_RECIP_INTERFACE) &&
		   s->bRequest == 0x0a /* SET_IDLE */) {
		ep0_ack(ep0);
	} else {
		ep0_stall(ep0, s);
	}
}

static int run_usbrelay(const struct opts *o)
{
	char product[32];
	struct gadget_ids ids = {0x16c0,  0x05df,   0x0100, "www.dcttech.com",
				 product, o->serial};
	struct gadget g = {0};
	struct relay r = {o, 0, 0};
	const uint8_t hid[] = {
	    9, 0x21, 0x01, 0x01, 0, 1, 0x22, sizeof(relay_report_desc), 0};
	uint8_t fs[9 + 9 + 7], hs[sizeof(fs)];
	const uint8_t ifc[] = {IFACE(1, 3, 0, 0)};
	const uint8_t ep_fs[] = {EP(0x81, USB_ENDPOINT_XFER_INT, 8, 10)};
	const uint8_t ep_hs[] = {EP(0x81, USB_ENDPOINT_XFER_INT, 8, 7)};
	int ep0;

	if (o->relays < 1 || o->relays > 8 || strlen(o->serial) != 5) {
		fprintf(stderr, "usb-emu: usbrelay needs --relays 1..8 and a "
				"5-character --serial\n");
		return 2;
	}
	snprintf(product, sizeof(product), "USBRelay%d", o->relays);
	memcpy(fs, ifc, 9);
	memcpy(fs + 9, hid, 9);
	memcpy(fs + 18, ep_fs, 7);
	memcpy(hs, fs, 18);
	memcpy(hs + 18, ep_hs, 7);
	ep0 = ffs_run(o, &ids, &g, 0, fs, sizeof(fs), hs, sizeof(hs), 3);
	if (ep0 < 0)
		return 1;
	emu_state(o->name, "relays=0x%02x sets=%d", r.state, r.sets);
	printf("ready\n");
	fflush(stdout);
	ep0_loop(ep0, relay_setup, &r);
	close(ep0);
	gadget_remove(o->name);
	return 0;
}

/* ---- FT245R ---------------------------------------------------------------
 */

struct ftdi {
	const struct opts *o;
	atomic_int mode, mask, latch, writes;
	atomic_int bulk_tid;
	struct gadget *g;
};

static void ftdi_save(struct ftdi *f);

/* The pins as the chip reads them: outputs from the latch in bit-bang
 * mode, inputs pulled up. */
static int ftdi_pins(struct ftdi *f)
{
	int mask = f->mode == 1 ? f->mask : 0;

	return ((f->latch & mask) | (~mask & 0xff)) & 0xff;
}

static void ftdi_save(struct ftdi *f)
{
	emu_state(f->o->name,
		  "mode=%d mask=0x%02x latch=0x%02x pins=0x%02x "
		  "writes=%d",
		  (int)f->mode, (int)f->mask, (int)f->latch, ftdi_pins(f),
		  (int)f->writes);
}

/* Bulk OUT (the chip's "in" endpoint): in bit-bang mode every byte goes
 * to the pins. */
static void *ftdi_bulk(void *ctx)
{
	struct ftdi *f = ctx;
	int fd = ffs_ep(f->g, 2, O_RDWR);
	uint8_t buf[512];

	f->bulk_tid = (int)syscall(SYS_gettid);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && (errno == EINTR || errno == ESHUTDOWN))
			continue;
		if (n < 0) {
			fprintf(stderr, "usb-emu: bulk out: %s\n",
				strerror(errno));
			return NULL;
		}
		if (!n)
			continue;
		f->writes++;
		if (f->o->die_at && f->writes == f->o->die_at)
			die_now("bulk write", f->writes);
		if (f->mode == 1)
			f->latch = buf[n - 1];
		ftdi_save(f);
	}
}

/* The host reads the pins only after its bulk write completed; the
 * gadget side completes first, so the bulk thread is then running or
 * back in its next read: wait until it sleeps there again. */
static void ftdi_bulk_settle(struct ftdi *f)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat",
		 (int)f->bulk_tid);
	for (int i = 0; i < 1000000; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return;
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (!p || p[1] != ' ' || p[2] == 'S' || p[2] == 'D')
			return;
		sched_yield();
	}
}

static void ftdi_setup(int ep0, const struct usb_ctrlrequest *s, void *ctx)
{
	struct ftdi *f = ctx;
	uint16_t val = le16toh(s->wValue);
	uint8_t b[2];

	if (s->bRequestType == (USB_TYPE_VENDOR | USB_RECIP_DEVICE)) {
		switch (s->bRequest) {
		case 0x0b: /* SET_BITMODE: value = mode << 8 | mask */
			f->mode = val >> 8;
			f->mask = val & 0xff;
			ftdi_save(f);
			/* fall through */
		case 0x00: /* RESET */
		case 0x01: /* MODEM_CTRL */
		case 0x02: /* SET_FLOW_CTRL */
		case 0x03: /* SET_BAUDRATE */
		case 0x04: /* SET_DATA */
		case 0x06: /* SET_EVENT_CHAR */
		case 0x07: /* SET_ERROR_CHAR */
		case 0x09: /* SET_LATENCY_TIMER */
			ep0_ack(ep0);
			return;
		}
	} else if (s->bRequestType ==
		   (USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE)) {
		switch (s->bRequest) {
		case 0x0c: /* READ_PINS */
			ftdi_bulk_settle(f);
			b[0] = (uint8_t)ftdi_pins(f);
			ep0_reply(ep0, s, b, 1);
			return;
		case 0x0a: /* GET_LATENCY_TIMER */
			b[0] = 16;
			ep0_reply(ep0, s, b, 1);
			return;
		case 0x05: /* POLL_MODEM_STATUS */
			b[0] = 0x01;
			b[1] = 0x60;
			ep0_reply(ep0, s, b, 2);
			return;
		case 0x90: /* READ_EEPROM: blank */
			b[0] = b[1] = 0xff;
			ep0_reply(ep0, s, b, 2);
			return;
		}
	}
	ep0_stall(ep0, s);
}

static int run_ftdi(const struct opts *o)
{
	struct gadget_ids ids = {
	    0x0403, 0x6001, 0x0600, "FTDI", "FT245R USB FIFO", o->serial};
	struct gadget g = {0};
	struct ftdi f = {.o = o, .g = &g};
	const uint8_t fs[] = {IFACE(2, 0xff, 0xff, 0xff),
			      EP(0x81, USB_ENDPOINT_XFER_BULK, 64, 0),
			      EP(0x02, USB_ENDPOINT_XFER_BULK, 64, 0)};
	const uint8_t hs[] = {IFACE(2, 0xff, 0xff, 0xff),
			      EP(0x81, USB_ENDPOINT_XFER_BULK, 512, 0),
			      EP(0x02, USB_ENDPOINT_XFER_BULK, 512, 0)};
	sigset_t term, old;
	pthread_t th;
	int ep0;

	ep0 = ffs_run(o, &ids, &g, FUNCTIONFS_ALL_CTRL_RECIP, fs, sizeof(fs),
		      hs, sizeof(hs), 3);
	if (ep0 < 0)
		return 1;
	/* SIGTERM is the main thread's. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, &old);
	if (pthread_create(&th, NULL, ftdi_bulk, &f)) {
		fprintf(stderr, "usb-emu: pthread_create failed\n");
		return 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while (!f.bulk_tid)
		sched_yield();
	ftdi_save(&f);
	printf("ready\n");
	fflush(stdout);
	ep0_loop(ep0, ftdi_setup, &f);
	close(ep0);
	gadget_remove(o->name);
	return 0;
}

/* ---- main -------------------------------------------------------------------
 */

static int usage(void)
{
	fprintf(stderr,
		"usage: airlab-usb-emu minicircuits|usbrelay|ftdi --name N "
		"--udc U --serial S [--model M] [--relays K] [--die-at K]\n"
		"       airlab-usb-emu remove N\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct sigaction sa = {0};

	if (argc == 3 && !strcmp(argv[1], "remove")) {
		gadget_remove(argv[2]);
		return 0;
	}
	if (argc < 2)
		return usage();
	o.kind = argv[1];
	o.relays = 8;
	o.model = "RC4DAT-6000-90";
	for (int i = 2; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--name"))
			o.name = v;
		else if (!strcmp(k, "--udc"))
			o.udc = v;
		else if (!strcmp(k, "--serial"))
			o.serial = v;
		else if (!strcmp(k, "--model"))
			o.model = v;
		else if (!strcmp(k, "--relays"))
			o.relays = atoi(v);
		else if (!strcmp(k, "--die-at"))
			o.die_at = atoi(v);
		else
			return usage();
	}
	if (!o.name || !o.udc || !o.serial || argc % 2)
		return usage();
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (!strcmp(o.kind, "minicircuits"))
		return run_minicircuits(&o);
	if (!strcmp(o.kind, "usbrelay"))
		return run_usbrelay(&o);
	if (!strcmp(o.kind, "ftdi"))
		return run_ftdi(&o);
	return usage();
}
