#include "suites.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../agent/agent_proto.h"

/* Read from the suite files by suite_file.c. */

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
