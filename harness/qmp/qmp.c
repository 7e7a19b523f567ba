/* QMP client. QEMU sends one JSON object per line ("\r\n"); we frame on
 * '\n', let jansson parse, and sort messages into greeting, reply (matched
 * to our command by "id") and event. */
#include "qmp.h"
#include "../util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* query-qmp-schema is the largest reply QEMU has (~200 KB); anything far
 * beyond that is not QMP. */
#define QMP_LINE_MAX	 (16u * 1024 * 1024)
#define CONNECT_RETRY_MS 20

struct qmp {
	int fd;
	bool closed; /* QEMU closed its end */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *buf; /* received bytes not yet framed */
	size_t len, cap;
	json_int_t next_id;
	struct qmp_event events[QMP_EVENTS_KEPT];
	size_t nevents; /* recorded since clear; ring index nevents % KEPT */
};

enum rd {
	RD_OK = 0,
	RD_ERR = -1,
	RD_TIMEOUT = -2,
	RD_EOF = -3,
};

/* A short printable excerpt of a bad message for error lines. */
static void excerpt(const char *text, size_t len, char *out, size_t outlen)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 4 < outlen; i++) {
		unsigned char c = (unsigned char)text[i];
		out[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (len > n && n + 4 <= outlen) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = 0;
}

int qmp_msg_parse(const char *text, size_t len, struct qmp_msg *m,
		  struct al_err *err)
{
	json_error_t jerr;
	json_t *v, *id;
	char ex[96];

	memset(m, 0, sizeof(*m));
	m->json = json_loadb(text, len, 0, &jerr);
	if (!m->json) {
		excerpt(text, len, ex, sizeof(ex));
		return al_errf(err, "not JSON (%s at column %d): '%s'",
			       jerr.text, jerr.column, ex);
	}
	if (!json_is_object(m->json)) {
		excerpt(text, len, ex, sizeof(ex));
		qmp_msg_free(m);
		return al_errf(err, "not a JSON object: '%s'", ex);
	}
	id = json_object_get(m->json, "id");
	if (json_is_integer(id)) {
		m->has_id = true;
		m->id = json_integer_value(id);
	}
	if (json_is_object(json_object_get(m->json, "QMP"))) {
		m->kind = QMP_MSG_GREETING;
		return 0;
	}
	if ((v = json_object_get(m->json, "event"))) {
		json_t *ts = json_object_get(m->json, "timestamp");

		if (!json_is_string(v))
			goto unknown;
		m->kind = QMP_MSG_EVENT;
		m->event = json_string_value(v);
		m->data = json_object_get(m->json, "data");
		if (json_is_object(ts))
			m->timestamp =
			    (double)json_integer_value(
				json_object_get(ts, "seconds")) +
			    (double)json_integer_value(
				json_object_get(ts, "microseconds")) /
				1e6;
		return 0;
	}
	if ((v = json_object_get(m->json, "return"))) {
		m->kind = QMP_MSG_RETURN;
		m->ret = v;
		return 0;
	}
	if ((v = json_object_get(m->json, "error"))) {
		const char *s;

		if (!json_is_object(v))
			goto unknown;
		m->kind = QMP_MSG_ERROR;
		s = json_string_value(json_object_get(v, "class"));
		m->eclass = s ? s : "(no class)";
		s = json_string_value(json_object_get(v, "desc"));
		m->edesc = s ? s : "(no description)";
		return 0;
	}
unknown:
	excerpt(text, len, ex, sizeof(ex));
	qmp_msg_free(m);
	return al_errf(err, "not a QMP greeting, reply or event: '%s'", ex);
}

void qmp_msg_free(struct qmp_msg *m)
{
	json_decref(m->json);
	memset(m, 0, sizeof(*m));
}

static void event_record(struct qmp *q, const struct qmp_msg *m)
{
	struct qmp_event *e = &q->events[q->nevents % QMP_EVENTS_KEPT];

	json_decref(e->data);
	snprintf(e->name, sizeof(e->name), "%s", m->event);
	e->timestamp = m->timestamp;
	e->data = m->data ? json_incref(m->data) : NULL;
	q->nevents++;
}

const struct qmp_event *qmp_last_event(const struct qmp *q, const char *name)
{
	size_t kept =
	    q->nevents < QMP_EVENTS_KEPT ? q->nevents : QMP_EVENTS_KEPT;

	for (size_t i = 0; i < kept; i++) {
		const struct qmp_event *e =
		    &q->events[(q->nevents - 1 - i) % QMP_EVENTS_KEPT];
		if (!name || strcmp(e->name, name) == 0)
			return e;
	}
	return NULL;
}

size_t qmp_event_count(const struct qmp *q)
{
	return q->nevents;
}

void qmp_events_clear(struct qmp *q)
{
	for (size_t i = 0; i < QMP_EVENTS_KEPT; i++) {
		json_decref(q->events[i].data);
		memset(&q->events[i], 0, sizeof(q->events[i]));
	}
	q->nevents = 0;
}

/* Finds one complete line at the start of the buffer: its length without
 * "\r\n" and how many bytes it occupies. At EOF a final unterminated line
 * counts as complete. */
static bool find_line(const struct qmp *q, size_t *llen, size_t *used)
{
	const char *nl = q->len ? memchr(q->buf, '\n', q->len) : NULL;

	if (!nl && !(q->closed && q->len))
		return false;
	*llen = nl ? (size_t)(nl - q->buf) : q->len;
	*used = *llen + (nl ? 1 : 0);
	if (*llen && q->buf[*llen - 1] == '\r')
		(*llen)--;
	return true;
}

static void consume(struct qmp *q, size_t used)
{
	memmove(q->buf, q->buf + used, q->len - used);
	q->len -= used;
}

/* Reads the next message. what names the operation for errors. */
static enum rd read_msg(struct qmp *q, int64_t deadline, const char *what,
			struct qmp_msg *m, struct al_err *err)
{
	for (;;) {
		size_t llen, used;
		struct pollfd pfd = {.fd = q->fd, .events = POLLIN};
		int64_t left;
		ssize_t n;
		int rc;

		if (find_line(q, &llen, &used)) {
			rc = llen ? qmp_msg_parse(q->buf, llen, m, err) : 1;
			consume(q, used);
			if (rc == 1)
				continue;
			if (rc < 0) {
				al_err_prefix(err, "QMP %s: %s: bad message",
					      q->path, what);
				return RD_ERR;
			}
			return RD_OK;
		}
		if (q->closed)
			return RD_EOF;
		if (q->len >= QMP_LINE_MAX) {
			al_errf(err,
				"QMP %s: %s: message longer than %u bytes "
				"without a newline",
				q->path, what, QMP_LINE_MAX);
			return RD_ERR;
		}
		left = deadline - mono_ms();
		if (left <= 0)
			return RD_TIMEOUT;
		rc = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (rc < 0 && errno != EINTR) {
			al_errf(err, "QMP %s: %s: poll: %s", q->path, what,
				strerror(errno));
			return RD_ERR;
		}
		if (rc <= 0)
			continue;
		if (q->cap - q->len < 4096) {
			size_t ncap = q->cap ? q->cap * 2 : 8192;
			char *nb = realloc(q->buf, ncap);

			if (!nb) {
				al_errf(err, "QMP %s: %s: out of memory",
					q->path, what);
				return RD_ERR;
			}
			q->buf = nb;
			q->cap = ncap;
		}
		n = read(q->fd, q->buf + q->len, q->cap - q->len);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == ECONNRESET) {
				q->closed = true;
				continue;
			}
			al_errf(err, "QMP %s: %s: read: %s", q->path, what,
				strerror(errno));
			return RD_ERR;
		}
		if (n == 0)
			q->closed = true;
		q->len += (size_t)n;
	}
}

static int send_all(struct qmp *q, const char *data, size_t len,
		    int64_t deadline, const char *cmd, struct al_err *err)
{
	while (len) {
		struct pollfd pfd = {.fd = q->fd, .events = POLLOUT};
		ssize_t n = send(q->fd, data, len, MSG_NOSIGNAL);
		int64_t left;

		if (n > 0) {
			data += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return al_errf(err, "QMP %s: %s: send: %s", q->path,
				       cmd, strerror(errno));
		left = deadline - mono_ms();
		if (left <= 0)
			return al_errf(err,
				       "QMP %s: %s: QEMU did not take the "
				       "command in time",
				       q->path, cmd);
		poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
	}
	return 0;
}

/* After quit's reply: QEMU sends its last events (SHUTDOWN) and closes. */
static int wait_closed(struct qmp *q, int64_t deadline, int timeout_ms,
		       struct al_err *err)
{
	for (;;) {
		struct qmp_msg m;
		enum rd r = read_msg(q, deadline, "quit", &m, err);

		if (r == RD_EOF)
			return 0;
		if (r == RD_ERR)
			return -1;
		if (r == RD_TIMEOUT)
			return al_errf(err,
				       "QMP %s: quit: QEMU replied but kept "
				       "the connection open for %d ms",
				       q->path, timeout_ms);
		if (m.kind == QMP_MSG_EVENT)
			event_record(q, &m);
		qmp_msg_free(&m);
	}
}

int qmp_execute(struct qmp *q, const char *cmd, json_t *args, json_t **ret,
		int timeout_ms, struct al_err *err)
{
	int64_t deadline = mono_ms() + timeout_ms;
	json_int_t id = ++q->next_id;
	bool is_quit = strcmp(cmd, "quit") == 0;
	json_t *req;
	char *text, *line;
	int rc;

	if (ret)
		*ret = NULL;
	if (q->closed)
		return al_errf(err,
			       "QMP %s: %s: QEMU already closed the "
			       "connection",
			       q->path, cmd);
	req = json_pack("{s:s, s:I}", "execute", cmd, "id", id);
	if (!req || (args && json_object_set(req, "arguments", args) < 0) ||
	    !(text = json_dumps(req, JSON_COMPACT))) {
		json_decref(req);
		return al_errf(err, "QMP %s: %s: cannot encode the command",
			       q->path, cmd);
	}
	json_decref(req);
	/* The command and its newline in one send: QEMU acts on a whole
	 * object without waiting for the newline, and after quit a
	 * newline sent on its own met a closed socket (EPIPE). */
	line = malloc(strlen(text) + 2);
	if (!line) {
		free(text);
		return al_errf(err, "QMP %s: %s: out of memory", q->path, cmd);
	}
	snprintf(line, strlen(text) + 2, "%s\n", text);
	rc = send_all(q, line, strlen(line), deadline, cmd, err);
	free(line);
	free(text);
	if (rc < 0)
		return -1;

	for (;;) {
		struct qmp_msg m;
		enum rd r = read_msg(q, deadline, cmd, &m, err);

		if (r == RD_ERR)
			return -1;
		if (r == RD_TIMEOUT)
			return al_errf(err, "QMP %s: %s: no reply within %d ms",
				       q->path, cmd, timeout_ms);
		if (r == RD_EOF) {
			if (is_quit)
				return 0;
			return al_errf(err,
				       "QMP %s: %s: QEMU closed the connection "
				       "before replying",
				       q->path, cmd);
		}
		if (m.kind == QMP_MSG_EVENT) {
			event_record(q, &m);
		} else if ((m.kind == QMP_MSG_RETURN ||
			    m.kind == QMP_MSG_ERROR) &&
			   m.has_id && m.id == id) {
			if (m.kind == QMP_MSG_ERROR) {
				al_errf(err, "QMP %s: %s: %s: %s", q->path, cmd,
					m.eclass, m.edesc);
				qmp_msg_free(&m);
				return -1;
			}
			if (ret)
				*ret = json_incref(m.ret);
			qmp_msg_free(&m);
			return is_quit
				   ? wait_closed(q, deadline, timeout_ms, err)
				   : 0;
		}
		/* Anything else is a late reply to a command that timed
		 * out: skip it. */
		qmp_msg_free(&m);
	}
}

static bool event_seen(const struct qmp *q, const char *name)
{
	return qmp_last_event(q, name) != NULL;
}

int qmp_wait_event(struct qmp *q, const char *name, int timeout_ms,
		   struct al_err *err)
{
	int64_t deadline = mono_ms() + timeout_ms;
	char what[96];

	snprintf(what, sizeof(what), "waiting for event %s", name);
	while (!event_seen(q, name)) {
		struct qmp_msg m;
		enum rd r = read_msg(q, deadline, what, &m, err);

		if (r == RD_ERR)
			return -1;
		if (r == RD_TIMEOUT)
			return al_errf(err, "QMP %s: no %s event within %d ms",
				       q->path, name, timeout_ms);
		if (r == RD_EOF)
			return al_errf(err,
				       "QMP %s: QEMU closed the connection "
				       "before a %s event",
				       q->path, name);
		if (m.kind == QMP_MSG_EVENT)
			event_record(q, &m);
		qmp_msg_free(&m);
	}
	return 0;
}

static int connect_retry(struct qmp *q, int64_t deadline, int timeout_ms,
			 struct al_err *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	memcpy(sa.sun_path, q->path, sizeof(sa.sun_path));
	for (;;) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int e;

		if (fd < 0)
			return al_errf(err, "QMP %s: socket: %s", q->path,
				       strerror(errno));
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			q->fd = fd;
			return fcntl(fd, F_SETFL, O_NONBLOCK);
		}
		e = errno;
		close(fd);
		/* QEMU may still be creating the socket. */
		if ((e != ENOENT && e != ECONNREFUSED) || mono_ms() >= deadline)
			return al_errf(err,
				       "QMP %s: connect: %s (tried for %d "
				       "ms)",
				       q->path, strerror(e), timeout_ms);
		usleep(CONNECT_RETRY_MS * 1000);
	}
}

int qmp_connect(struct qmp **out, const char *sock_path, int timeout_ms,
		struct al_err *err)
{
	int64_t deadline = mono_ms() + timeout_ms;
	struct qmp *q;
	struct qmp_msg m;
	enum rd r;

	*out = NULL;
	if (strlen(sock_path) >= sizeof(q->path))
		return al_errf(err, "QMP %s: socket path longer than %zu bytes",
			       sock_path, sizeof(q->path) - 1);
	q = calloc(1, sizeof(*q));
	if (!q)
		return al_errf(err, "QMP %s: out of memory", sock_path);
	q->fd = -1;
	snprintf(q->path, sizeof(q->path), "%s", sock_path);
	if (connect_retry(q, deadline, timeout_ms, err) < 0)
		goto fail;
	/* QEMU may put an event it raised while starting (RESUME) before
	 * the greeting on a connection made that early: an event is not
	 * the peer being confused, it is skipped. */
	while ((r = read_msg(q, deadline, "greeting", &m, err)) == RD_OK &&
	       m.kind == QMP_MSG_EVENT)
		qmp_msg_free(&m);
	if (r == RD_TIMEOUT || r == RD_EOF) {
		al_errf(err, "QMP %s: %s before the greeting", q->path,
			r == RD_EOF ? "connection closed" : "timed out");
		goto fail;
	}
	if (r == RD_ERR)
		goto fail;
	if (m.kind != QMP_MSG_GREETING) {
		/* Say what came instead: the only way to tell a stale socket
		 * from a confused peer afterwards. */
		char *got = json_dumps(m.json, JSON_COMPACT);

		al_errf(err,
			"QMP %s: expected the QMP greeting first, got '%.200s'",
			q->path, got ? got : "?");
		free(got);
		qmp_msg_free(&m);
		goto fail;
	}
	qmp_msg_free(&m);
	if (qmp_execute(
		q, "qmp_capabilities", NULL, NULL,
		(int)(deadline - mono_ms() > 0 ? deadline - mono_ms() : 1),
		err) < 0)
		goto fail;
	*out = q;
	return 0;
fail:
	qmp_close(q);
	return -1;
}

void qmp_close(struct qmp *q)
{
	if (!q)
		return;
	if (q->fd >= 0)
		close(q->fd);
	qmp_events_clear(q);
	free(q->buf);
	free(q);
}
