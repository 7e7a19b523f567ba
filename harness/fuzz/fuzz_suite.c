/* libFuzzer target: suite file bytes through suite_parse. A parse either
 * fails with one "name:line: ..." line (bad input) or yields a suite within
 * the limits the format sets (suites/README.md): known kinds, scopes and
 * ops, DSCP markings the agent takes, lists that go together, copies that
 * can be told apart, timing in range. The suite then expands for one and
 * for three stations; an expansion either fails with one line or gives a
 * plan of the flows its items promise, each with an agent command. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../agent/agent_proto.h"
#include "../suites/suites.h"

#define NAME "fuzz/fuzz.suite"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const struct al_err *err, int bad_input)
{
	if ((bad_input && (!err->bad_input ||
			   strncmp(err->msg, NAME ":", strlen(NAME ":")))) ||
	    !err->msg[0] || strchr(err->msg, '\n'))
		__builtin_trap();
}

static int text_ok(const char *s, size_t max)
{
	if (!s || !*s || strlen(s) > max)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static void check_item(const struct suite *s, const struct suite_item *it)
{
	if ((unsigned)it->kind > SUITE_ICMP ||
	    (unsigned)it->scope > SUITE_N_SPREAD ||
	    !text_ok(it->series, SUITE_SERIES_MAX - 1) ||
	    (it->marking && agent_dscp_tos(it->marking) < 0) ||
	    (it->marking && it->markings) || (unsigned)it->bulk > 1 ||
	    it->interval_ms > 60000 ||
	    (it->interval_ms &&
	     (it->kind == SUITE_TCP_UP || it->kind == SUITE_TCP_DOWN)) ||
	    (it->scope == SUITE_N_SPREAD &&
	     (!s->streams || !strstr(it->series, "%i"))))
		__builtin_trap();
	if (!it->labels && !it->markings && !it->ping_labels
		? it->n_labels != 0
		: it->n_labels < 1 || it->n_labels > 64)
		__builtin_trap();
	for (size_t i = 0; i < it->n_labels; i++)
		if ((it->labels && !text_ok(it->labels[i], 31)) ||
		    (it->ping_labels && !text_ok(it->ping_labels[i], 31)) ||
		    (it->markings && agent_dscp_tos(it->markings[i]) < 0))
			__builtin_trap();
}

static void check_suite(const struct suite *s)
{
	int any_streams = 0;

	if (strcmp(s->name, "fuzz") || strcmp(s->path, NAME) || s->overrides ||
	    !text_ok(s->description, 255) || !text_ok(s->flent_name, 31) ||
	    !text_ok(s->plot, 31) || !(s->length_s >= 1) ||
	    s->length_s > 86400 || !(s->delay_s >= 0) || s->delay_s > 3600 ||
	    s->step_ms < 10 || s->step_ms > 60000 ||
	    s->step_ms > s->length_s * 1000 || s->streams > 1024 ||
	    !s->streams != !s->streams_param ||
	    (s->flags & ~(unsigned)(SUITE_FAIRNESS | SUITE_STARTUP)) ||
	    s->n_items < 1 || s->n_items > 64 || s->n_computed > 32 ||
	    !s->n_computed != !s->computed)
		__builtin_trap();
	for (size_t i = 0; i < s->n_items; i++) {
		check_item(s, &s->items[i]);
		any_streams |= s->items[i].scope == SUITE_N_SPREAD;
	}
	if (!s->streams != !any_streams)
		__builtin_trap();
	for (size_t i = 0; i < s->n_computed; i++) {
		const struct suite_computed *c = &s->computed[i];

		if (!text_ok(c->name, SUITE_SERIES_MAX - 1) ||
		    !text_ok(c->prefix, SUITE_SERIES_MAX - 1) ||
		    !text_ok(c->units, 31) || (unsigned)c->op > FLENT_FAIRNESS)
			__builtin_trap();
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->name, s->computed[j].name))
				__builtin_trap();
	}
}

/* How many flows the items make for p. */
static size_t copies(const struct suite *s, const struct suite_params *p)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_items; i++)
		n += s->items[i].scope == SUITE_ONE    ? 1
		     : s->items[i].scope == SUITE_EACH ? p->n_stations
						       : p->streams;
	return n;
}

static void check_expand(const struct suite *s, const struct suite_params *p)
{
	struct suite_plan plan;
	struct al_err err;
	char cmd[512];

	if (suite_expand(s, p, &plan, &err) < 0) {
		check_error(&err, 0);
		return;
	}
	if (plan.n_flows != copies(s, p) || plan.total_s < plan.length_s)
		__builtin_trap();
	for (size_t i = 0; i < plan.n_flows; i++) {
		const struct suite_flow *f = &plan.flows[i];

		if (f->station >= p->n_stations || f->tos < 0 || f->tos > 255 ||
		    ((f->kind == SUITE_ICMP || f->kind == SUITE_UDP_RTT) &&
		     !f->interval_ms) ||
		    suite_flow_command(&plan, i, "10.0.0.1", 5201, 5202,
				       "wlan0", cmd, sizeof(cmd)) < 0)
			__builtin_trap();
		for (size_t j = 0; j < i; j++)
			if (!strcmp(f->series, plan.flows[j].series) ||
			    !strcmp(f->id, plan.flows[j].id))
				__builtin_trap();
	}
	suite_plan_free(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const one[] = {"sta1"};
	static const char *const three[] = {"sta1", "ap-host-2", "sta3"};
	struct suite s;
	struct al_err err;

	if (suite_parse(&s, "fuzz", NAME, data, size, &err) < 0) {
		check_error(&err, 1);
		return 0;
	}
	check_suite(&s);
	/* A few streams whatever the default: 1024 copies of 64 flows is a
	 * run nobody makes. */
	unsigned streams = s.streams ? 1 + s.streams % 3 : 0;
	check_expand(&s, &(struct suite_params){.stations = one,
						.n_stations = 1,
						.streams = streams});
	check_expand(&s, &(struct suite_params){.stations = three,
						.n_stations = 3,
						.streams = streams,
						.length_s = 2,
						.step_s = 0.5,
						.cc = "bbr"});
	suite_free(&s);
	return 0;
}
