/* libFuzzer target: bytes as the command lines an agent reads on stdin, split
 * at newlines, each through agent_parse_cmd. A line is either refused with
 * one line of message, or yields a command that keeps the grammar of
 * harness/agent/PROTOCOL.md (kinds per verb, ID charset, port, option
 * ranges and which verb takes which option, a dscp= that stays a DSCP) and
 * that parses back to the same command when written out canonically. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../agent/agent_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int id_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n >= AGENT_ID_MAX)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_.:-", *s)))
			return 0;
	return 1;
}

/* No blank inside: a value that parsed came from one word. */
static int word_ok(const char *s, size_t max)
{
	return strlen(s) < max && !strpbrk(s, " \t\r\n");
}

/* Whether the last tos=/dscp= option of line is a dscp= one. */
static int last_is_dscp(const char *line)
{
	int dscp = 0;

	for (const char *p = line; *p; p++)
		if (p == line || p[-1] == ' ' || p[-1] == '\t' ||
		    p[-1] == '\r') {
			if (!strncmp(p, "dscp=", 5))
				dscp = 1;
			else if (!strncmp(p, "tos=", 4))
				dscp = 0;
		}
	return dscp;
}

static void opt(char *buf, size_t len, const char *fmt, const char *s,
		unsigned long v)
{
	size_t n = strlen(buf);

	if (s)
		snprintf(buf + n, len - n, fmt, s);
	else
		snprintf(buf + n, len - n, fmt, v);
}

/* The command written out the way a controller would send it. */
static void render(const struct agent_cmd *c, char *buf, size_t len)
{
	static const char *const verbs[] = {"hello", "serve", "flow", "probe",
					    "start", "stop",  "quit"};

	switch (c->verb) {
	case AGENT_SERVE:
		snprintf(buf, len, "serve %s %u", agent_kind_name(c->kind),
			 c->port);
		break;
	case AGENT_FLOW:
		snprintf(buf, len, "flow %s %s %s %u", agent_kind_name(c->kind),
			 c->id, c->dst, c->port);
		break;
	case AGENT_PROBE:
		if (c->kind == AGENT_UDP)
			snprintf(buf, len, "probe udp %s %s %u", c->id, c->dst,
				 c->port);
		else
			snprintf(buf, len, "probe icmp %s %s", c->id, c->dst);
		break;
	case AGENT_START:
		snprintf(buf, len, "start %lld %.17g %u",
			 (long long)c->start_unix_ms, c->length_s, c->step_ms);
		return;
	default:
		snprintf(buf, len, "%s", verbs[c->verb]);
		return;
	}
	if (c->bind[0])
		opt(buf, len, " bind=%s", c->bind, 0);
	if (c->tos >= 0)
		opt(buf, len, " tos=%lu", NULL, (unsigned long)c->tos);
	if (c->cc[0])
		opt(buf, len, " cc=%s", c->cc, 0);
	if (c->dev[0])
		opt(buf, len, " dev=%s", c->dev, 0);
	if (c->delay_ms)
		opt(buf, len, " delay_ms=%lu", NULL, c->delay_ms);
	if (c->length_ms)
		opt(buf, len, " length_ms=%lu", NULL, c->length_ms);
	if (c->interval_ms)
		opt(buf, len, " interval_ms=%lu", NULL, c->interval_ms);
	if (c->size)
		opt(buf, len, " size=%lu", NULL, c->size);
}

/* Field by field: an option given twice leaves bytes after the NUL. */
static int same(const struct agent_cmd *a, const struct agent_cmd *b)
{
	return a->verb == b->verb && a->kind == b->kind &&
	       !strcmp(a->id, b->id) && !strcmp(a->dst, b->dst) &&
	       !strcmp(a->bind, b->bind) && a->port == b->port &&
	       a->tos == b->tos && !strcmp(a->cc, b->cc) &&
	       !strcmp(a->dev, b->dev) && a->delay_ms == b->delay_ms &&
	       a->length_ms == b->length_ms &&
	       a->interval_ms == b->interval_ms && a->size == b->size &&
	       a->start_unix_ms == b->start_unix_ms &&
	       a->length_s == b->length_s && a->step_ms == b->step_ms;
}

static void check_cmd(const char *line, const struct agent_cmd *c)
{
	char again[2 * AGENT_LINE_MAX];
	struct agent_cmd c2;
	struct al_err err;
	int probe = c->verb == AGENT_PROBE, flow = c->verb == AGENT_FLOW;

	switch (c->verb) {
	case AGENT_HELLO:
	case AGENT_STOP:
	case AGENT_QUIT:
	case AGENT_START:
		if (c->kind != AGENT_KIND_NONE || c->port || c->id[0])
			__builtin_trap();
		break;
	case AGENT_SERVE:
		if ((c->kind != AGENT_TCP && c->kind != AGENT_UDP) ||
		    c->id[0] || c->tos != -1 || c->cc[0] || c->dev[0] ||
		    c->delay_ms || c->length_ms || c->interval_ms || c->size)
			__builtin_trap();
		break;
	case AGENT_FLOW:
		if ((c->kind != AGENT_TCP_UP && c->kind != AGENT_TCP_DOWN) ||
		    c->bind[0] || c->interval_ms || c->size)
			__builtin_trap();
		break;
	case AGENT_PROBE:
		if ((c->kind != AGENT_UDP && c->kind != AGENT_ICMP) ||
		    c->bind[0] || c->cc[0] || c->interval_ms < 1 ||
		    c->interval_ms > 60000 || c->size < 32 || c->size > 65000 ||
		    (c->kind == AGENT_ICMP) != (c->port == 0))
			__builtin_trap();
		break;
	default:
		__builtin_trap();
	}
	if ((c->verb == AGENT_SERVE || flow) && c->port == 0)
		__builtin_trap();
	if ((flow || probe) &&
	    (!id_ok(c->id) || !c->dst[0] || !word_ok(c->dst, AGENT_ADDR_MAX)))
		__builtin_trap();
	if (c->verb == AGENT_START &&
	    (c->start_unix_ms <= 0 || !(c->length_s > 0) ||
	     !(c->length_s <= 86400) || c->step_ms < 10 || c->step_ms > 60000))
		__builtin_trap();
	if (c->tos < -1 || c->tos > 255 || !word_ok(c->cc, AGENT_CC_MAX) ||
	    !word_ok(c->dev, AGENT_DEV_MAX) || strchr(c->dev, '/') ||
	    !word_ok(c->bind, AGENT_ADDR_MAX) || c->delay_ms > 86400000 ||
	    c->length_ms > 86400000)
		__builtin_trap();
	/* A DSCP is six bits: the TOS byte it makes has the ECN bits clear. */
	if (c->tos >= 0 && last_is_dscp(line) && (c->tos & 3))
		__builtin_trap();

	render(c, again, sizeof(again));
	if (agent_parse_cmd(again, &c2, &err) < 0 || !same(c, &c2))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *nl;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	for (line = text; line; line = nl ? nl + 1 : NULL) {
		struct agent_cmd c;
		struct al_err err;

		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		err.msg[0] = 0;
		if (agent_parse_cmd(line, &c, &err) == 0)
			check_cmd(line, &c);
		else if (!err.msg[0] || strchr(err.msg, '\n'))
			__builtin_trap();
	}
	free(text);
	return 0;
}
