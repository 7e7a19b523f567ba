/* QMP client: talks to QEMU's machine protocol over a unix socket.
 * One command at a time; asynchronous events that arrive in between are
 * recorded (the last QMP_EVENTS_KEPT of them) so callers can ask whether
 * the guest shut down, reset or stopped. Every error names the socket path
 * and the command. */
#ifndef AIRLAB_QMP_H
#define AIRLAB_QMP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

#define QMP_EVENTS_KEPT	   16
#define QMP_EVENT_NAME_MAX 64

struct qmp;

struct qmp_event {
	char name[QMP_EVENT_NAME_MAX]; /* e.g. "SHUTDOWN" */
	double timestamp;	       /* QEMU's, seconds since the epoch */
	json_t *data;		       /* the event's "data", may be NULL */
};

/* Connects to the socket (retrying while it does not exist yet or refuses,
 * up to timeout_ms), reads the greeting and negotiates capabilities. */
int qmp_connect(struct qmp **out, const char *sock_path, int timeout_ms,
		struct al_err *err);
void qmp_close(struct qmp *q);

/* Executes cmd with args (a JSON object or NULL; a reference is taken, the
 * caller keeps its own). On success *ret (if not NULL) receives the
 * "return" value, which the caller must json_decref. A QMP error reply
 * becomes -1 with "class: desc" in err. A reply that does not come within
 * timeout_ms is an error; if it turns up later it is skipped (replies are
 * matched by id). `quit` returns once QEMU has closed the socket (its last
 * events, e.g. SHUTDOWN, are recorded then). */
int qmp_execute(struct qmp *q, const char *cmd, json_t *args, json_t **ret,
		int timeout_ms, struct al_err *err);

/* Waits until an event named name arrives (or was recorded since the last
 * qmp_events_clear). */
int qmp_wait_event(struct qmp *q, const char *name, int timeout_ms,
		   struct al_err *err);
/* The newest recorded event with that name (NULL: none), or with name NULL
 * the newest of any name. */
const struct qmp_event *qmp_last_event(const struct qmp *q, const char *name);
size_t qmp_event_count(const struct qmp *q);
void qmp_events_clear(struct qmp *q);

/* ---- message level, exposed for the fuzzer and tests ---- */
enum qmp_msg_kind {
	QMP_MSG_GREETING,
	QMP_MSG_RETURN,
	QMP_MSG_ERROR,
	QMP_MSG_EVENT,
};

struct qmp_msg {
	enum qmp_msg_kind kind;
	json_t *json; /* the whole message, owned */
	bool has_id;  /* replies: an integer "id" was present */
	json_int_t id;
	json_t *ret;	    /* RETURN: borrowed from json */
	const char *eclass; /* ERROR: borrowed */
	const char *edesc;  /* ERROR: borrowed */
	const char *event;  /* EVENT: borrowed */
	double timestamp;   /* EVENT */
	json_t *data;	    /* EVENT: borrowed, may be NULL */
};

/* Parses one line of the stream into a message; -1 with err saying what
 * is wrong with it (not JSON, not an object, none of the known shapes). */
int qmp_msg_parse(const char *text, size_t len, struct qmp_msg *m,
		  struct al_err *err);
void qmp_msg_free(struct qmp_msg *m);

#endif
