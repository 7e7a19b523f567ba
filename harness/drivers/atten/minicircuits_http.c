/* atten=minicircuits-http: a Mini-Circuits attenuator's HTTP port (80):
 * `GET /:CHAN:1:ATT?` answers in the body. One connection per command, as
 * the boxes close after each reply.
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

#define DRIVER	  "minicircuits-http"
#define REPLY_MAX 8192

struct mc_link {
	char host[256], device[LAB_NAME_MAX], where[300];
	int port, timeout_ms;
};

/* Done when the headers are in and the body is as long as they say. */
static int response_done(const char *buf, size_t n)
{
	const char *body = strstr(buf, "\r\n\r\n"), *cl;
	long want;

	(void)n;
	if (!body)
		return 0;
	cl = strcasestr(buf, "\r\nContent-Length:");
	if (!cl || cl > body)
		return 0; /* read to the close */
	want = strtol(cl + 17, NULL, 10);
	return want >= 0 && strlen(body + 4) >= (size_t)want;
}

static int http_query(struct mc_link *l, const char *cmd, char *reply,
		      size_t len, struct al_err *err)
{
	char req[600], buf[REPLY_MAX];
	const char *body;
	size_t n;
	int fd, rc, status = 0;

	fd = mc_tcp_connect(l->device, l->host, l->port, l->timeout_ms, err);
	if (fd < 0)
		return -1;
	snprintf(req, sizeof(req),
		 "GET /%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
		 cmd, l->host);
	if (mc_send(fd, req, strlen(req)) < 0) {
		close(fd);
		return al_errf(err, "cannot send to %s: %s", l->where,
			       strerror(errno));
	}
	rc = mc_recv(fd, buf, sizeof(buf), &n, l->timeout_ms, response_done);
	close(fd);
	if (rc < 0)
		return al_errf(err, "no reply from %s within %d ms (%s)",
			       l->where, l->timeout_ms, strerror(errno));
	body = strstr(buf, "\r\n\r\n");
	if (sscanf(buf, "HTTP/1.%*[01] %d", &status) != 1 || !body)
		return al_errf(err, "%s: not an HTTP response (%zu bytes)",
			       l->where, n);
	if (status != 200)
		return al_errf(err, "%s: HTTP status %d", l->where, status);
	body += 4;
	snprintf(reply, len, "%.*s", (int)strcspn(body, "\r\n"), body);
	return 0;
}

static void http_close(struct mc_link *l)
{
	free(l);
}

static const struct mc_transport http = {http_query, http_close};

static int http_open(struct atten_dev **out, const struct drv_target *t,
		     struct al_err *err)
{
	const struct lab_atten *a = atten_of_binding(t->lab, t->binding);
	struct mc_link *l = calloc(1, sizeof(*l));

	*out = NULL;
	if (!l)
		return al_errf(err, "%s: out of memory", DRIVER);
	snprintf(l->device, sizeof(l->device), "%s", a ? a->name : "?");
	if (mc_settings(t, DRIVER, 80, l->host, sizeof(l->host), &l->port,
			&l->timeout_ms, err) < 0) {
		http_close(l);
		return -1;
	}
	snprintf(l->where, sizeof(l->where), "%s:%d", l->host, l->port);
	return mc_open(out, t, DRIVER, &http, l, l->where, err);
}

const struct atten_ops atten_minicircuits_http_ops = {
    DRIVER, http_open, mc_set_db, mc_get_db, mc_close, mc_tcp_settings};
