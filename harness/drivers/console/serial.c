/* Console driver `serial`: a serial port, raw.
 * Settings: port (path, "{state}" and "{images}" expanded; symlinks
 * followed), baud (default 115200), data_bits (5..8, default 8), parity
 * (none, odd, even; default none), stop_bits (1 or 2, default 1),
 * flow_control (none, rtscts, xonxoff; default none). Most boards' UARTs
 * are 8N1 without flow control; some consoles (and RS-232 boxes in front
 * of them) are not.
 *
 * libserialport opens real ports (USB-serial adapters, on-board UARTs).
 * Its Linux backend (0.1.1, Debian 12) refuses pseudo-terminals: it looks
 * the port up under /sys/class/tty/, where Unix98 ptys have no entry. The
 * virtual lab's console is QEMU's pty, so for a pty we set up the same
 * raw 8N1 line with termios directly. */
#include "../driver.h"
#include "../../util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <libserialport.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define WRITE_TIMEOUT_MS 5000
/* Linux: Unix98 pty slaves use majors 136..143. */
#define PTY_SLAVE_MAJOR_FIRST 136
#define PTY_SLAVE_MAJOR_LAST  143

/* The port and its line as the lab file asks for them. */
struct line_conf {
	char port[PATH_MAX]; /* expanded */
	int baud;
	int data_bits;
	int stop_bits;
	int parity; /* enum sp_parity */
	int flow;   /* enum sp_flowcontrol */
};

static const struct drv_setting settings[] = {
    {.name = "port",
     .type = DRV_PATH,
     .required = true,
     .what = "the serial port's device",
     DRV_FIELD(struct line_conf, port)},
    {.name = "baud",
     .type = DRV_INT,
     .default_value = "115200",
     .min = 1,
     .max = INT32_MAX,
     DRV_FIELD(struct line_conf, baud)},
    {.name = "data_bits",
     .type = DRV_CHOICE,
     .default_value = "8",
     .choices =
	 (const struct drv_choice[]){
	     {"5", 5}, {"6", 6}, {"7", 7}, {"8", 8}, {0}},
     DRV_FIELD(struct line_conf, data_bits)},
    {.name = "parity",
     .type = DRV_CHOICE,
     .default_value = "none",
     .choices = (const struct drv_choice[]){{"none", SP_PARITY_NONE},
					    {"odd", SP_PARITY_ODD},
					    {"even", SP_PARITY_EVEN},
					    {0}},
     DRV_FIELD(struct line_conf, parity)},
    {.name = "stop_bits",
     .type = DRV_CHOICE,
     .default_value = "1",
     .choices = (const struct drv_choice[]){{"1", 1}, {"2", 2}, {0}},
     DRV_FIELD(struct line_conf, stop_bits)},
    {.name = "flow_control",
     .type = DRV_CHOICE,
     .default_value = "none",
     .choices = (const struct drv_choice[]){{"none", SP_FLOWCONTROL_NONE},
					    {"rtscts", SP_FLOWCONTROL_RTSCTS},
					    {"xonxoff", SP_FLOWCONTROL_XONXOFF},
					    {0}},
     DRV_FIELD(struct line_conf, flow)},
    {0},
};

struct console_dev {
	char port[PATH_MAX]; /* as configured, expanded */
	char real[PATH_MAX]; /* after following symlinks */
	struct sp_port *sp;  /* NULL: a pty driven with termios */
	int fd;
};

/* The port name for errors: the configured path, plus where it leads. */
static const char *port_name(const struct console_dev *d, char *buf, size_t len)
{
	if (!d->real[0] || strcmp(d->port, d->real) == 0)
		snprintf(buf, len, "%s", d->port);
	else
		snprintf(buf, len, "%s (-> %s)", d->port, d->real);
	return buf;
}

static int sp_fail(const struct console_dev *d, const char *what,
		   struct al_err *err)
{
	char *msg = sp_last_error_message();
	char name[2 * PATH_MAX + 8];

	al_errf(err, "serial port %s: %s: %s", port_name(d, name, sizeof(name)),
		what, msg ? msg : "unknown libserialport error");
	sp_free_error_message(msg);
	return -1;
}

static int sys_fail(const struct console_dev *d, const char *what, int e,
		    struct al_err *err)
{
	char name[2 * PATH_MAX + 8];

	return al_errf(err, "serial port %s: %s: %s",
		       port_name(d, name, sizeof(name)), what, strerror(e));
}

static tcflag_t termios_size(int data_bits)
{
	return data_bits == 5	? CS5
	       : data_bits == 6 ? CS6
	       : data_bits == 7 ? CS7
				: CS8;
}

/* The termios bits that make the line's framing and flow control. */
#define LINE_CFLAGS ((tcflag_t)(CSIZE | PARENB | PARODD | CSTOPB | CRTSCTS))
#define LINE_IFLAGS ((tcflag_t)(IXON | IXOFF | IXANY))

static void line_apply(struct termios *tio, const struct line_conf *c)
{
	tcflag_t cflag = termios_size(c->data_bits), iflag = 0;

	if (c->parity != SP_PARITY_NONE)
		cflag |= PARENB;
	if (c->parity == SP_PARITY_ODD)
		cflag |= PARODD;
	if (c->stop_bits == 2)
		cflag |= CSTOPB;
	if (c->flow == SP_FLOWCONTROL_RTSCTS)
		cflag |= CRTSCTS;
	if (c->flow == SP_FLOWCONTROL_XONXOFF)
		iflag = IXON | IXOFF;
	tio->c_cflag = (tio->c_cflag & ~LINE_CFLAGS) | cflag;
	tio->c_iflag = (tio->c_iflag & ~LINE_IFLAGS) | iflag;
}

/* The first setting the port does not hold as c asks, or NULL. */
static const char *line_differs(const struct termios *tio,
				const struct line_conf *c)
{
	struct termios want = *tio;

	line_apply(&want, c);
	if ((tio->c_cflag & CSIZE) != (want.c_cflag & CSIZE))
		return "data_bits";
	if ((tio->c_cflag & (PARENB | PARODD)) !=
	    (want.c_cflag & (PARENB | PARODD)))
		return "parity";
	if ((tio->c_cflag & CSTOPB) != (want.c_cflag & CSTOPB))
		return "stop_bits";
	if ((tio->c_cflag & CRTSCTS) != (want.c_cflag & CRTSCTS) ||
	    (tio->c_iflag & (IXON | IXOFF)) != (want.c_iflag & (IXON | IXOFF)))
		return "flow_control";
	return NULL;
}

static int open_libserialport(struct console_dev *d, const struct line_conf *c,
			      struct al_err *err)
{
	struct termios tio;
	const char *off;

	if (sp_open(d->sp, SP_MODE_READ_WRITE) != SP_OK)
		return sp_fail(d, "sp_open", err);
	if (sp_set_baudrate(d->sp, c->baud) != SP_OK)
		return sp_fail(d, "set baud rate", err);
	if (sp_set_bits(d->sp, c->data_bits) != SP_OK)
		return sp_fail(d, "set data bits", err);
	if (sp_set_parity(d->sp, (enum sp_parity)c->parity) != SP_OK)
		return sp_fail(d, "set parity", err);
	if (sp_set_stopbits(d->sp, c->stop_bits) != SP_OK)
		return sp_fail(d, "set stop bits", err);
	if (sp_set_flowcontrol(d->sp, (enum sp_flowcontrol)c->flow) != SP_OK)
		return sp_fail(d, "set flow control", err);
	if (sp_get_port_handle(d->sp, &d->fd) != SP_OK)
		return sp_fail(d, "get port handle", err);
	/* The port's own word on what it got: libserialport 0.1.1 (Debian
	 * 12) answers SP_OK to RTS/CTS flow control on a 16550A yet leaves
	 * CRTSCTS clear, so what it missed is set through termios. */
	if (tcgetattr(d->fd, &tio) < 0)
		return sys_fail(d, "tcgetattr", errno, err);
	if (!line_differs(&tio, c))
		return 0;
	line_apply(&tio, c);
	if (tcsetattr(d->fd, TCSANOW, &tio) < 0)
		return sys_fail(d, "tcsetattr", errno, err);
	if (tcgetattr(d->fd, &tio) < 0)
		return sys_fail(d, "tcgetattr", errno, err);
	off = line_differs(&tio, c);
	if (off)
		return al_errf(err,
			       "serial port %s does not keep the %s asked "
			       "for (set through libserialport, then termios)",
			       d->port, off);
	return 0;
}

static speed_t termios_speed(int baud)
{
	static const struct {
		int baud;
		speed_t speed;
	} table[] = {
	    {9600, B9600},     {19200, B19200},	  {38400, B38400},
	    {57600, B57600},   {115200, B115200}, {230400, B230400},
	    {460800, B460800}, {921600, B921600},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].baud == baud)
			return table[i].speed;
	return B0;
}

static int open_pty(struct console_dev *d, const struct line_conf *c,
		    struct al_err *err)
{
	struct termios tio;
	speed_t speed = termios_speed(c->baud);

	if (speed == B0)
		return al_errf(err,
			       "serial port %s: baud %d not supported on "
			       "a pty",
			       d->port, c->baud);
	d->fd = open(d->real, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (d->fd < 0)
		return sys_fail(d, "open", errno, err);
	if (tcgetattr(d->fd, &tio) < 0)
		return sys_fail(d, "tcgetattr", errno, err);
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	line_apply(&tio, c);
	tio.c_cc[VMIN] = 0;
	tio.c_cc[VTIME] = 0;
	cfsetispeed(&tio, speed);
	cfsetospeed(&tio, speed);
	if (tcsetattr(d->fd, TCSANOW, &tio) < 0)
		return sys_fail(d, "tcsetattr", errno, err);
	/* Linux's pty driver forces CS8 without parity whatever is asked:
	 * a pty has no line to frame. Say so rather than pretend. */
	if (tcgetattr(d->fd, &tio) < 0)
		return sys_fail(d, "tcgetattr", errno, err);
	if (line_differs(&tio, c))
		return al_errf(err,
			       "serial port %s is a pty: it carries 8-bit "
			       "bytes without parity and keeps no %s setting "
			       "(set that on the far end of the line)",
			       d->port, line_differs(&tio, c));
	return 0;
}

static bool is_pty(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISCHR(st.st_mode) &&
	       major(st.st_rdev) >= PTY_SLAVE_MAJOR_FIRST &&
	       major(st.st_rdev) <= PTY_SLAVE_MAJOR_LAST;
}

static void serial_close(struct console_dev *d)
{
	if (!d)
		return;
	if (d->sp) {
		sp_close(d->sp);
		sp_free_port(d->sp);
	} else if (d->fd >= 0) {
		close(d->fd);
	}
	free(d);
}

static int serial_open(struct console_dev **out, const struct drv_target *t,
		       struct al_err *err)
{
	const char *dev = t->host->name;
	struct console_dev *d;
	struct line_conf conf;

	*out = NULL;
	if (drv_settings_read(t, settings, &conf, err) < 0)
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d)
		return al_errf(err, "%s: out of memory", dev);
	d->fd = -1;
	memcpy(d->port, conf.port, sizeof(d->port));
	/* Follow the link (the virtual lab's {state}/console -> /dev/pts/N):
	 * libserialport matches ports by their /dev name. */
	if (!realpath(d->port, d->real)) {
		int e = errno;

		d->real[0] = 0;
		sys_fail(d, "cannot resolve", e, err);
		goto fail;
	}
	if (sp_get_port_by_name(d->real, &d->sp) == SP_OK) {
		if (open_libserialport(d, &conf, err) < 0)
			goto fail;
	} else if (is_pty(d->real)) {
		d->sp = NULL;
		if (open_pty(d, &conf, err) < 0)
			goto fail;
	} else {
		d->sp = NULL;
		sp_fail(d, "not a serial port (sp_get_port_by_name)", err);
		goto fail;
	}
	*out = d;
	return 0;
fail:
	serial_close(d);
	return -1;
}

static ssize_t serial_read(struct console_dev *d, void *buf, size_t len,
			   int timeout_ms, struct al_err *err)
{
	int64_t deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	struct pollfd p = {.fd = d->fd, .events = POLLIN};
	int rc;

	if (!len)
		return 0;
	for (;;) {
		int64_t left = deadline - mono_ms();

		rc = poll(&p, 1, left > 0 ? (int)left : 0);
		if (rc >= 0 || errno != EINTR)
			break;
	}
	if (rc < 0)
		return sys_fail(d, "poll", errno, err);
	if (rc == 0)
		return 0;
	if (d->sp) {
		enum sp_return n = sp_nonblocking_read(d->sp, buf, len);

		if (n < 0)
			return sp_fail(d, "read", err);
		if (n > 0 || !(p.revents & (POLLHUP | POLLERR)))
			return n;
	} else {
		ssize_t n = read(d->fd, buf, len);

		if (n > 0)
			return n;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0 && errno != EIO)
			return sys_fail(d, "read", errno, err);
	}
	/* A pty slave reads EIO once the master is gone; a USB adapter
	 * that is unplugged hangs up. */
	return al_errf(err, "serial port %s: hangup: the other end closed it",
		       d->port);
}

static int serial_write(struct console_dev *d, const void *buf, size_t len,
			struct al_err *err)
{
	int64_t deadline = mono_ms() + WRITE_TIMEOUT_MS;
	const char *p = buf;

	while (len) {
		struct pollfd pfd = {.fd = d->fd, .events = POLLOUT};
		int64_t left = deadline - mono_ms();
		ssize_t n;

		if (left <= 0)
			return al_errf(err,
				       "serial port %s: write: %zu bytes still "
				       "not taken after %d ms",
				       d->port, len, WRITE_TIMEOUT_MS);
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return sys_fail(d, "poll", errno, err);
		if (d->sp) {
			n = sp_nonblocking_write(d->sp, p, len);
			if (n < 0)
				return sp_fail(d, "write", err);
		} else {
			n = write(d->fd, p, len);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				return sys_fail(d, "write", errno, err);
			if (n < 0)
				n = 0;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int serial_fd(struct console_dev *d)
{
	return d->fd;
}

const struct console_ops console_serial_ops = {
    .name = "serial",
    .open = serial_open,
    .read = serial_read,
    .write = serial_write,
    .fd = serial_fd,
    .close = serial_close,
    .settings = settings,
};
