/* wpa_supplicant control-interface client (see wpa_ctrl.h). */
#include "wpa_ctrl.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static unsigned local_seq;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int wpa_ctrl_open(struct wpa_ctrl *c, const char *server_path, char *err,
		  size_t errlen)
{
	struct sockaddr_un local = {.sun_family = AF_UNIX};
	struct sockaddr_un remote = {.sun_family = AF_UNIX};

	c->fd = -1;
	c->attached = false;
	c->local[0] = '\0';
	if (strlen(server_path) >= sizeof(remote.sun_path) ||
	    strlen(server_path) >= sizeof(c->server)) {
		set_err(err, errlen, "%s: control socket path too long",
			server_path);
		return -1;
	}
	snprintf(c->server, sizeof(c->server), "%s", server_path);
	c->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		set_err(err, errlen, "%s: socket: %s", server_path,
			strerror(errno));
		return -1;
	}
	/* The supplicant replies to the sender's address. It lives in a
	 * station's network namespace, where abstract addresses of ours do
	 * not exist: bind a filesystem path. */
	snprintf(local.sun_path, sizeof(local.sun_path),
		 "/tmp/airlab-guest-%d-%u", (int)getpid(), ++local_seq);
	unlink(local.sun_path);
	if (bind(c->fd, (struct sockaddr *)&local, sizeof(local)) < 0) {
		set_err(err, errlen, "%s: bind %s: %s", server_path,
			local.sun_path, strerror(errno));
		wpa_ctrl_close(c);
		return -1;
	}
	snprintf(c->local, sizeof(c->local), "%s", local.sun_path);
	memcpy(remote.sun_path, server_path, strlen(server_path) + 1);
	if (connect(c->fd, (struct sockaddr *)&remote, sizeof(remote)) < 0) {
		set_err(err, errlen, "%s: connect: %s", server_path,
			strerror(errno));
		wpa_ctrl_close(c);
		return -1;
	}
	return 0;
}

int wpa_ctrl_send(struct wpa_ctrl *c, const char *cmd, char *err, size_t errlen)
{
	if (send(c->fd, cmd, strlen(cmd), MSG_DONTWAIT) < 0) {
		set_err(err, errlen, "%s: send '%s': %s", c->server, cmd,
			strerror(errno));
		return -1;
	}
	return 0;
}

int wpa_ctrl_recv(struct wpa_ctrl *c, char *buf, size_t size, char *err,
		  size_t errlen)
{
	ssize_t n = recv(c->fd, buf, size - 1, MSG_DONTWAIT);

	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		set_err(err, errlen, "%s: recv: %s", c->server,
			strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	return (int)n;
}

int wpa_ctrl_request(struct wpa_ctrl *c, const char *cmd, char *reply,
		     size_t reply_size, int timeout_ms, char *err,
		     size_t errlen)
{
	long long deadline = now_ms() + timeout_ms;

	if (wpa_ctrl_send(c, cmd, err, errlen) < 0)
		return -1;
	for (;;) {
		struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
		long long left = deadline - now_ms();
		int n;

		if (left <= 0) {
			set_err(err, errlen,
				"%s: no reply to '%s' within %d ms", c->server,
				cmd, timeout_ms);
			return -1;
		}
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			set_err(err, errlen, "%s: poll: %s", c->server,
				strerror(errno));
			return -1;
		}
		if (n == 0)
			continue;
		n = wpa_ctrl_recv(c, reply, reply_size, err, errlen);
		if (n < 0)
			return -1;
		if (n == 0)
			continue;
		/* Unsolicited events start with "<level>"; replies never do. */
		if (c->attached && reply[0] == '<')
			continue;
		return n;
	}
}

int wpa_ctrl_attach(struct wpa_ctrl *c, int timeout_ms, char *err,
		    size_t errlen)
{
	char reply[64];

	if (wpa_ctrl_request(c, "ATTACH", reply, sizeof(reply), timeout_ms, err,
			     errlen) < 0)
		return -1;
	if (strncmp(reply, "OK", 2) != 0) {
		set_err(err, errlen, "%s: ATTACH answered '%.20s'", c->server,
			reply);
		return -1;
	}
	c->attached = true;
	return 0;
}

void wpa_ctrl_close(struct wpa_ctrl *c)
{
	if (c->fd >= 0) {
		/* Best effort: the supplicant also drops peers that vanish. */
		if (c->attached)
			(void)send(c->fd, "DETACH", 6, MSG_DONTWAIT);
		close(c->fd);
	}
	if (c->local[0])
		unlink(c->local);
	c->local[0] = '\0';
	c->fd = -1;
	c->attached = false;
}
