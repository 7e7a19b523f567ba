#include "suites.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../agent/agent_proto.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the table ---------------------------------------------------------- */

static const struct suite_item ping_items[] = {
    {.kind = SUITE_ICMP, .scope = SUITE_ONE, .series = "Ping (ms) ICMP"},
    {.kind = SUITE_UDP_RTT, .scope = SUITE_ONE, .series = "Ping (ms) UDP"},
};

static const struct suite_item tcp_1up_items[] = {
    {.kind = SUITE_TCP_UP,
     .scope = SUITE_ONE,
     .series = "TCP upload",
     .bulk = 1},
    {.kind = SUITE_ICMP, .scope = SUITE_ONE, .series = "Ping (ms) ICMP"},
};

static const struct suite_item tcp_1down_items[] = {
    {.kind = SUITE_TCP_DOWN,
     .scope = SUITE_ONE,
     .series = "TCP download",
     .bulk = 1},
    {.kind = SUITE_ICMP, .scope = SUITE_ONE, .series = "Ping (ms) ICMP"},
};

static const struct suite_item tcp_nup_items[] = {
    {.kind = SUITE_TCP_UP,
     .scope = SUITE_N_SPREAD,
     .series = "TCP upload::%i",
     .bulk = 1},
    {.kind = SUITE_ICMP, .scope = SUITE_ONE, .series = "Ping (ms) ICMP"},
};

static const struct suite_item tcp_ndown_items[] = {
    {.kind = SUITE_TCP_DOWN,
     .scope = SUITE_N_SPREAD,
     .series = "TCP download::%i",
     .bulk = 1},
    {.kind = SUITE_ICMP, .scope = SUITE_ONE, .series = "Ping (ms) ICMP"},
};

static const struct suite_computed nup_computed[] = {
    {"TCP upload avg", "TCP upload::", FLENT_AVG, "Mbits/s"},
    {"TCP upload sum", "TCP upload::", FLENT_SUM, "Mbits/s"},
    {"TCP upload fairness", "TCP upload::", FLENT_FAIRNESS, "Idx"},
};

static const struct suite_computed ndown_computed[] = {
    {"TCP download avg", "TCP download::", FLENT_AVG, "Mbits/s"},
    {"TCP download sum", "TCP download::", FLENT_SUM, "Mbits/s"},
    {"TCP download fairness", "TCP download::", FLENT_FAIRNESS, "Idx"},
};

/* flent/tests/rrul.conf: four classes each way, three UDP probes marked
 * EF/BK/BE, and ICMP. RRUL_SET gives them from one station (rrul, as
 * Flent) or from every station, named "... STATION" (rrul_cell). */
#define RRUL_TCP(dir, k, cls, mark, sc, sfx)                                   \
	{                                                                      \
		.kind = k, .scope = sc, .series = "TCP " dir " " cls sfx,      \
		.marking = mark, .bulk = 1                                     \
	}
#define RRUL_SET(sc, sfx)                                                      \
	RRUL_TCP("upload", SUITE_TCP_UP, "BE", "CS0", sc, sfx),                \
	    RRUL_TCP("upload", SUITE_TCP_UP, "BK", "CS1", sc, sfx),            \
	    RRUL_TCP("upload", SUITE_TCP_UP, "CS5", "CS5", sc, sfx),           \
	    RRUL_TCP("upload", SUITE_TCP_UP, "EF", "EF", sc, sfx),             \
	    RRUL_TCP("download", SUITE_TCP_DOWN, "BE", "CS0", sc, sfx),        \
	    RRUL_TCP("download", SUITE_TCP_DOWN, "BK", "CS1", sc, sfx),        \
	    RRUL_TCP("download", SUITE_TCP_DOWN, "CS5", "CS5", sc, sfx),       \
	    RRUL_TCP("download", SUITE_TCP_DOWN, "EF", "EF", sc, sfx),         \
	    {.kind = SUITE_UDP_RTT,                                            \
	     .scope = sc,                                                      \
	     .series = "Ping (ms) UDP EF" sfx,                                 \
	     .marking = "EF"},                                                 \
	    {.kind = SUITE_UDP_RTT,                                            \
	     .scope = sc,                                                      \
	     .series = "Ping (ms) UDP BK" sfx,                                 \
	     .marking = "CS1"},                                                \
	    {.kind = SUITE_UDP_RTT,                                            \
	     .scope = sc,                                                      \
	     .series = "Ping (ms) UDP BE" sfx},                                \
	{                                                                      \
		.kind = SUITE_ICMP, .scope = sc,                               \
		.series = "Ping (ms) ICMP" sfx                                 \
	}
static const struct suite_item rrul_items[] = {RRUL_SET(SUITE_ONE, "")};
static const struct suite_item rrul_cell_items[] = {
    RRUL_SET(SUITE_EACH, " %h")};

/* flent/tests/rrul_be.conf: the same shape, all best effort. */
static const struct suite_item rrul_be_items[] = {
    RRUL_TCP("upload", SUITE_TCP_UP, "BE", "CS0", SUITE_ONE, ""),
    RRUL_TCP("upload", SUITE_TCP_UP, "BE2", "CS0", SUITE_ONE, ""),
    RRUL_TCP("upload", SUITE_TCP_UP, "BE3", "CS0", SUITE_ONE, ""),
    RRUL_TCP("upload", SUITE_TCP_UP, "BE4", "CS0", SUITE_ONE, ""),
    RRUL_TCP("download", SUITE_TCP_DOWN, "BE", "CS0", SUITE_ONE, ""),
    RRUL_TCP("download", SUITE_TCP_DOWN, "BE2", "CS0", SUITE_ONE, ""),
    RRUL_TCP("download", SUITE_TCP_DOWN, "BE3", "CS0", SUITE_ONE, ""),
    RRUL_TCP("download", SUITE_TCP_DOWN, "BE4", "CS0", SUITE_ONE, ""),
    {.kind = SUITE_UDP_RTT, .scope = SUITE_ONE, .series = "Ping (ms) UDP BE1"},
    {.kind = SUITE_UDP_RTT, .scope = SUITE_ONE, .series = "Ping (ms) UDP BE2"},
    {.kind = SUITE_UDP_RTT, .scope = SUITE_ONE, .series = "Ping (ms) UDP BE3"},
    {.kind = SUITE_ICMP, .scope = SUITE_ONE, .series = "Ping (ms) ICMP"},
};

/* rrul.conf's apply_to globs: "TCP upload*" minus avg/sum, "TCP*" minus
 * the four computed ones, "Ping (ms)*". */
static const struct suite_computed rrul_computed[] = {
    {"TCP upload avg", "TCP upload ", FLENT_AVG, "Mbits/s"},
    {"TCP upload sum", "TCP upload ", FLENT_SUM, "Mbits/s"},
    {"TCP download avg", "TCP download ", FLENT_AVG, "Mbits/s"},
    {"TCP download sum", "TCP download ", FLENT_SUM, "Mbits/s"},
    {"TCP totals", "TCP ", FLENT_SUM, "Mbits/s"},
    {"Ping (ms) avg", "Ping (ms)", FLENT_AVG, "ms"},
};

/* flent/tests/rtt_fair.conf + rtt_fair.inc: per host an up and a down flow
 * and an ICMP probe; markings CS0,CS0,CS1,CS1 and labels BE1,BE2,BK1,BK2. */
static const char *const rtt_fair_labels[] = {"BE1", "BE2", "BK1", "BK2"};
static const char *const rtt_fair_marks[] = {"CS0", "CS0", "CS1", "CS1"};
static const char *const rtt_fair_pings[] = {"ICMP1", "ICMP2", "ICMP3",
					     "ICMP4"};
static const struct suite_item rtt_fair_items[] = {
    {.kind = SUITE_TCP_UP,
     .scope = SUITE_EACH,
     .series = "TCP upload %l %h",
     .labels = rtt_fair_labels,
     .markings = rtt_fair_marks,
     .n_labels = N(rtt_fair_labels),
     .bulk = 1},
    {.kind = SUITE_TCP_DOWN,
     .scope = SUITE_EACH,
     .series = "TCP download %l %h",
     .labels = rtt_fair_labels,
     .markings = rtt_fair_marks,
     .n_labels = N(rtt_fair_labels),
     .bulk = 1},
    {.kind = SUITE_ICMP,
     .scope = SUITE_EACH,
     .series = "Ping (ms) %p %h",
     .ping_labels = rtt_fair_pings,
     .n_labels = N(rtt_fair_pings)},
};

static const struct suite_computed rtt_fair_computed[] = {
    {"TCP upload avg", "TCP upload ", FLENT_AVG, "Mbits/s"},
    {"TCP upload sum", "TCP upload ", FLENT_SUM, "Mbits/s"},
    {"TCP upload fairness", "TCP upload ", FLENT_FAIRNESS, "Idx"},
    {"TCP download avg", "TCP download ", FLENT_AVG, "Mbits/s"},
    {"TCP download sum", "TCP download ", FLENT_SUM, "Mbits/s"},
    {"TCP download fairness", "TCP download ", FLENT_FAIRNESS, "Idx"},
    {"Ping (ms) avg", "Ping (ms)", FLENT_AVG, "ms"},
};

/* All stations download at once: per-station goodput (and airtime, where
 * it is measured) in tcp_ndown's series names so Flent plots it. */
static const struct suite_item airtime_items[] = {
    {.kind = SUITE_TCP_DOWN,
     .scope = SUITE_EACH,
     .series = "TCP download::%i",
     .bulk = 1},
    {.kind = SUITE_ICMP, .scope = SUITE_ONE, .series = "Ping (ms) ICMP"},
};

static const struct suite suites[] = {
    {.name = "ping",
     .description = "idle latency: ICMP and UDP round trips, no load",
     .flent_name = "ping",
     .plot = "ping",
     .length_s = 60,
     .step_ms = 200,
     .items = ping_items,
     .n_items = N(ping_items)},
    {.name = "tcp_1up",
     .description = "one TCP upload with ICMP latency",
     .flent_name = "tcp_1up",
     .plot = "totals",
     .length_s = 60,
     .delay_s = 5,
     .step_ms = 200,
     .items = tcp_1up_items,
     .n_items = N(tcp_1up_items)},
    {.name = "tcp_1down",
     .description = "one TCP download with ICMP latency",
     .flent_name = "tcp_1down",
     .plot = "totals",
     .length_s = 60,
     .delay_s = 5,
     .step_ms = 200,
     .items = tcp_1down_items,
     .n_items = N(tcp_1down_items)},
    {.name = "tcp_nup",
     .description = "N TCP uploads (--streams) with ICMP latency",
     .flent_name = "tcp_nup",
     .plot = "totals",
     .length_s = 60,
     .delay_s = 5,
     .step_ms = 200,
     .streams = 4,
     .streams_param = "upload_streams",
     .flags = SUITE_FAIRNESS,
     .items = tcp_nup_items,
     .n_items = N(tcp_nup_items),
     .computed = nup_computed,
     .n_computed = N(nup_computed)},
    {.name = "tcp_ndown",
     .description = "N TCP downloads (--streams) with ICMP latency",
     .flent_name = "tcp_ndown",
     .plot = "totals",
     .length_s = 60,
     .delay_s = 5,
     .step_ms = 200,
     .streams = 4,
     .streams_param = "download_streams",
     .flags = SUITE_FAIRNESS,
     .items = tcp_ndown_items,
     .n_items = N(tcp_ndown_items),
     .computed = ndown_computed,
     .n_computed = N(ndown_computed)},
    {.name = "rrul",
     .description = "realtime response under load: 4 up + 4 down TCP "
		    "marked BE/BK/CS5/EF, UDP and ICMP latency",
     .flent_name = "rrul",
     .plot = "all_scaled",
     .length_s = 60,
     .delay_s = 5,
     .step_ms = 200,
     .items = rrul_items,
     .n_items = N(rrul_items),
     .computed = rrul_computed,
     .n_computed = N(rrul_computed)},
    {.name = "rrul_cell",
     .description = "rrul from every station at once: per station 4 up + "
		    "4 down TCP marked BE/BK/CS5/EF, UDP and ICMP latency",
     .flent_name = "rrul",
     .plot = "all_scaled",
     .length_s = 60,
     .delay_s = 5,
     .step_ms = 200,
     .items = rrul_cell_items,
     .n_items = N(rrul_cell_items),
     .computed = rrul_computed,
     .n_computed = N(rrul_computed)},
    {.name = "rrul_be",
     .description = "rrul with every flow and probe best effort",
     .flent_name = "rrul_be",
     .plot = "all_scaled",
     .length_s = 60,
     .delay_s = 5,
     .step_ms = 200,
     .items = rrul_be_items,
     .n_items = N(rrul_be_items),
     .computed = rrul_computed,
     .n_computed = N(rrul_computed)},
    {.name = "rtt_fair",
     .description = "one up+down TCP pair and one ICMP probe per station: "
		    "per-station latency, goodput and fairness",
     .flent_name = "rtt_fair",
     .plot = "all_scaled",
     .length_s = 60,
     .delay_s = 5,
     .step_ms = 200,
     .flags = SUITE_FAIRNESS,
     .items = rtt_fair_items,
     .n_items = N(rtt_fair_items),
     .computed = rtt_fair_computed,
     .n_computed = N(rtt_fair_computed)},
    {.name = "flows100",
     .description = "100 TCP downloads spread over the stations, started "
		    "together: flows going within 2 s, per-flow goodput, "
		    "Jain's index",
     .flent_name = "tcp_ndown",
     .plot = "totals",
     .length_s = 30,
     .delay_s = 5,
     .step_ms = 200,
     .streams = 100,
     .streams_param = "download_streams",
     .flags = SUITE_FAIRNESS | SUITE_STARTUP,
     .items = tcp_ndown_items,
     .n_items = N(tcp_ndown_items),
     .computed = ndown_computed,
     .n_computed = N(ndown_computed)},
    {.name = "airtime",
     .description = "every station downloads: per-station goodput, "
		    "airtime share and Jain's index",
     .flent_name = "tcp_ndown",
     .plot = "totals",
     .length_s = 60,
     .delay_s = 5,
     .step_ms = 200,
     .flags = SUITE_FAIRNESS,
     .items = airtime_items,
     .n_items = N(airtime_items),
     .computed = ndown_computed,
     .n_computed = N(ndown_computed)},
};

const struct suite *suite_list(size_t *n)
{
	*n = N(suites);
	return suites;
}

const struct suite *suite_find(const char *name, struct al_err *err)
{
	char known[512] = "";
	size_t off = 0;

	for (size_t i = 0; i < N(suites); i++)
		if (name && !strcmp(name, suites[i].name))
			return &suites[i];
	for (size_t i = 0; i < N(suites) && off < sizeof(known); i++)
		off += (size_t)snprintf(known + off, sizeof(known) - off,
					"%s%s", i ? ", " : "", suites[i].name);
	al_errf(err, "unknown suite '%s' (known: %s)", name ? name : "", known);
	return NULL;
}

const char *suite_kind_name(enum suite_kind kind)
{
	switch (kind) {
	case SUITE_TCP_UP:
		return "tcp-up";
	case SUITE_TCP_DOWN:
		return "tcp-down";
	case SUITE_UDP_RTT:
		return "udp";
	case SUITE_ICMP:
		return "icmp";
	}
	return "?";
}

/* ---- expansion ---------------------------------------------------------- */

static int expand_name(const struct suite_item *it, unsigned copy,
		       const char *host, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = it->series; *p; p++) {
		char num[16];
		const char *ins = NULL;

		if (*p != '%' || !p[1]) {
			if (o + 1 >= len)
				return -1;
			out[o++] = *p;
			continue;
		}
		p++;
		switch (*p) {
		case 'i':
			snprintf(num, sizeof(num), "%u", copy + 1);
			ins = num;
			break;
		case 'h':
			ins = host;
			break;
		case 'l':
			ins =
			    it->labels ? it->labels[copy % it->n_labels] : "BE";
			break;
		case 'p':
			ins = it->ping_labels
				  ? it->ping_labels[copy % it->n_labels]
				  : "ICMP";
			break;
		default:
			ins = "%";
			break;
		}
		if (o + strlen(ins) >= len)
			return -1;
		memcpy(out + o, ins, strlen(ins));
		o += strlen(ins);
	}
	out[o] = '\0';
	return 0;
}

static const char *id_prefix(enum suite_kind k)
{
	return k == SUITE_TCP_UP     ? "up"
	       : k == SUITE_TCP_DOWN ? "down"
	       : k == SUITE_UDP_RTT  ? "udp"
				     : "icmp";
}

/* The congestion controls Linux has (net/ipv4/tcp_*.c): a typo is
 * refused here, before the lab is touched; whether the DUT's kernel has
 * the module loaded is for the run to find. */
#define LINUX_CCS                                                              \
	"bbr, bic, cdg, cubic, dctcp, highspeed, htcp, hybla, illinois, lp, "  \
	"nv, reno, scalable, vegas, veno, westwood, yeah"

static bool linux_cc_known(const char *cc)
{
	static const char all[] = LINUX_CCS;
	size_t n = strlen(cc);

	for (const char *p = all; n && (p = strstr(p, cc)); p += n)
		if ((p == all || p[-1] == ' ') && (p[n] == ',' || p[n] == 0))
			return true;
	return false;
}

int suite_expand(const struct suite *s, const struct suite_params *p,
		 struct suite_plan *plan, struct al_err *err)
{
	size_t cap = 0;

	memset(plan, 0, sizeof(*plan));
	plan->suite = s;
	plan->length_s = p->length_s ? p->length_s : s->length_s;
	plan->step_s = p->step_s ? p->step_s : s->step_ms / 1000.0;
	plan->streams = p->streams ? p->streams : s->streams;
	plan->delay_s = s->delay_s;
	plan->stations = p->stations;
	plan->n_stations = p->n_stations;
	if (p->cc && !linux_cc_known(p->cc))
		return al_err_input(err,
				    "suite %s: --cc '%s' is not a Linux TCP "
				    "congestion control (%s)",
				    s->name, p->cc, LINUX_CCS);
	if (p->cc)
		strcpy(plan->cc, p->cc);
	if (!isfinite(plan->length_s) || plan->length_s < 1 ||
	    plan->length_s > 86400)
		return al_errf(err,
			       "suite %s: --length %g s is not in 1..86400",
			       s->name, p->length_s);
	if (!isfinite(plan->step_s) || plan->step_s < 0.01 ||
	    plan->step_s > 60 || plan->step_s > plan->length_s)
		return al_errf(err,
			       "suite %s: --step %g s is not in 0.01..60 s "
			       "and at most the length",
			       s->name, plan->step_s);
	if (p->streams && !s->streams)
		return al_errf(err, "suite %s: takes no --streams", s->name);
	if (s->streams && (plan->streams < 1 || plan->streams > 1024))
		return al_errf(err, "suite %s: --streams %u is not in 1..1024",
			       s->name, plan->streams);
	if (!p->stations || p->n_stations == 0)
		return al_errf(err, "suite %s: the cell has no stations",
			       s->name);
	for (size_t i = 0; i < p->n_stations; i++) {
		if (!p->stations[i] || !p->stations[i][0])
			return al_errf(err, "suite %s: station %zu has no name",
				       s->name, i);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(p->stations[i], p->stations[j]))
				return al_errf(err,
					       "suite %s: station '%s' is "
					       "listed twice",
					       s->name, p->stations[i]);
	}
	plan->total_s = plan->length_s + 2 * plan->delay_s;

	for (size_t i = 0; i < s->n_items; i++) {
		const struct suite_item *it = &s->items[i];
		size_t copies = it->scope == SUITE_ONE	  ? 1
				: it->scope == SUITE_EACH ? p->n_stations
							  : plan->streams;

		for (size_t c = 0; c < copies; c++) {
			struct suite_flow *f;
			size_t st =
			    it->scope == SUITE_ONE ? 0 : c % p->n_stations;
			const char *mark = it->markings
					       ? it->markings[c % it->n_labels]
					   : it->marking ? it->marking
							 : "CS0";

			if (plan->n_flows == cap) {
				size_t nc = cap ? cap * 2 : 32;
				struct suite_flow *nf =
				    realloc(plan->flows, nc * sizeof(*nf));

				if (!nf) {
					suite_plan_free(plan);
					return al_errf(
					    err, "suite %s: out of memory",
					    s->name);
				}
				plan->flows = nf;
				cap = nc;
			}
			f = &plan->flows[plan->n_flows];
			memset(f, 0, sizeof(*f));
			f->kind = it->kind;
			f->station = st;
			if (expand_name(it, (unsigned)c, p->stations[st],
					f->series, sizeof(f->series))) {
				suite_plan_free(plan);
				return al_errf(err,
					       "suite %s: series name for "
					       "station '%s' is too long",
					       s->name, p->stations[st]);
			}
			snprintf(f->id, sizeof(f->id), "%s%zu",
				 id_prefix(it->kind), plan->n_flows);
			snprintf(f->marking, sizeof(f->marking), "%s", mark);
			f->tos = agent_dscp_tos(mark);
			if (it->bulk) {
				f->delay_s = plan->delay_s;
				f->length_s = plan->length_s;
			}
			if (it->kind == SUITE_ICMP)
				f->interval_ms =
				    it->interval_ms
					? it->interval_ms
					: (unsigned)lround(plan->step_s * 1000);
			else if (it->kind == SUITE_UDP_RTT)
				f->interval_ms =
				    it->interval_ms ? it->interval_ms : 5;
			plan->n_flows++;
		}
	}
	/* Names must be unique: they are the keys of the result file. */
	for (size_t i = 0; i < plan->n_flows; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(plan->flows[i].series,
				    plan->flows[j].series)) {
				char name[SUITE_SERIES_MAX];

				snprintf(name, sizeof(name), "%s",
					 plan->flows[i].series);
				suite_plan_free(plan);
				return al_errf(err,
					       "suite %s: series '%s' twice",
					       s->name, name);
			}
	return 0;
}

void suite_plan_free(struct suite_plan *plan)
{
	free(plan->flows);
	plan->flows = NULL;
	plan->n_flows = 0;
}

int suite_flow_command(const struct suite_plan *plan, size_t i,
		       const char *server_addr, unsigned tcp_port,
		       unsigned udp_port, const char *dev, char *buf,
		       size_t len)
{
	const struct suite_flow *f = &plan->flows[i];
	char timing[64] = "", cc[32] = "";
	int n;
	size_t used;

	if (plan->cc[0])
		snprintf(cc, sizeof(cc), " cc=%s", plan->cc);

	if (f->delay_s > 0 || f->length_s > 0)
		snprintf(timing, sizeof(timing), " delay_ms=%ld length_ms=%ld",
			 lround(f->delay_s * 1000), lround(f->length_s * 1000));
	switch (f->kind) {
	case SUITE_TCP_UP:
	case SUITE_TCP_DOWN:
		n = snprintf(buf, len, "flow %s %s %s %u tos=%d%s%s",
			     f->kind == SUITE_TCP_UP ? "tcp-up" : "tcp-down",
			     f->id, server_addr, tcp_port, f->tos, cc, timing);
		break;
	case SUITE_UDP_RTT:
		n = snprintf(buf, len,
			     "probe udp %s %s %u tos=%d interval_ms=%u%s",
			     f->id, server_addr, udp_port, f->tos,
			     f->interval_ms, timing);
		break;
	default:
		n = snprintf(buf, len,
			     "probe icmp %s %s tos=%d interval_ms=%u%s", f->id,
			     server_addr, f->tos, f->interval_ms, timing);
		break;
	}
	if (n < 0 || (size_t)n >= len)
		return -1;
	if (!dev || !*dev)
		return 0;
	used = (size_t)n;
	n = snprintf(buf + used, len - used, " dev=%s", dev);
	return n < 0 || (size_t)n >= len - used ? -1 : 0;
}
