/* Console driver `serial`: a serial port, 8N1, no flow control, raw.
 * Settings: port (path, "{state}" and "{images}" expanded; symlinks
 * followed), baud (default 115200).
 *
 * libserialport opens real ports (USB-serial adapters, on-board UARTs).
 * Its Linux backend (0.1.1, Debian 12) refuses pseudo-terminals: it looks
 * the port up under /sys/class/tty/, where Unix98 ptys have no entry. The
 * virtual lab's console is QEMU's pty, so for a pty we set up the same
 * raw 8N1 line with termios directly. */
#include "../driver.h"

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

#define DEFAULT_BAUD	 115200
#define WRITE_TIMEOUT_MS 5000
/* Linux: Unix98 pty slaves use majors 136..143. */
#define PTY_SLAVE_MAJOR_FIRST 136
#define PTY_SLAVE_MAJOR_LAST  143

struct console_dev {
	char port[PATH_MAX]; /* as configured, expanded */
	char real[PATH_MAX]; /* after following symlinks */
	struct sp_port *sp;  /* NULL: a pty driven with termios */
	int fd;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

static int open_libserialport(struct console_dev *d, int baud,
			      struct al_err *err)
{
	if (sp_open(d->sp, SP_MODE_READ_WRITE) != SP_OK)
		return sp_fail(d, "sp_open", err);
	if (sp_set_baudrate(d->sp, baud) != SP_OK)
		return sp_fail(d, "set baud rate", err);
	if (sp_set_bits(d->sp, 8) != SP_OK ||
	    sp_set_parity(d->sp, SP_PARITY_NONE) != SP_OK ||
	    sp_set_stopbits(d->sp, 1) != SP_OK)
		return sp_fail(d, "set 8N1", err);
	if (sp_set_flowcontrol(d->sp, SP_FLOWCONTROL_NONE) != SP_OK)
		return sp_fail(d, "disable flow control", err);
	if (sp_get_port_handle(d->sp, &d->fd) != SP_OK)
		return sp_fail(d, "get port handle", err);
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

static int open_pty(struct console_dev *d, int baud, struct al_err *err)
{
	struct termios tio;
	speed_t speed = termios_speed(baud);

	if (speed == B0)
		return al_errf(err,
			       "serial port %s: baud %d not supported on "
			       "a pty",
			       d->port, baud);
	d->fd = open(d->real, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (d->fd < 0)
		return sys_fail(d, "open", errno, err);
	if (tcgetattr(d->fd, &tio) < 0)
		return sys_fail(d, "tcgetattr", errno, err);
	cfmakeraw(&tio);
	tio.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS);
	tio.c_cflag |= CS8 | CLOCAL | CREAD;
	tio.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
	tio.c_cc[VMIN] = 0;
	tio.c_cc[VTIME] = 0;
	cfsetispeed(&tio, speed);
	cfsetospeed(&tio, speed);
	if (tcsetattr(d->fd, TCSANOW, &tio) < 0)
		return sys_fail(d, "tcsetattr", errno, err);
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
	const char *port = lab_param(t->binding, "port");
	const char *baud_s = lab_param(t->binding, "baud");
	struct console_dev *d;
	long baud = DEFAULT_BAUD;

	*out = NULL;
	for (int i = 0; i < t->binding->nparams; i++) {
		const char *key = t->binding->params[i].key;

		if (strcmp(key, "port") && strcmp(key, "baud"))
			return al_errf(err,
				       "%s: unknown console setting '%s' (line "
				       "%d; known: port, baud)",
				       dev, key, t->binding->params[i].line);
	}
	if (!port)
		return al_errf(err, "%s: console setting port is missing", dev);
	if (baud_s) {
		char *end;

		errno = 0;
		baud = strtol(baud_s, &end, 10);
		if (errno || end == baud_s || *end || baud <= 0 ||
		    baud > INT32_MAX)
			return al_errf(err,
				       "%s: baud '%s' is not a positive "
				       "number",
				       dev, baud_s);
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return al_errf(err, "%s: out of memory", dev);
	d->fd = -1;
	if (lab_expand(t->lab, t->host, port, d->port, sizeof(d->port), err) <
	    0) {
		free(d);
		return al_err_prefix(err, "%s: console port '%s'", dev, port);
	}
	/* Follow the link (the virtual lab's {state}/console -> /dev/pts/N):
	 * libserialport matches ports by their /dev name. */
	if (!realpath(d->port, d->real)) {
		int e = errno;

		d->real[0] = 0;
		sys_fail(d, "cannot resolve", e, err);
		goto fail;
	}
	if (sp_get_port_by_name(d->real, &d->sp) == SP_OK) {
		if (open_libserialport(d, (int)baud, err) < 0)
			goto fail;
	} else if (is_pty(d->real)) {
		d->sp = NULL;
		if (open_pty(d, (int)baud, err) < 0)
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
	int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	struct pollfd p = {.fd = d->fd, .events = POLLIN};
	int rc;

	if (!len)
		return 0;
	for (;;) {
		int64_t left = deadline - now_ms();

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
	int64_t deadline = now_ms() + WRITE_TIMEOUT_MS;
	const char *p = buf;

	while (len) {
		struct pollfd pfd = {.fd = d->fd, .events = POLLOUT};
		int64_t left = deadline - now_ms();
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
};
