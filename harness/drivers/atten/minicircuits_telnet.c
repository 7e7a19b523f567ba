/* atten=minicircuits-telnet: a Mini-Circuits attenuator's telnet port
 * (23): one command per CRLF line, one reply line, no prompt. The
 * connection stays open while the driver is.
 *
 * Settings: address (HOST or HOST:PORT), timeout_ms (per reply, 3000),
 * paths (channel N is the Nth path). */
#include "minicircuits.h"
#include "../../lab/rfpath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DRIVER	  "minicircuits-telnet"
#define IAC	  255 /* telnet: interpret as command */
#define SB	  250
#define SE	  240
#define REPLY_MAX 4096

struct mc_link {
	int fd, timeout_ms;
	char device[LAB_NAME_MAX], where[300];
};

static int line_done(const char *buf, size_t n)
{
	return memchr(buf, '\n', n) != NULL;
}

/* Telnet option negotiation (IAC ...) is dropped, not answered: the
 * boxes speak plain lines to a client that refuses every option. */
static size_t strip_telnet(char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == IAC && i + 1 < n) {
			unsigned char k = (unsigned char)s[i + 1];

			if (k == IAC) {
				s[o++] = (char)IAC;
				i++;
			} else if (k == SB) {
				while (i + 1 < n &&
				       !((unsigned char)s[i] == IAC &&
					 (unsigned char)s[i + 1] == SE))
					i++;
				i++;
			} else {
				i += k >= 251 ? 2 : 1; /* WILL/WONT/DO/DONT */
			}
			continue;
		}
		s[o++] = s[i];
	}
	s[o] = 0;
	return o;
}

static int telnet_query(struct mc_link *l, const char *cmd, char *reply,
			size_t len, struct al_err *err)
{
	char line[300], buf[REPLY_MAX];
	size_t n, cut;
	int rc;

	snprintf(line, sizeof(line), "%s\r\n", cmd);
	if (mc_send(l->fd, line, strlen(line)) < 0)
		return al_errf(err, "cannot send to %s: %s", l->where,
			       strerror(errno));
	for (;;) {
		rc = mc_recv(l->fd, buf, sizeof(buf), &n, l->timeout_ms,
			     line_done);
		if (rc < 0)
			return al_errf(
			    err, "no reply from %s within %d ms (%s)", l->where,
			    l->timeout_ms, strerror(errno));
		if (rc == 1 && n == 0)
			return al_errf(err, "%s closed the connection",
				       l->where);
		n = strip_telnet(buf, n);
		cut = strcspn(buf, "\r\n");
		/* A line that was only negotiation: wait for the reply. */
		if (cut == 0 && rc == 0 && n <= 2)
			continue;
		break;
	}
	if (rc == 1 && !memchr(buf, '\n', n))
		return al_errf(err, "%s closed the connection mid-reply",
			       l->where);
	snprintf(reply, len, "%.*s", (int)cut, buf);
	return 0;
}

static void telnet_close(struct mc_link *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l);
}

static const struct mc_transport telnet = {telnet_query, telnet_close};

static int telnet_open(struct atten_dev **out, const struct drv_target *t,
		       struct al_err *err)
{
	const struct lab_atten *a = atten_of_binding(t->lab, t->binding);
	struct mc_link *l = calloc(1, sizeof(*l));
	char host[256];
	int port;

	*out = NULL;
	if (!l)
		return al_errf(err, "%s: out of memory", DRIVER);
	l->fd = -1;
	snprintf(l->device, sizeof(l->device), "%s", a ? a->name : "?");
	if (mc_settings(t, DRIVER, 23, host, sizeof(host), &port,
			&l->timeout_ms, err) < 0 ||
	    (l->fd = mc_tcp_connect(l->device, host, port, l->timeout_ms,
				    err)) < 0) {
		telnet_close(l);
		return -1;
	}
	snprintf(l->where, sizeof(l->where), "%s:%d", host, port);
	return mc_open(out, t, DRIVER, &telnet, l, l->where, err);
}

const struct atten_ops atten_minicircuits_telnet_ops = {
    DRIVER, telnet_open, mc_set_db, mc_get_db, mc_close, mc_tcp_settings};
