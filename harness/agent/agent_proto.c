#include "agent_proto.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TOKENS 24

static int split(char *s, char **tok, int max)
{
	int n = 0;

	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			*s++ = '\0';
		if (!*s)
			break;
		if (n == max)
			return -1;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
	}
	return n;
}

static int parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int valid_id(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= AGENT_ID_MAX)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.:-", *s))
			return 0;
	return 1;
}

static int copy_str(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -1;
	strcpy(dst, src);
	return 0;
}

struct dscp_name {
	const char *name;
	int dscp;
};

static const struct dscp_name dscp_names[] = {
    {"CS0", 0},	  {"BE", 0},	{"CS1", 8},   {"BK", 8},    {"CS2", 16},
    {"CS3", 24},  {"CS4", 32},	{"CS5", 40},  {"CS6", 48},  {"CS7", 56},
    {"EF", 46},	  {"AF11", 10}, {"AF12", 12}, {"AF13", 14}, {"AF21", 18},
    {"AF22", 20}, {"AF23", 22}, {"AF31", 26}, {"AF32", 28}, {"AF33", 30},
    {"AF41", 34}, {"AF42", 36}, {"AF43", 38}, {"LE", 1},
};

int agent_dscp_tos(const char *name)
{
	uint32_t v;

	if (!name)
		return -1;
	for (size_t i = 0; i < sizeof(dscp_names) / sizeof(dscp_names[0]); i++)
		if (!strcasecmp(name, dscp_names[i].name))
			return dscp_names[i].dscp << 2;
	/* A bare number is a TOS byte, as netperf's -Y takes it. */
	if (parse_u32(name, 255, &v) == 0)
		return (int)v;
	return -1;
}

const char *agent_kind_name(enum agent_kind kind)
{
	switch (kind) {
	case AGENT_TCP_UP:
		return "tcp-up";
	case AGENT_TCP_DOWN:
		return "tcp-down";
	case AGENT_UDP:
		return "udp";
	case AGENT_ICMP:
		return "icmp";
	case AGENT_TCP:
		return "tcp";
	case AGENT_KIND_NONE:
		break;
	}
	return "none";
}

/* key=value options after the positional arguments. */
static int parse_opt(struct agent_cmd *c, const char *tok, struct al_err *err)
{
	const char *eq = strchr(tok, '=');
	char key[AGENT_KEY_MAX];
	const char *val;
	size_t klen;

	if (!eq || eq == tok)
		return al_errf(err, "option '%s' is not key=value", tok);
	klen = (size_t)(eq - tok);
	if (klen >= sizeof(key))
		return al_errf(err, "unknown option '%.*s'", (int)klen, tok);
	memcpy(key, tok, klen);
	key[klen] = '\0';
	val = eq + 1;

	if (!strcmp(key, "tos")) {
		int tos = agent_dscp_tos(val);

		if (tos < 0)
			return al_errf(err,
				       "tos '%s' is neither 0..255 nor a DSCP "
				       "name (CS0..CS7, EF, AFxy)",
				       val);
		c->tos = tos;
		return 0;
	}
	if (!strcmp(key, "dscp")) {
		uint32_t d;
		int tos;

		/* A number is the DSCP, 0..63. agent_dscp_tos takes one as
		 * a whole TOS byte: dscp=65 would set TOS 65, ECN bits and
		 * all. */
		if (parse_u32(val, UINT32_MAX, &d) == 0)
			tos = d <= 63 ? (int)(d << 2) : -1;
		else
			tos = agent_dscp_tos(val);
		if (tos < 0)
			return al_errf(err, "dscp '%s' is unknown", val);
		c->tos = tos;
		return 0;
	}
	if (!strcmp(key, "cc")) {
		if (!*val || copy_str(c->cc, sizeof(c->cc), val))
			return al_errf(err, "cc '%s' is empty or too long",
				       val);
		return 0;
	}
	if (!strcmp(key, "dev")) {
		if (!*val || strchr(val, '/') ||
		    copy_str(c->dev, sizeof(c->dev), val))
			return al_errf(err,
				       "dev '%s' is not an interface name "
				       "(1..15 characters, no '/')",
				       val);
		return 0;
	}
	if (!strcmp(key, "bind")) {
		if (copy_str(c->bind, sizeof(c->bind), val))
			return al_errf(err, "bind '%s' is too long", val);
		return 0;
	}
	struct {
		const char *name;
		uint32_t *dst;
		uint32_t min, max;
	} nums[] = {
	    {"delay_ms", &c->delay_ms, 0, 86400000},
	    {"length_ms", &c->length_ms, 0, 86400000},
	    {"interval_ms", &c->interval_ms, 1, 60000},
	    {"size", &c->size, 32, 65000},
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strcmp(key, nums[i].name))
			continue;
		if (parse_u32(val, nums[i].max, nums[i].dst) ||
		    *nums[i].dst < nums[i].min)
			return al_errf(err, "%s '%s' is not in %u..%u", key,
				       val, nums[i].min, nums[i].max);
		return 0;
	}
	return al_errf(err, "unknown option '%s'", key);
}

static int parse_port(const char *s, uint16_t *port, struct al_err *err)
{
	uint32_t v;

	if (parse_u32(s, 65535, &v) || v == 0)
		return al_errf(err, "port '%s' is not in 1..65535", s);
	*port = (uint16_t)v;
	return 0;
}

static int parse_id_dst(struct agent_cmd *c, const char *id, const char *dst,
			struct al_err *err)
{
	if (!valid_id(id))
		return al_errf(err,
			       "id '%s' must be 1..%d characters of "
			       "[A-Za-z0-9_.:-]",
			       id, AGENT_ID_MAX - 1);
	strcpy(c->id, id);
	if (copy_str(c->dst, sizeof(c->dst), dst))
		return al_errf(err, "address '%s' is too long", dst);
	return 0;
}

static int parse_opts(struct agent_cmd *c, char **tok, int n, int first,
		      struct al_err *err)
{
	for (int i = first; i < n; i++)
		if (parse_opt(c, tok[i], err))
			return -1;
	return 0;
}

int agent_parse_cmd(const char *line, struct agent_cmd *c, struct al_err *err)
{
	char buf[AGENT_LINE_MAX];
	char *tok[MAX_TOKENS];
	int n;

	memset(c, 0, sizeof(*c));
	c->tos = -1;
	if (strlen(line) >= sizeof(buf))
		return al_errf(err, "line longer than %d bytes",
			       AGENT_LINE_MAX - 1);
	strcpy(buf, line);
	n = split(buf, tok, MAX_TOKENS);
	if (n < 0)
		return al_errf(err, "more than %d words", MAX_TOKENS);
	if (n == 0)
		return al_errf(err, "empty line");

	if (!strcmp(tok[0], "hello") || !strcmp(tok[0], "stop") ||
	    !strcmp(tok[0], "quit")) {
		if (n != 1)
			return al_errf(err, "'%s' takes no arguments", tok[0]);
		c->verb = tok[0][0] == 'h'   ? AGENT_HELLO
			  : tok[0][0] == 's' ? AGENT_STOP
					     : AGENT_QUIT;
		return 0;
	}
	if (!strcmp(tok[0], "serve")) {
		c->verb = AGENT_SERVE;
		if (n < 3)
			return al_errf(err, "usage: serve tcp|udp PORT "
					    "[bind=ADDR]");
		if (!strcmp(tok[1], "tcp"))
			c->kind = AGENT_TCP;
		else if (!strcmp(tok[1], "udp"))
			c->kind = AGENT_UDP;
		else
			return al_errf(
			    err, "serve: kind '%s' is not tcp or udp", tok[1]);
		if (parse_port(tok[2], &c->port, err))
			return -1;
		if (parse_opts(c, tok, n, 3, err))
			return -1;
		if (c->tos >= 0 || c->cc[0] || c->delay_ms || c->length_ms ||
		    c->interval_ms || c->size || c->dev[0])
			return al_errf(err, "serve takes only bind=ADDR");
		return 0;
	}
	if (!strcmp(tok[0], "flow")) {
		c->verb = AGENT_FLOW;
		if (n < 5)
			return al_errf(err,
				       "usage: flow tcp-up|tcp-down ID DST "
				       "PORT [tos=] [cc=] [dev=] [delay_ms=] "
				       "[length_ms=]");
		if (!strcmp(tok[1], "tcp-up"))
			c->kind = AGENT_TCP_UP;
		else if (!strcmp(tok[1], "tcp-down"))
			c->kind = AGENT_TCP_DOWN;
		else
			return al_errf(err,
				       "flow: kind '%s' is not tcp-up or "
				       "tcp-down",
				       tok[1]);
		if (parse_id_dst(c, tok[2], tok[3], err) ||
		    parse_port(tok[4], &c->port, err) ||
		    parse_opts(c, tok, n, 5, err))
			return -1;
		if (c->interval_ms || c->size || c->bind[0])
			return al_errf(err,
				       "flow %s: interval_ms, size and "
				       "bind are probe/serve options",
				       c->id);
		return 0;
	}
	if (!strcmp(tok[0], "probe")) {
		int first;

		c->verb = AGENT_PROBE;
		if (n < 4)
			return al_errf(err, "usage: probe udp ID DST PORT | "
					    "probe icmp ID DST [options]");
		if (!strcmp(tok[1], "udp"))
			c->kind = AGENT_UDP;
		else if (!strcmp(tok[1], "icmp"))
			c->kind = AGENT_ICMP;
		else
			return al_errf(
			    err, "probe: kind '%s' is not udp or icmp", tok[1]);
		if (parse_id_dst(c, tok[2], tok[3], err))
			return -1;
		first = 4;
		if (c->kind == AGENT_UDP) {
			if (n < 5)
				return al_errf(
				    err, "probe udp %s: missing PORT", c->id);
			if (parse_port(tok[4], &c->port, err))
				return -1;
			first = 5;
		}
		if (parse_opts(c, tok, n, first, err))
			return -1;
		if (c->cc[0] || c->bind[0])
			return al_errf(err,
				       "probe %s: cc and bind are not "
				       "probe options",
				       c->id);
		if (!c->interval_ms)
			c->interval_ms = c->kind == AGENT_UDP ? 5 : 200;
		if (!c->size)
			c->size = 64;
		return 0;
	}
	if (!strcmp(tok[0], "start")) {
		char *end;
		long long at;
		uint32_t step;

		c->verb = AGENT_START;
		if (n != 4)
			return al_errf(
			    err, "usage: start AT_UNIX_MS LENGTH_S STEP_MS");
		errno = 0;
		at = strtoll(tok[1], &end, 10);
		if (errno || *end || at <= 0)
			return al_errf(err, "start time '%s' is not unix ms",
				       tok[1]);
		c->start_unix_ms = at;
		errno = 0;
		c->length_s = strtod(tok[2], &end);
		if (errno || *end || !(c->length_s > 0) || c->length_s > 86400)
			return al_errf(
			    err, "length '%s' is not in (0, 86400] s", tok[2]);
		if (parse_u32(tok[3], 60000, &step) || step < 10)
			return al_errf(err, "step '%s' is not in 10..60000 ms",
				       tok[3]);
		c->step_ms = step;
		return 0;
	}
	return al_errf(err,
		       "unknown command '%s' (hello, serve, flow, probe, "
		       "start, stop, quit)",
		       tok[0]);
}

static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return (errno || *end || end == s) ? -1 : 0;
}

static int parse_kvs(struct agent_out *o, char **tok, int n, int first,
		     struct al_err *err)
{
	for (int i = first; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		size_t klen;

		if (!eq || eq == tok[i])
			return al_errf(err, "'%s' is not key=value", tok[i]);
		klen = (size_t)(eq - tok[i]);
		if (klen >= AGENT_KEY_MAX)
			return al_errf(err, "key in '%s' is too long", tok[i]);
		if (o->n_kv == AGENT_KV_MAX)
			return al_errf(err, "more than %d key=value pairs",
				       AGENT_KV_MAX);
		memcpy(o->kv[o->n_kv].key, tok[i], klen);
		o->kv[o->n_kv].key[klen] = '\0';
		if (parse_double(eq + 1, &o->kv[o->n_kv].val))
			return al_errf(err, "value in '%s' is not a number",
				       tok[i]);
		o->n_kv++;
	}
	return 0;
}

static const char *rest_after(const char *line, int words)
{
	const char *p = line;

	for (int i = 0; i < words; i++) {
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')
			p++;
	}
	while (*p == ' ')
		p++;
	return p;
}

static int out_fail(struct al_err *err, const char *line)
{
	return al_err_prefix(err, "agent line '%.200s'", line);
}

int agent_parse_out(const char *line, struct agent_out *o, struct al_err *err)
{
	char buf[AGENT_LINE_MAX];
	char *tok[MAX_TOKENS + 8];
	int n;

	memset(o, 0, sizeof(*o));
	if (strlen(line) >= sizeof(buf)) {
		al_errf(err, "longer than %d bytes", AGENT_LINE_MAX - 1);
		return out_fail(err, line);
	}
	strcpy(buf, line);
	n = split(buf, tok, MAX_TOKENS + 8);
	if (n <= 0) {
		al_errf(err, n ? "too many words" : "empty");
		return out_fail(err, line);
	}
	if (!strcmp(tok[0], "ok") || !strcmp(tok[0], "err")) {
		o->type = tok[0][0] == 'o' ? AGENT_OUT_OK : AGENT_OUT_ERR;
		snprintf(o->text, sizeof(o->text), "%s", rest_after(line, 1));
		return 0;
	}
	if (!strcmp(tok[0], "done")) {
		o->type = AGENT_OUT_DONE;
		return 0;
	}
	if (n < 2 || strlen(tok[1]) >= AGENT_ID_MAX) {
		al_errf(err, "missing or over-long id");
		return out_fail(err, line);
	}
	strcpy(o->id, tok[1]);
	if (!strcmp(tok[0], "sum")) {
		o->type = AGENT_OUT_SUMMARY;
		if (parse_kvs(o, tok, n, 2, err))
			return out_fail(err, line);
		return 0;
	}
	if (n < 3 || parse_double(tok[2], &o->t)) {
		al_errf(err, "missing or bad time");
		return out_fail(err, line);
	}
	if (!strcmp(tok[0], "e")) {
		o->type = AGENT_OUT_EVENT;
		snprintf(o->text, sizeof(o->text), "%s", rest_after(line, 3));
		return 0;
	}
	if (!strcmp(tok[0], "l")) {
		o->type = AGENT_OUT_LOST;
		if (parse_kvs(o, tok, n, 3, err))
			return out_fail(err, line);
		return 0;
	}
	if (!strcmp(tok[0], "s")) {
		o->type = AGENT_OUT_SAMPLE;
		if (n < 4 || parse_double(tok[3], &o->value)) {
			al_errf(err, "missing or bad value");
			return out_fail(err, line);
		}
		if (parse_kvs(o, tok, n, 4, err))
			return out_fail(err, line);
		return 0;
	}
	al_errf(err, "unknown line type '%s'", tok[0]);
	return out_fail(err, line);
}

int agent_out_get(const struct agent_out *o, const char *key, double *val)
{
	for (int i = 0; i < o->n_kv; i++)
		if (!strcmp(o->kv[i].key, key)) {
			*val = o->kv[i].val;
			return 1;
		}
	return 0;
}
