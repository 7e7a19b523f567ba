/* The agent's line protocol and statistics, and one real agent (in a child
 * process, over pipes) echoing UDP probes on loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../agent/agent.h"
#include "../agent/agent_proto.h"
#include "../agent/agent_stats.h"
#include "../util/stats.h"

static void parses_flow_with_options(void **state)
{
	(void)state;
	struct agent_cmd c;
	struct al_err err;

	assert_int_equal(agent_parse_cmd("flow tcp-up f1 10.0.0.1 5201 "
					 "tos=0xb8 cc=bbr delay_ms=5000 "
					 "length_ms=60000",
					 &c, &err),
			 0);
	assert_int_equal(c.verb, AGENT_FLOW);
	assert_int_equal(c.kind, AGENT_TCP_UP);
	assert_string_equal(c.id, "f1");
	assert_string_equal(c.dst, "10.0.0.1");
	assert_int_equal(c.port, 5201);
	assert_int_equal(c.tos, 0xb8);
	assert_string_equal(c.cc, "bbr");
	assert_int_equal(c.delay_ms, 5000);
	assert_int_equal(c.length_ms, 60000);

	assert_int_equal(
	    agent_parse_cmd("flow tcp-down d 10.0.0.1 1 tos=CS1", &c, &err), 0);
	assert_int_equal(c.kind, AGENT_TCP_DOWN);
	assert_int_equal(c.tos, 32);
	assert_int_equal(c.cc[0], '\0');
}

static void parses_probes_serve_start(void **state)
{
	(void)state;
	struct agent_cmd c;
	struct al_err err;

	assert_int_equal(agent_parse_cmd("probe udp p 10.0.0.1 5202", &c, &err),
			 0);
	assert_int_equal(c.interval_ms, 5); /* the default */
	assert_int_equal(c.tos, -1);
	assert_int_equal(agent_parse_cmd("probe icmp i ::1 interval_ms=200 "
					 "tos=EF",
					 &c, &err),
			 0);
	assert_int_equal(c.kind, AGENT_ICMP);
	assert_int_equal(c.tos, 46 << 2);
	assert_int_equal(
	    agent_parse_cmd("serve udp 5202 bind=10.0.0.1", &c, &err), 0);
	assert_string_equal(c.bind, "10.0.0.1");
	assert_int_equal(agent_parse_cmd("flow tcp-down d 10.0.0.1 5201 "
					 "dev=wlan1",
					 &c, &err),
			 0);
	assert_string_equal(c.dev, "wlan1");
	assert_int_equal(
	    agent_parse_cmd("start 1700000000123 70 200", &c, &err), 0);
	assert_true(c.start_unix_ms == 1700000000123LL);
	assert_true(c.length_s == 70.0);
	assert_int_equal(c.step_ms, 200);
	assert_int_equal(agent_parse_cmd("quit", &c, &err), 0);
	assert_int_equal(c.verb, AGENT_QUIT);
}

static void rejects_bad_commands_naming_the_token(void **state)
{
	(void)state;
	struct agent_cmd c;
	struct al_err err;

	assert_int_equal(
	    agent_parse_cmd("flow tcp-sideways f 1.2.3.4 1", &c, &err), -1);
	assert_non_null(strstr(err.msg, "tcp-sideways"));
	assert_int_equal(
	    agent_parse_cmd("flow tcp-up f 1.2.3.4 70000", &c, &err), -1);
	assert_non_null(strstr(err.msg, "70000"));
	assert_int_equal(
	    agent_parse_cmd("flow tcp-up bad/id 1.2.3.4 1", &c, &err), -1);
	assert_non_null(strstr(err.msg, "bad/id"));
	assert_int_equal(
	    agent_parse_cmd("probe udp p 1.2.3.4 1 tos=XX", &c, &err), -1);
	assert_non_null(strstr(err.msg, "XX"));
	assert_int_equal(
	    agent_parse_cmd("probe udp p 1.2.3.4 1 interval_ms=0", &c, &err),
	    -1);
	assert_int_equal(
	    agent_parse_cmd("probe udp p 1.2.3.4 1 colour=red", &c, &err), -1);
	assert_non_null(strstr(err.msg, "colour"));
	assert_int_equal(agent_parse_cmd("start 0 10 200", &c, &err), -1);
	assert_int_equal(agent_parse_cmd("start 1700000000000 10 5", &c, &err),
			 -1);
	assert_non_null(strstr(err.msg, "step"));
	assert_int_equal(agent_parse_cmd("serve tcp 5201 tos=EF", &c, &err),
			 -1);
	assert_int_equal(agent_parse_cmd("serve tcp 5201 dev=wlan1", &c, &err),
			 -1);
	assert_int_equal(agent_parse_cmd("probe icmp i 1.2.3.4 "
					 "dev=a-name-far-too-long0",
					 &c, &err),
			 -1);
	assert_non_null(strstr(err.msg, "a-name-far-too-long0"));
	assert_int_equal(
	    agent_parse_cmd("probe icmp i 1.2.3.4 dev=../x", &c, &err), -1);
	assert_int_equal(agent_parse_cmd("launch", &c, &err), -1);
	assert_non_null(strstr(err.msg, "launch"));
	assert_int_equal(agent_parse_cmd("", &c, &err), -1);
}

static void dscp_names_match_flent(void **state)
{
	(void)state;
	assert_int_equal(agent_dscp_tos("CS0"), 0);
	assert_int_equal(agent_dscp_tos("CS1"), 0x20);
	assert_int_equal(agent_dscp_tos("CS5"), 0xa0);
	assert_int_equal(agent_dscp_tos("EF"), 0xb8);
	assert_int_equal(agent_dscp_tos("af41"), 34 << 2);
	assert_int_equal(agent_dscp_tos("184"), 184);
	assert_int_equal(agent_dscp_tos("CS9"), -1);
	assert_int_equal(agent_dscp_tos("256"), -1);
}

static void parses_agent_output(void **state)
{
	(void)state;
	struct agent_out o;
	struct al_err err;
	double v;

	assert_int_equal(agent_parse_out("s f1 1700000000.250000 93.5 dur=0.2 "
					 "tcp_cwnd=10 tcp_rtt=1.5",
					 &o, &err),
			 0);
	assert_int_equal(o.type, AGENT_OUT_SAMPLE);
	assert_string_equal(o.id, "f1");
	assert_true(fabs(o.t - 1700000000.25) < 1e-6);
	assert_true(o.value == 93.5);
	assert_true(agent_out_get(&o, "tcp_cwnd", &v) && v == 10);
	assert_false(agent_out_get(&o, "tcp_pacing_rate", &v));
	assert_int_equal(agent_parse_out("l p 1700000000.1 seq=7", &o, &err),
			 0);
	assert_int_equal(o.type, AGENT_OUT_LOST);
	assert_true(agent_out_get(&o, "seq", &v) && v == 7);
	assert_int_equal(agent_parse_out("e f1 1700000000.0 error connect to "
					 "x: refused",
					 &o, &err),
			 0);
	assert_string_equal(o.text, "error connect to x: refused");
	assert_int_equal(agent_parse_out("sum p sent=10 received=9", &o, &err),
			 0);
	assert_int_equal(o.n_kv, 2);
	assert_int_equal(agent_parse_out("done", &o, &err), 0);
	assert_int_equal(o.type, AGENT_OUT_DONE);
	assert_int_equal(agent_parse_out("s f1 notatime 1", &o, &err), -1);
	assert_non_null(strstr(err.msg, "notatime"));
	assert_int_equal(agent_parse_out("s f1 1.0 2.0 cwnd", &o, &err), -1);
	assert_int_equal(agent_parse_out("x y", &o, &err), -1);
}

static uint32_t lost_seen[16];
static int n_lost_seen;

static void record_lost(uint32_t seq, int64_t sent, void *ctx)
{
	(void)sent;
	(void)ctx;
	lost_seen[n_lost_seen++] = seq;
}

static void probe_track_counts_loss_reorder_dups(void **state)
{
	(void)state;
	struct probe_track t;
	int64_t rtt;

	probe_track_init(&t);
	for (int i = 0; i < 6; i++)
		assert_int_equal(probe_track_send(&t, 1000 * i), i);
	assert_int_equal(probe_track_reply(&t, 0, 500, &rtt), PROBE_REPLY_OK);
	assert_true(rtt == 500);
	assert_int_equal(probe_track_reply(&t, 2, 2600, &rtt), PROBE_REPLY_OK);
	assert_int_equal(probe_track_reply(&t, 1, 2700, &rtt),
			 PROBE_REPLY_REORDERED);
	assert_int_equal(probe_track_reply(&t, 1, 2800, &rtt),
			 PROBE_REPLY_DUPLICATE);
	assert_int_equal(probe_track_reply(&t, 9, 2800, &rtt),
			 PROBE_REPLY_UNKNOWN);
	/* 3 and 4 are older than the timeout at t=10000; 5 is not. */
	n_lost_seen = 0;
	assert_int_equal(probe_track_expire(&t, 10000, 5500, record_lost, NULL),
			 2);
	assert_int_equal(n_lost_seen, 2);
	assert_int_equal(lost_seen[0], 3);
	assert_int_equal(lost_seen[1], 4);
	assert_int_equal(probe_track_reply(&t, 3, 11000, &rtt),
			 PROBE_REPLY_LATE);
	assert_true(t.sent == 6 && t.received == 3 && t.lost == 2 &&
		    t.reordered == 1 && t.duplicates == 1 && t.late == 1);
	/* Growth past the first allocation keeps earlier entries. */
	for (int i = 6; i < 5000; i++)
		probe_track_send(&t, 1000 * i);
	assert_int_equal(probe_track_reply(&t, 4999, 1000 * 4999 + 7, &rtt),
			 PROBE_REPLY_OK);
	assert_true(rtt == 7);
	probe_track_free(&t);
}

static void order_statistics(void **state)
{
	(void)state;
	double v[] = {5, 1, 4, 2, 3};
	double eq[] = {3, 3, 3, 3};
	double one_hog[] = {10, 0, 0, 0};

	assert_true(stats_percentile(v, 5, 50) == 3);
	assert_true(stats_percentile(v, 5, 0) == 1);
	assert_true(stats_percentile(v, 5, 100) == 5);
	assert_true(fabs(stats_percentile(v, 5, 99) - 4.96) < 1e-9);
	assert_true(isnan(stats_percentile(v, 0, 50)));
	assert_true(fabs(stats_jain(eq, 4) - 1.0) < 1e-12);
	assert_true(fabs(stats_jain(one_hog, 4) - 0.25) < 1e-12);
	assert_true(isnan(stats_jain(one_hog + 1, 3)));
}

/* A real agent in a child: serves UDP on loopback and probes itself. */
static void agent_probes_its_own_echo_server(void **state)
{
	(void)state;
	int to[2], from[2];
	pid_t pid;
	char buf[1 << 16];
	size_t len = 0;
	struct timespec ts;
	long long now_ms;
	FILE *w;

	assert_int_equal(pipe(to), 0);
	assert_int_equal(pipe(from), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *out = fdopen(from[1], "w");

		close(to[1]);
		close(from[0]);
		_exit(agent_main(to[0], out));
	}
	close(to[0]);
	close(from[1]);
	clock_gettime(CLOCK_REALTIME, &ts);
	now_ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	w = fdopen(to[1], "w");
	/* Port 0 is refused; a fixed high port keeps the test simple. */
	fprintf(w,
		"hello\nserve udp 47202 bind=127.0.0.1\n"
		"probe udp p1 127.0.0.1 47202 interval_ms=10 tos=EF\n"
		"flow tcp-up f1 127.0.0.1 1\n"
		"start %lld 0.5 100\n",
		now_ms + 200);
	fflush(w);
	for (;;) {
		ssize_t n = read(from[0], buf + len, sizeof(buf) - 1 - len);

		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\ndone\n"))
			break;
	}
	fclose(w); /* EOF: the agent exits */
	waitpid(pid, NULL, 0);
	close(from[0]);
	buf[len] = '\0';
	assert_non_null(strstr(buf, "ok hello airlab-agent 1"));
	assert_non_null(strstr(buf, "ok serve udp 47202"));
	assert_non_null(strstr(buf, "\ns p1 "));
	/* Nothing listens on port 1: the flow fails, loudly. */
	assert_non_null(strstr(buf, "e f1 "));
	assert_non_null(strstr(buf, "error connect to 127.0.0.1 port 1"));
	char *sum = strstr(buf, "sum p1 sent=");
	unsigned sent = 0, rcvd = 0;

	assert_non_null(sum);
	assert_int_equal(
	    sscanf(sum, "sum p1 sent=%u received=%u", &sent, &rcvd), 2);
	assert_true(sent >= 40 && sent <= 51);
	assert_int_equal(rcvd, sent);
	assert_non_null(strstr(buf, "sum f1 bytes=0 connected=0 failed=1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parses_flow_with_options),
	    cmocka_unit_test(parses_probes_serve_start),
	    cmocka_unit_test(rejects_bad_commands_naming_the_token),
	    cmocka_unit_test(dscp_names_match_flent),
	    cmocka_unit_test(parses_agent_output),
	    cmocka_unit_test(probe_track_counts_loss_reorder_dups),
	    cmocka_unit_test(order_statistics),
	    cmocka_unit_test(agent_probes_its_own_echo_server),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
