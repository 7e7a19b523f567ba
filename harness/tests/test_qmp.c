/* The QMP client against a real QEMU (`-M none`, starts in ~0.1 s): the
 * handshake, replies, QMP errors, timeouts, events and quit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../qmp/qmp.h"

#define TIMEOUT_MS 5000

struct fixture {
	char dir[64];
	char sock[128];
	pid_t qemu;
	struct qmp *q;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for the child to exit; returns its status or -1 on timeout. */
static int wait_exit(pid_t pid, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	int status;

	while (now_ms() < deadline) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		usleep(10 * 1000);
	}
	return -1;
}

static int start_qemu(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char qmp_arg[160];

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/airlab-test-qmp.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->sock, sizeof(f->sock), "%s/qmp.sock", f->dir);
	snprintf(qmp_arg, sizeof(qmp_arg), "unix:%s,server=on,wait=off",
		 f->sock);
	f->qemu = fork();
	assert_true(f->qemu >= 0);
	if (f->qemu == 0) {
		/* Never outlive a crashed test. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execlp("qemu-system-x86_64", "qemu-system-x86_64", "-M", "none",
		       "-accel", "tcg", "-nodefaults", "-display", "none",
		       "-qmp", qmp_arg, (char *)NULL);
		_exit(127);
	}
	*state = f;
	return 0;
}

static int stop_qemu(void **state)
{
	struct fixture *f = *state;

	qmp_close(f->q);
	if (f->qemu > 0 && waitpid(f->qemu, NULL, WNOHANG) == 0) {
		kill(f->qemu, SIGCONT);
		kill(f->qemu, SIGKILL);
		waitpid(f->qemu, NULL, 0);
	}
	unlink(f->sock);
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct qmp *connect_ok(struct fixture *f)
{
	struct al_err err = {0};

	if (qmp_connect(&f->q, f->sock, TIMEOUT_MS, &err) < 0)
		fail_msg("%s", err.msg);
	return f->q;
}

static void query_status_answers(void **state)
{
	struct fixture *f = *state;
	struct qmp *q = connect_ok(f);
	struct al_err err = {0};
	json_t *ret;

	if (qmp_execute(q, "query-status", NULL, &ret, TIMEOUT_MS, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(json_is_object(ret));
	assert_true(json_is_string(json_object_get(ret, "status")));
	assert_true(json_is_boolean(json_object_get(ret, "running")));
	json_decref(ret);

	/* Arguments travel: query-command-line-options takes "option". */
	json_t *args = json_pack("{s:s}", "option", "chardev");
	if (qmp_execute(q, "query-command-line-options", args, &ret, TIMEOUT_MS,
			&err) < 0)
		fail_msg("%s", err.msg);
	json_decref(args);
	assert_true(json_is_array(ret));
	assert_int_equal(json_array_size(ret), 1);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(ret, 0), "option")),
			    "chardev");
	json_decref(ret);
}

static void qmp_error_is_surfaced(void **state)
{
	struct fixture *f = *state;
	struct qmp *q = connect_ok(f);
	struct al_err err = {0};
	json_t *ret = (json_t *)1;

	assert_int_equal(
	    qmp_execute(q, "no-such-command", NULL, &ret, TIMEOUT_MS, &err),
	    -1);
	assert_null(ret);
	assert_non_null(strstr(err.msg, f->sock));
	assert_non_null(strstr(err.msg, "no-such-command"));
	assert_non_null(strstr(err.msg, "CommandNotFound"));

	/* Bad arguments to a real command: QEMU's GenericError. */
	json_t *args = json_pack("{s:i}", "bogus", 1);
	assert_int_equal(
	    qmp_execute(q, "query-status", args, NULL, TIMEOUT_MS, &err), -1);
	json_decref(args);
	assert_non_null(strstr(err.msg, "query-status"));
	assert_non_null(strstr(err.msg, "GenericError"));

	/* The connection survives errors. */
	assert_int_equal(
	    qmp_execute(q, "query-status", NULL, NULL, TIMEOUT_MS, &err), 0);
}

/* A stopped QEMU does not answer: the call gives up in time, and the late
 * reply is not mistaken for the next command's. */
static void timeout_then_late_reply_skipped(void **state)
{
	struct fixture *f = *state;
	struct qmp *q = connect_ok(f);
	struct al_err err = {0};
	json_t *ret;
	int64_t t0;

	assert_int_equal(kill(f->qemu, SIGSTOP), 0);
	t0 = now_ms();
	assert_int_equal(qmp_execute(q, "query-version", NULL, &ret, 300, &err),
			 -1);
	assert_in_range(now_ms() - t0, 290, 2000);
	assert_non_null(strstr(err.msg, "no reply within 300 ms"));
	assert_non_null(strstr(err.msg, "query-version"));
	assert_non_null(strstr(err.msg, f->sock));
	assert_int_equal(kill(f->qemu, SIGCONT), 0);

	if (qmp_execute(q, "query-status", NULL, &ret, TIMEOUT_MS, &err) < 0)
		fail_msg("%s", err.msg);
	/* query-version's reply has "qemu"; ours must be query-status'. */
	assert_null(json_object_get(ret, "qemu"));
	assert_non_null(json_object_get(ret, "status"));
	json_decref(ret);
}

static void events_are_kept(void **state)
{
	struct fixture *f = *state;
	struct qmp *q = connect_ok(f);
	struct al_err err = {0};
	const struct qmp_event *e;

	assert_null(qmp_last_event(q, NULL));
	if (qmp_execute(q, "stop", NULL, NULL, TIMEOUT_MS, &err) < 0 ||
	    qmp_wait_event(q, "STOP", TIMEOUT_MS, &err) < 0)
		fail_msg("%s", err.msg);
	e = qmp_last_event(q, "STOP");
	assert_non_null(e);
	assert_true(e->timestamp > 1e9);
	if (qmp_execute(q, "cont", NULL, NULL, TIMEOUT_MS, &err) < 0 ||
	    qmp_wait_event(q, "RESUME", TIMEOUT_MS, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(qmp_last_event(q, NULL)->name, "RESUME");
	assert_non_null(qmp_last_event(q, "STOP"));
	assert_null(qmp_last_event(q, "SHUTDOWN"));
	assert_int_equal(qmp_event_count(q), 2);

	qmp_events_clear(q);
	assert_null(qmp_last_event(q, NULL));
	assert_int_equal(qmp_wait_event(q, "RESET", 200, &err), -1);
	assert_non_null(strstr(err.msg, "no RESET event within 200 ms"));
}

static void quit_ends_qemu(void **state)
{
	struct fixture *f = *state;
	struct qmp *q = connect_ok(f);
	struct al_err err = {0};
	int status;

	if (qmp_execute(q, "quit", NULL, NULL, TIMEOUT_MS, &err) < 0)
		fail_msg("%s", err.msg);
	status = wait_exit(f->qemu, TIMEOUT_MS);
	assert_true(status != -1);
	f->qemu = 0;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* QEMU said why it went before closing the monitor. */
	assert_non_null(qmp_last_event(q, "SHUTDOWN"));
	assert_int_equal(
	    qmp_execute(q, "query-status", NULL, NULL, TIMEOUT_MS, &err), -1);
	assert_non_null(strstr(err.msg, "closed"));
	assert_non_null(strstr(err.msg, "query-status"));
}

static void connect_missing_socket_fails(void **state)
{
	(void)state;
	struct qmp *q = (struct qmp *)1;
	struct al_err err = {0};
	int64_t t0 = now_ms();

	assert_int_equal(
	    qmp_connect(&q, "/tmp/airlab-no-such-dir/qmp.sock", 200, &err), -1);
	assert_null(q);
	assert_in_range(now_ms() - t0, 190, 2000);
	assert_non_null(strstr(err.msg, "/tmp/airlab-no-such-dir/qmp.sock"));
	assert_non_null(strstr(err.msg, "connect"));
}

static void parse_message_kinds(void **state)
{
	(void)state;
	struct qmp_msg m;
	struct al_err err = {0};
	const char *greeting = "{\"QMP\": {\"version\": {}, "
			       "\"capabilities\": [\"oob\"]}}";
	const char *event = "{\"timestamp\": {\"seconds\": 1700000000, "
			    "\"microseconds\": 500000}, \"event\": \"RESET\", "
			    "\"data\": {\"guest\": true}}";
	const char *error = "{\"id\": 7, \"error\": {\"class\": "
			    "\"GenericError\", \"desc\": \"nope\"}}";
	const char *reply = "{\"return\": [1, 2], \"id\": 9}";

	assert_int_equal(qmp_msg_parse(greeting, strlen(greeting), &m, &err),
			 0);
	assert_int_equal(m.kind, QMP_MSG_GREETING);
	qmp_msg_free(&m);

	assert_int_equal(qmp_msg_parse(event, strlen(event), &m, &err), 0);
	assert_int_equal(m.kind, QMP_MSG_EVENT);
	assert_string_equal(m.event, "RESET");
	assert_true(m.timestamp > 1700000000.4 && m.timestamp < 1700000000.6);
	assert_true(json_is_true(json_object_get(m.data, "guest")));
	qmp_msg_free(&m);

	assert_int_equal(qmp_msg_parse(error, strlen(error), &m, &err), 0);
	assert_int_equal(m.kind, QMP_MSG_ERROR);
	assert_true(m.has_id);
	assert_int_equal(m.id, 7);
	assert_string_equal(m.eclass, "GenericError");
	assert_string_equal(m.edesc, "nope");
	qmp_msg_free(&m);

	assert_int_equal(qmp_msg_parse(reply, strlen(reply), &m, &err), 0);
	assert_int_equal(m.kind, QMP_MSG_RETURN);
	assert_int_equal(m.id, 9);
	assert_int_equal(json_array_size(m.ret), 2);
	qmp_msg_free(&m);

	assert_int_equal(qmp_msg_parse("{\"ret", 5, &m, &err), -1);
	assert_non_null(strstr(err.msg, "not JSON"));
	assert_int_equal(qmp_msg_parse("[1]", 3, &m, &err), -1);
	assert_non_null(strstr(err.msg, "not a JSON object"));
	assert_int_equal(qmp_msg_parse("{\"event\": 3}", 12, &m, &err), -1);
	assert_non_null(strstr(err.msg, "not a QMP"));
	assert_null(m.json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(query_status_answers, start_qemu,
					    stop_qemu),
	    cmocka_unit_test_setup_teardown(qmp_error_is_surfaced, start_qemu,
					    stop_qemu),
	    cmocka_unit_test_setup_teardown(timeout_then_late_reply_skipped,
					    start_qemu, stop_qemu),
	    cmocka_unit_test_setup_teardown(events_are_kept, start_qemu,
					    stop_qemu),
	    cmocka_unit_test_setup_teardown(quit_ends_qemu, start_qemu,
					    stop_qemu),
	    cmocka_unit_test(connect_missing_socket_fails),
	    cmocka_unit_test(parse_message_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
