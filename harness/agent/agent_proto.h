/* airlab-agent line protocol: parsing of the commands the harness sends and
 * of the lines the agent sends back. Both sides use this file, so the agent
 * (libc only) and the host-side collector agree on one grammar. The grammar
 * itself is documented in harness/agent/PROTOCOL.md. */
#ifndef AIRLAB_AGENT_PROTO_H
#define AIRLAB_AGENT_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"

#define AGENT_PROTO_VERSION 1
#define AGENT_ID_MAX	    64
#define AGENT_ADDR_MAX	    64
#define AGENT_CC_MAX	    16
#define AGENT_LINE_MAX	    1024
#define AGENT_KV_MAX	    16
#define AGENT_KEY_MAX	    24

enum agent_verb {
	AGENT_HELLO,
	AGENT_SERVE,
	AGENT_FLOW,
	AGENT_PROBE,
	AGENT_START,
	AGENT_STOP,
	AGENT_QUIT,
};

enum agent_kind {
	AGENT_KIND_NONE,
	AGENT_TCP_UP,	/* this agent sends, the peer's `serve tcp` sinks */
	AGENT_TCP_DOWN, /* the peer's `serve tcp` sends, this agent reads */
	AGENT_UDP,	/* probe udp (client) or serve udp (echo server) */
	AGENT_ICMP,	/* probe icmp */
	AGENT_TCP,	/* serve tcp */
};

#define AGENT_DEV_MAX 16 /* IFNAMSIZ */

/* One parsed command. Unset numeric options are 0, unset tos is -1. */
struct agent_cmd {
	enum agent_verb verb;
	enum agent_kind kind;
	char id[AGENT_ID_MAX];
	char dst[AGENT_ADDR_MAX];  /* numeric IPv4/IPv6 address */
	char bind[AGENT_ADDR_MAX]; /* serve: local address, "" = any */
	uint16_t port;
	int tos;	       /* IP_TOS byte (DSCP << 2), -1 = leave alone */
	char cc[AGENT_CC_MAX]; /* TCP_CONGESTION name, "" = default */
	/* flows, probes: the interface their socket is bound to
	 * (SO_BINDTODEVICE), "" = wherever the route goes. A station box
	 * with several radios has one routing table: this is what sends each
	 * station's traffic out of its own radio. */
	char dev[AGENT_DEV_MAX];
	uint32_t delay_ms;     /* start this long after the run starts */
	uint32_t length_ms;    /* run this long, 0 = until the run ends */
	uint32_t interval_ms;  /* probes: send interval */
	uint32_t size;	       /* udp probes: datagram size in bytes */
	int64_t start_unix_ms; /* start: wall-clock start time */
	double length_s;       /* start: total run length */
	uint32_t step_ms;      /* start: sampling step */
};

/* Parses one command line (without the newline). Returns 0, or -1 with a
 * message naming the offending token in err. */
int agent_parse_cmd(const char *line, struct agent_cmd *cmd,
		    struct al_err *err);

/* Names used on the wire for a kind ("tcp-up", "udp", ...). */
const char *agent_kind_name(enum agent_kind kind);

/* DSCP class names as Flent writes them ("CS0".."CS7", "EF", "AF11"...,
 * or a number) to the IP_TOS byte; -1 if the name is unknown. */
int agent_dscp_tos(const char *name);

/* ---- lines the agent sends back ---- */
enum agent_out_type {
	AGENT_OUT_OK,	   /* ok TEXT */
	AGENT_OUT_ERR,	   /* err TEXT */
	AGENT_OUT_SAMPLE,  /* s ID T VALUE k=v... */
	AGENT_OUT_LOST,	   /* l ID T k=v... (seq=N) */
	AGENT_OUT_EVENT,   /* e ID T TEXT */
	AGENT_OUT_SUMMARY, /* sum ID k=v... */
	AGENT_OUT_DONE,	   /* done */
};

struct agent_kv {
	char key[AGENT_KEY_MAX];
	double val;
};

struct agent_out {
	enum agent_out_type type;
	char id[AGENT_ID_MAX];
	double t;     /* unix seconds */
	double value; /* sample value: Mbit/s for flows, ms for probes */
	int n_kv;
	struct agent_kv kv[AGENT_KV_MAX];
	char text[AGENT_LINE_MAX]; /* ok/err/event text */
};

/* Parses one line the agent printed. Returns 0, or -1 naming the line. */
int agent_parse_out(const char *line, struct agent_out *out,
		    struct al_err *err);

/* Looks up key in a parsed line; returns 1 and sets *val, or 0. */
int agent_out_get(const struct agent_out *out, const char *key, double *val);

#endif
