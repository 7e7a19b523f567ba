#include "run.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../agent/agent_proto.h"
#include "../util/stats.h"

struct flow_state {
	int series;
	int connected, failed, summary;
	double first_ms;
};

struct suite_collector {
	const struct suite_plan *plan;
	struct flent_file *f;
	struct flow_state *st;
	double t0;
	size_t outside; /* samples timed outside the run */
	double last_t;	/* time of the last line if a sample, else NaN */
	struct suite_outcome res;
};

/* Time each station agent's session may add to the wait for hellos. */
#define HELLO_PER_AGENT_S 0.5

static double now_unix(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void suite_collect_fail(struct suite_collector *c, const char *fmt, ...)
{
	size_t off = strlen(c->res.reasons);
	va_list ap;

	c->res.partial = 1;
	if (off + 4 >= sizeof(c->res.reasons))
		return;
	if (off)
		off += (size_t)snprintf(c->res.reasons + off,
					sizeof(c->res.reasons) - off, "; ");
	va_start(ap, fmt);
	vsnprintf(c->res.reasons + off, sizeof(c->res.reasons) - off, fmt, ap);
	va_end(ap);
}

struct suite_collector *suite_collector_new(const struct suite_plan *plan,
					    double t0_unix, struct al_err *err)
{
	const struct suite *s = plan->suite;
	struct suite_collector *c = calloc(1, sizeof(*c));
	json_t *hosts;
	char num[16];

	if (!c) {
		al_errf(err, "suite %s: out of memory", s->name);
		return NULL;
	}
	c->plan = plan;
	c->t0 = t0_unix;
	c->st = calloc(plan->n_flows ? plan->n_flows : 1, sizeof(*c->st));
	c->f = flent_new(s->flent_name, t0_unix, plan->step_s, plan->length_s,
			 plan->total_s, err);
	if (!c->st || !c->f) {
		if (c->f)
			flent_free(c->f);
		free(c->st);
		free(c);
		return NULL;
	}
	hosts = json_array();
	for (size_t i = 0; i < plan->n_stations; i++)
		json_array_append_new(hosts, json_string(plan->stations[i]));
	flent_meta_json(c->f, "HOSTS", hosts);
	flent_meta_str(c->f, "HOST", plan->stations[0]);
	flent_meta_num(c->f, "DELAY", plan->delay_s);
	flent_meta_str(c->f, "AIRLAB_SUITE", s->name);
	if (s->streams_param) {
		snprintf(num, sizeof(num), "%u", plan->streams);
		flent_test_param(c->f, s->streams_param, num);
	}
	if (plan->cc[0])
		flent_test_param(c->f, "tcp_cong_control", plan->cc);
	for (size_t i = 0; i < plan->n_flows; i++) {
		const struct suite_flow *fl = &plan->flows[i];
		int bulk =
		    fl->kind == SUITE_TCP_UP || fl->kind == SUITE_TCP_DOWN;

		c->st[i].series =
		    flent_series(c->f, fl->series, bulk ? "Mbits/s" : "ms");
		c->st[i].first_ms = NAN;
		flent_series_meta_str(c->f, c->st[i].series, "MARKING",
				      fl->marking);
		flent_series_meta_str(c->f, c->st[i].series, "STATION",
				      plan->stations[fl->station]);
		flent_series_meta_str(c->f, c->st[i].series, "AGENT_KIND",
				      suite_kind_name(fl->kind));
	}
	return c;
}

static int find_flow(const struct suite_collector *c, size_t station,
		     const char *id)
{
	for (size_t i = 0; i < c->plan->n_flows; i++)
		if (c->plan->flows[i].station == station &&
		    !strcmp(c->plan->flows[i].id, id))
			return (int)i;
	return -1;
}

int suite_collect_line(struct suite_collector *c, size_t station,
		       const char *line, struct al_err *err)
{
	const char *host = c->plan->stations[station];
	struct agent_out o;
	int i;

	c->last_t = NAN;
	if (agent_parse_out(line, &o, err))
		return al_err_prefix(err, "station %s", host);
	if (o.type == AGENT_OUT_SAMPLE)
		c->last_t = o.t;
	if (o.type == AGENT_OUT_OK || o.type == AGENT_OUT_DONE)
		return 0;
	if (o.type == AGENT_OUT_ERR) {
		suite_collect_fail(c, "station %s agent: %s", host, o.text);
		return 0;
	}
	if (o.type == AGENT_OUT_EVENT && !strcmp(o.id, "-")) {
		if (strstr(o.text, "late start"))
			suite_collect_fail(c, "station %s: %s", host, o.text);
		return 0;
	}
	i = find_flow(c, station, o.id);
	if (i < 0)
		return al_errf(err,
			       "station %s: line for unknown id '%s': %.100s",
			       host, o.id, line);
	const struct suite_flow *fl = &c->plan->flows[i];
	struct flow_state *st = &c->st[i];
	int bulk = fl->kind == SUITE_TCP_UP || fl->kind == SUITE_TCP_DOWN;
	json_t *extra = json_object();

	/* A sample far outside the run means the agent's clock is not the
	 * one the run was started in: its figures would be lost silently. */
	if ((o.type == AGENT_OUT_SAMPLE || o.type == AGENT_OUT_LOST) &&
	    (o.t < c->t0 - 1 || o.t > c->t0 + c->plan->total_s + 10))
		c->outside++;
	switch (o.type) {
	case AGENT_OUT_SAMPLE:
		for (int k = 0; k < o.n_kv; k++)
			json_object_set_new(extra, o.kv[k].key,
					    json_real(o.kv[k].val));
		/* Flent's irtt records carry seq as an integer. */
		if (!bulk) {
			double seq;

			if (agent_out_get(&o, "seq", &seq))
				json_object_set_new(
				    extra, "seq",
				    json_integer((json_int_t)seq));
		}
		return flent_raw(c->f, st->series, o.t, o.value, extra);
	case AGENT_OUT_LOST: {
		double seq = 0;

		agent_out_get(&o, "seq", &seq);
		json_object_set_new(extra, "seq",
				    json_integer((json_int_t)seq));
		json_object_set_new(extra, "lost", json_true());
		return flent_raw(c->f, st->series, o.t, NAN, extra);
	}
	case AGENT_OUT_EVENT:
		json_decref(extra);
		if (!strncmp(o.text, "connected", 9))
			st->connected = 1;
		if (!strncmp(o.text, "error", 5) ||
		    !strncmp(o.text, "closed", 6)) {
			st->failed = 1;
			flent_series_meta_str(c->f, st->series, "ERROR",
					      o.text);
			suite_collect_fail(c, "%s (%s on %s): %s", fl->series,
					   o.id, host, o.text);
		}
		return 0;
	case AGENT_OUT_SUMMARY: {
		double v;

		json_decref(extra);
		st->summary = 1;
		for (int k = 0; k < o.n_kv; k++) {
			char key[64];
			size_t j;

			/* sent -> SENT etc., SERIES_META keys are upper case */
			for (j = 0; o.kv[k].key[j] && j + 1 < sizeof(key); j++)
				key[j] = (char)(o.kv[k].key[j] >= 'a' &&
							o.kv[k].key[j] <= 'z'
						    ? o.kv[k].key[j] - 32
						    : o.kv[k].key[j]);
			key[j] = '\0';
			flent_series_meta_num(c->f, st->series, key,
					      o.kv[k].val);
		}
		if (!bulk && agent_out_get(&o, "sent", &v) && v > 0) {
			double rcv = 0;

			agent_out_get(&o, "received", &rcv);
			flent_series_meta_num(c->f, st->series, "PACKETS_SENT",
					      v);
			flent_series_meta_num(c->f, st->series,
					      "PACKETS_RECEIVED", rcv);
			flent_series_meta_num(c->f, st->series,
					      "PACKET_LOSS_RATE", 1 - rcv / v);
		}
		if (bulk && agent_out_get(&o, "first_ms", &v))
			st->first_ms = v;
		if (agent_out_get(&o, "failed", &v) && v > 0)
			st->failed = 1;
		return 0;
	}
	default:
		json_decref(extra);
		return 0;
	}
}

struct flent_file *suite_collector_finish(struct suite_collector *c,
					  struct suite_outcome *res)
{
	const struct suite_plan *plan = c->plan;
	const struct suite *s = plan->suite;
	struct flent_file *f = c->f;
	int *src = malloc((plan->n_flows ? plan->n_flows : 1) * sizeof(int));

	for (size_t k = 0; k < s->n_computed && src; k++) {
		size_t n = 0;

		for (size_t i = 0; i < plan->n_flows; i++)
			if (!strncmp(plan->flows[i].series,
				     s->computed[k].prefix,
				     strlen(s->computed[k].prefix)))
				src[n++] = c->st[i].series;
		flent_computed(f, s->computed[k].name, s->computed[k].units,
			       s->computed[k].op, src, n);
	}
	free(src);
	c->res.t0_unix = c->t0;
	c->res.flows = 0;
	for (size_t i = 0; i < plan->n_flows; i++) {
		const struct suite_flow *fl = &plan->flows[i];

		if (fl->kind != SUITE_TCP_UP && fl->kind != SUITE_TCP_DOWN)
			continue;
		c->res.flows++;
		if (c->st[i].connected)
			c->res.flows_connected++;
		if (isfinite(c->st[i].first_ms) && c->st[i].first_ms <= 2000)
			c->res.flows_started_2s++;
		if (!c->st[i].summary)
			suite_collect_fail(c,
					   "%s (%s): no summary from the agent",
					   fl->series, fl->id);
		if (flent_raw_count(f, c->st[i].series) == 0) {
			flent_series_meta_str(f, c->st[i].series, "MISSING",
					      "no samples");
			if (!c->st[i].failed)
				suite_collect_fail(c, "%s (%s): no samples",
						   fl->series, fl->id);
		}
	}
	if (c->outside)
		suite_collect_fail(c,
				   "%zu samples timed outside the run (unix "
				   "%.3f + %.0f s): the agents' clock is not "
				   "the one the run started in",
				   c->outside, c->t0, plan->total_s);
	*res = c->res;
	free(c->st);
	free(c);
	return f;
}

/* ---- summary figures from the raw values -------------------------------- */

static void summarize(struct flent_file *f, const struct suite_plan *plan,
		      struct suite_outcome *res)
{
	double from = res->t0_unix + plan->delay_s;
	double to = from + plan->length_s;
	size_t cap = 1024, n = 0;
	double *lat = malloc(cap * sizeof(double));
	double up[1024], down[1024];
	size_t n_up = 0, n_down = 0;

	res->up_mbps = res->down_mbps = 0;
	res->flow_mbps =
	    malloc((plan->n_flows ? plan->n_flows : 1) * sizeof(double));
	for (size_t i = 0; i < plan->n_flows && res->flow_mbps; i++)
		res->flow_mbps[i] = NAN;
	for (size_t i = 0; i < plan->n_flows && lat; i++) {
		const struct suite_flow *fl = &plan->flows[i];
		int idx = flent_series_find(f, fl->series);
		int bulk =
		    fl->kind == SUITE_TCP_UP || fl->kind == SUITE_TCP_DOWN;
		double sum = 0;
		size_t cnt = 0;
		json_t *pts;

		/* Probes of suites without load count over the whole run. */
		double lo = plan->delay_s > 0 ? from : res->t0_unix;
		double hi =
		    plan->delay_s > 0 ? to : res->t0_unix + plan->total_s;

		pts = flent_raw_json(f, idx);
		for (size_t j = 0; j < json_array_size(pts); j++) {
			json_t *r = json_array_get(pts, j);
			double t = json_number_value(json_object_get(r, "t"));
			json_t *v = json_object_get(r, "val");

			if (!json_is_number(v) || t < lo || t > hi)
				continue;
			if (bulk) {
				sum += json_number_value(v);
				cnt++;
			} else {
				if (n == cap) {
					double *nl = realloc(
					    lat, cap * 2 * sizeof(double));

					if (!nl)
						break;
					lat = nl;
					cap *= 2;
				}
				lat[n++] = json_number_value(v);
			}
		}
		json_decref(pts);
		if (!bulk)
			continue;
		double mean = cnt ? sum / (double)cnt : 0;

		if (res->flow_mbps)
			res->flow_mbps[i] = mean;
		if (fl->kind == SUITE_TCP_UP) {
			res->up_mbps += mean;
			if (n_up < 1024)
				up[n_up++] = mean;
		} else {
			res->down_mbps += mean;
			if (n_down < 1024)
				down[n_down++] = mean;
		}
	}
	res->lat_median_ms = lat ? stats_percentile(lat, n, 50) : NAN;
	res->lat_p90_ms = lat ? stats_percentile(lat, n, 90) : NAN;
	res->lat_p99_ms = lat ? stats_percentile(lat, n, 99) : NAN;
	res->up_jain = stats_jain(up, n_up);
	res->down_jain = stats_jain(down, n_down);
	free(lat);
	flent_meta_num(f, "AIRLAB_LATENCY_MEDIAN_MS", res->lat_median_ms);
	flent_meta_num(f, "AIRLAB_LATENCY_P90_MS", res->lat_p90_ms);
	flent_meta_num(f, "AIRLAB_LATENCY_P99_MS", res->lat_p99_ms);
	flent_meta_num(f, "AIRLAB_UP_MBPS", res->up_mbps);
	flent_meta_num(f, "AIRLAB_DOWN_MBPS", res->down_mbps);
	flent_meta_num(f, "AIRLAB_FLOWS", (double)res->flows);
	flent_meta_num(f, "AIRLAB_FLOWS_CONNECTED",
		       (double)res->flows_connected);
	flent_meta_num(f, "AIRLAB_FLOWS_STARTED_2S",
		       (double)res->flows_started_2s);
	flent_meta_str(f, "AIRLAB_STATUS", res->partial ? "partial" : "ok");
	flent_meta_str(f, "AIRLAB_REASONS", res->reasons);
}

void suite_print_summary(FILE *fp, const struct suite_plan *plan,
			 const struct suite_outcome *res)
{
	const struct suite *s = plan->suite;

	fprintf(fp, "suite %s: %s, %zu flows (%zu connected)\n", s->name,
		res->partial ? "PARTIAL" : "ok", res->flows,
		res->flows_connected);
	fprintf(fp, "  %-28s %10.2f ms\n", "latency under load, median",
		res->lat_median_ms);
	fprintf(fp, "  %-28s %10.2f ms\n", "latency under load, p90",
		res->lat_p90_ms);
	fprintf(fp, "  %-28s %10.2f ms\n", "latency under load, p99",
		res->lat_p99_ms);
	fprintf(fp, "  %-28s %10.2f Mbit/s\n", "goodput up", res->up_mbps);
	fprintf(fp, "  %-28s %10.2f Mbit/s\n", "goodput down", res->down_mbps);
	if (s->flags & SUITE_FAIRNESS) {
		if (isfinite(res->up_jain))
			fprintf(fp, "  %-28s %10.3f\n", "Jain's index up",
				res->up_jain);
		if (isfinite(res->down_jain))
			fprintf(fp, "  %-28s %10.3f\n", "Jain's index down",
				res->down_jain);
	}
	if (s->flags & SUITE_STARTUP)
		fprintf(fp, "  %-28s %6zu of %zu\n", "flows going within 2 s",
			res->flows_started_2s, res->flows);
	if (res->partial)
		fprintf(fp, "  reasons: %s\n", res->reasons);
}

/* ---- driving the agents ------------------------------------------------- */

static int send_line(struct suite_agent *a, const char *line,
		     struct al_err *err)
{
	size_t len = strlen(line), off = 0;
	char buf[AGENT_LINE_MAX + 2];

	if (len > AGENT_LINE_MAX)
		return al_errf(err, "agent %s: command too long", a->host);
	memcpy(buf, line, len);
	buf[len++] = '\n';
	while (off < len) {
		ssize_t n = write(a->to_fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return al_errf(err, "agent %s: write to fd %d: %s",
				       a->host, a->to_fd, strerror(errno));
		off += (size_t)n;
	}
	return 0;
}

/* Next complete line from a's buffer into out; 1 if one was there. */
static int take_line(struct suite_agent *a, char *out, size_t len)
{
	char *nl = memchr(a->buf, '\n', a->len);
	size_t n;

	if (!nl)
		return 0;
	n = (size_t)(nl - a->buf);
	snprintf(out, len, "%.*s", (int)n, a->buf);
	memmove(a->buf, nl + 1, a->len - n - 1);
	a->len -= n + 1;
	return 1;
}

static int fill(struct suite_agent *a, struct al_err *err)
{
	ssize_t n;

	if (a->len == sizeof(a->buf))
		return al_errf(err, "agent %s: line longer than %zu bytes",
			       a->host, sizeof(a->buf));
	n = read(a->from_fd, a->buf + a->len, sizeof(a->buf) - a->len);
	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0) {
		a->eof = 1;
		return al_errf(err, "agent %s: its output (fd %d) closed%s%s",
			       a->host, a->from_fd, n < 0 ? ": " : "",
			       n < 0 ? strerror(errno) : "");
	}
	a->len += (size_t)n;
	return 0;
}

/* Reads lines until one starting with "ok" or "err"; lines in between go
 * to c (may be NULL). */
static int await_reply(struct suite_agent *a, double timeout_s, char *reply,
		       size_t len, struct suite_collector *c, size_t station,
		       const char *what, struct al_err *err)
{
	double deadline = now_unix() + timeout_s;

	for (;;) {
		while (take_line(a, reply, len)) {
			if (!strncmp(reply, "ok", 2) ||
			    !strncmp(reply, "err ", 4))
				return 0;
			if (c)
				suite_collect_line(c, station, reply, NULL);
		}
		double left = deadline - now_unix();
		struct pollfd p = {.fd = a->from_fd, .events = POLLIN};

		if (left <= 0)
			return al_errf(
			    err, "agent %s: no reply to '%s' within %.0f s",
			    a->host, what, timeout_s);
		if (poll(&p, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			return al_errf(err, "agent %s: poll: %s", a->host,
				       strerror(errno));
		if ((p.revents & (POLLIN | POLLHUP)) && fill(a, err))
			return al_err_prefix(err, "waiting for reply to '%s'",
					     what);
	}
}

static int command(struct suite_agent *a, const char *cmd, double timeout,
		   char *reply, size_t len, struct al_err *err)
{
	if (send_line(a, cmd, err) ||
	    await_reply(a, timeout, reply, len, NULL, 0, cmd, err))
		return -1;
	return 0;
}

/* The agent's clock from its hello reply ("... clock=T"), and the
 * controller's clock at the middle of that round trip. An agent that does
 * not say its clock is taken to share the controller's. */
static int agent_clock(struct suite_agent *a, double timeout, double *agent_t,
		       double *local_t, struct al_err *err)
{
	char reply[AGENT_LINE_MAX];
	double sent = now_unix();
	const char *k;
	char *end;

	if (command(a, "hello", timeout, reply, sizeof(reply), err))
		return -1;
	*local_t = (sent + now_unix()) / 2;
	*agent_t = *local_t;
	if (strncmp(reply, "ok hello", 8))
		return al_errf(err, "agent %s: hello answered '%.100s'",
			       a->host, reply);
	if ((k = strstr(reply, " clock="))) {
		double t = strtod(k + 7, &end);

		if (end == k + 7 || !(t > 0))
			return al_errf(err, "agent %s: bad clock in '%.100s'",
				       a->host, reply);
		*agent_t = t;
	}
	return 0;
}

/* Tells o->on_load when a sample crosses the load's start or end. */
static void load_phase(const struct suite_run_opts *o,
		       const struct suite_plan *plan, double t0, double t,
		       int *phase)
{
	if (!o->on_load || !(plan->length_s > 0) || !isfinite(t))
		return;
	if (*phase == 0 && t >= t0 + plan->delay_s) {
		o->on_load(o->load_ctx, 0);
		*phase = 1;
	}
	if (*phase == 1 && t >= t0 + plan->delay_s + plan->length_s) {
		o->on_load(o->load_ctx, 1);
		*phase = 2;
	}
}

int suite_run(const struct suite_plan *plan, struct suite_agent *server,
	      struct suite_agent *stations, const struct suite_run_opts *o,
	      struct flent_file **out, struct suite_outcome *res,
	      struct al_err *err)
{
	unsigned tcp_port = o->tcp_port ? o->tcp_port : 5201;
	unsigned udp_port = o->udp_port ? o->udp_port : 5202;
	double lead = o->start_lead_s > 0 ? o->start_lead_s : 1.0;
	double rto = o->reply_timeout_s > 0 ? o->reply_timeout_s : 10.0;
	char line[AGENT_LINE_MAX], reply[AGENT_LINE_MAX];
	struct suite_collector *c;
	double t0;
	size_t n_st = plan->n_stations;

	*out = NULL;
	memset(res, 0, sizeof(*res));
	/* Servers first: a run without them can only fail. */
	if (command(server, "hello", rto, reply, sizeof(reply), err))
		return al_err_prefix(err, "server");
	snprintf(line, sizeof(line), "serve tcp %u", tcp_port);
	if (command(server, line, rto, reply, sizeof(reply), err))
		return al_err_prefix(err, "server");
	if (strncmp(reply, "ok", 2))
		return al_errf(err, "server agent %s: %s", server->host, reply);
	snprintf(line, sizeof(line), "serve udp %u", udp_port);
	if (command(server, line, rto, reply, sizeof(reply), err))
		return al_err_prefix(err, "server");
	if (strncmp(reply, "ok", 2))
		return al_errf(err, "server agent %s: %s", server->host, reply);
	/* The station agents' sessions open in parallel, but every one
	 * costs the DUT a key exchange (100 stations under TCG: tens of
	 * seconds): their hellos share one deadline that grows with their
	 * number. */
	double hello_by = now_unix() + rto + HELLO_PER_AGENT_S * (double)n_st;
	for (size_t s = 0; s < n_st; s++) {
		double left = hello_by - now_unix();

		stations[s].done = 0;
		if (command(&stations[s], "hello", left > 1 ? left : 1, reply,
			    sizeof(reply), err))
			return al_err_prefix(err, "station");
	}

	t0 = floor((now_unix() + lead) * 1000) / 1000;
	c = suite_collector_new(plan, t0, err);
	if (!c)
		return -1;
	for (size_t i = 0; i < plan->n_flows; i++) {
		struct suite_agent *a = &stations[plan->flows[i].station];

		if (suite_flow_command(plan, i, o->server_addr, tcp_port,
				       udp_port, a->dev, line, sizeof(line)) ||
		    command(a, line, rto, reply, sizeof(reply), err)) {
			suite_collect_fail(c, "%s: %s", plan->flows[i].series,
					   err->msg);
			continue;
		}
		if (strncmp(reply, "ok", 2))
			suite_collect_fail(c, "%s on %s: %s",
					   plan->flows[i].series, a->host,
					   reply);
	}
	/* The start time is absolute and in the agents' clock (which a
	 * guest under QEMU icount keeps apart from ours), so agents whose
	 * `start` arrives a bit later still start together. */
	double agent_t, local_t;

	if (n_st && agent_clock(&stations[0], rto, &agent_t, &local_t, err)) {
		suite_collect_fail(c, "station %s: clock: %s", stations[0].host,
				   err->msg);
		agent_t = local_t = now_unix();
	} else if (!n_st)
		agent_t = local_t = now_unix();
	c->res.clock_offset_s = agent_t - local_t;
	t0 = floor((agent_t + lead) * 1000) / 1000;
	c->t0 = t0;
	flent_set_t0(c->f, t0);
	snprintf(line, sizeof(line), "start %lld %.3f %u",
		 (long long)llround(t0 * 1000), plan->total_s,
		 (unsigned)lround(plan->step_s * 1000));
	for (size_t s = 0; s < n_st; s++) {
		if (command(&stations[s], line, rto, reply, sizeof(reply),
			    err) ||
		    strncmp(reply, "ok", 2)) {
			suite_collect_fail(
			    c, "station %s: start: %s", stations[s].host,
			    strncmp(reply, "err", 3) ? err->msg : reply);
			stations[s].done = 1;
		}
	}

	/* Collect until every station said done; the agents stop their own
	 * flows at the end, so this waits the run plus their linger. Their
	 * clock may run slower than ours (a guest under icount), so the wait
	 * lasts while they still talk: 30 s of silence after the run's end
	 * by our clock is a stuck agent. */
	double deadline = now_unix() + (t0 - agent_t) + plan->total_s + 30;
	size_t left = 0;
	int phase = 0;

	for (size_t s = 0; s < n_st; s++)
		left += !stations[s].done;
	while (left) {
		struct pollfd p[64];
		size_t map[64], np = 0;
		double wait = deadline - now_unix();

		for (size_t s = 0; s < n_st; s++) {
			while (!stations[s].done &&
			       take_line(&stations[s], reply, sizeof(reply))) {
				struct al_err e2;

				if (!strcmp(reply, "done")) {
					stations[s].done = 1;
					left--;
					break;
				}
				if (suite_collect_line(c, s, reply, &e2))
					suite_collect_fail(c, "%s", e2.msg);
				load_phase(o, plan, t0, c->last_t, &phase);
			}
			if (!stations[s].done && np < 64) {
				p[np].fd = stations[s].from_fd;
				p[np].events = POLLIN;
				map[np++] = s;
			}
		}
		if (!left)
			break;
		if (wait <= 0) {
			for (size_t s = 0; s < n_st; s++)
				if (!stations[s].done)
					suite_collect_fail(
					    c,
					    "station %s: no 'done', silent "
					    "%.0f "
					    "s after the run's end",
					    stations[s].host, 30.0);
			break;
		}
		if (poll(p, np, (int)(wait * 1000) + 1) < 0 && errno != EINTR)
			break;
		for (size_t k = 0; k < np; k++) {
			struct al_err e2;
			size_t s = map[k];

			if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (fill(&stations[s], &e2)) {
				suite_collect_fail(c, "%s", e2.msg);
				stations[s].done = 1;
				left--;
			}
			if (now_unix() + 30 > deadline)
				deadline = now_unix() + 30;
		}
	}
	*out = suite_collector_finish(c, res);
	summarize(*out, plan, res);
	return 0;
}
