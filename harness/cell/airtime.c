#include "airtime.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/stats.h"
#include "../drivers/atten/medium.h"
#include "../medium/ctrl.h"
#include "atten.h"
#include "cell.h"
#include "dut.h"
#include "link.h"

/* A whole unsigned decimal at s, up to a space or the end of the line;
 * *end past it. -1 for anything else. */
static int parse_count(const char *s, const char **end, double *out)
{
	char *e;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno || (*e && *e != ' ' && *e != '\n' && *e != '\t'))
		return -1;
	*out = (double)v;
	if (end)
		*end = e;
	return 0;
}

static int station_index(const struct topology *t, const char *name, size_t len)
{
	for (int i = 0; i < t->nstations; i++)
		if (strlen(t->stations[i].name) == len &&
		    !strncmp(t->stations[i].name, name, len))
			return i;
	return -1;
}

int airtime_from_medium(const struct topology *t, const char *reply,
			struct airtime_snap *out, char *msg, size_t msglen)
{
	int found = 0;

	memset(out, 0, sizeof(*out));
	out->n = t->nstations;
	for (const char *s = reply; *s;) {
		size_t len = strcspn(s, "\n");
		const char *name = strncmp(s, "radio ", 6)
				       ? NULL
				       : med_reply_field(s, len, "name", NULL);
		int i =
		    name ? station_index(t, name, strcspn(name, " \n")) : -1;

		if (!out->chan_have && !strncmp(s, "medium ", 7)) {
			const char *el =
			    med_reply_field(s, len, "elapsed_us", NULL);
			const char *bu =
			    med_reply_field(s, len, "busy_us", NULL);
			const char *ts =
			    med_reply_field(s, len, "time_scale", NULL);

			out->chan_have =
			    el && bu &&
			    !parse_count(el, NULL, &out->chan_elapsed_us) &&
			    !parse_count(bu, NULL, &out->chan_busy_us);
			/* A medium from before -T runs at the host's pace. */
			out->time_scale = ts ? atof(ts) : 1;
			if (!(out->time_scale >= 1))
				out->time_scale = 1;
		}
		if (i >= 0) {
			struct airtime_sta *a = &out->sta[i];
			const char *tx =
			    med_reply_field(s, len, "tx_airtime_us", NULL);
			const char *rx =
			    med_reply_field(s, len, "rx_airtime_us", NULL);

			if (!tx || !rx || parse_count(tx, NULL, &a->tx_us) ||
			    parse_count(rx, NULL, &a->rx_us)) {
				snprintf(msg, msglen,
					 "medium stats: station %s: no valid "
					 "tx_airtime_us/rx_airtime_us in "
					 "'%.*s'",
					 t->stations[i].name,
					 (int)(len > 200 ? 200 : len), s);
				return -1;
			}
			if (!a->have)
				found++;
			a->have = true;
		}
		s += len + (s[len] == '\n');
	}
	return found;
}

/* "<ws>KEY:<ws>N us" -> N, for the duration lines of a station dump.
 * 0 found, 1 not this key, -1 malformed. */
static int duration_line(const char *s, size_t len, const char *key,
			 double *out)
{
	size_t klen = strlen(key);
	const char *e;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	if (len < klen || strncmp(s, key, klen))
		return 1;
	s += klen;
	while (*s == ' ' || *s == '\t')
		s++;
	if (parse_count(s, &e, out) < 0)
		return -1;
	while (*e == ' ')
		e++;
	return strncmp(e, "us", 2) ? -1 : 0;
}

int airtime_from_station_dump(const struct topology *t, const char (*addr)[18],
			      const char *text, struct airtime_snap *out,
			      char *msg, size_t msglen)
{
	bool have_tx[TOPO_MAX_STATIONS] = {0}, have_rx[TOPO_MAX_STATIONS] = {0};
	int cur = -1, found = 0;

	memset(out, 0, sizeof(*out));
	out->n = t->nstations;
	for (const char *s = text; *s;) {
		size_t len = strcspn(s, "\n");

		if (!strncmp(s, "Station ", 8)) {
			cur = link_dump_station(t, addr, s, len);
		} else if (cur >= 0) {
			struct airtime_sta *a = &out->sta[cur];
			int r =
			    duration_line(s, len, "tx duration:", &a->rx_us);

			if (r == 0)
				have_tx[cur] = true;
			else if (r == 1 &&
				 (r = duration_line(
				      s, len, "rx duration:", &a->tx_us)) == 0)
				have_rx[cur] = true;
			if (r < 0) {
				snprintf(msg, msglen,
					 "station dump: %s: malformed '%.*s'",
					 t->stations[cur].name,
					 (int)(len > 200 ? 200 : len), s);
				return -1;
			}
		}
		s += len + (s[len] == '\n');
	}
	for (int i = 0; i < t->nstations; i++)
		if ((out->sta[i].have = have_tx[i] && have_rx[i]))
			found++;
	return found;
}

void airtime_delta(const struct airtime_snap *before,
		   const struct airtime_snap *after, struct airtime_snap *out)
{
	memset(out, 0, sizeof(*out));
	out->n = after->n;
	/* A reset between the two reads leaves no channel figure. */
	out->chan_have = before->chan_have && after->chan_have &&
			 after->chan_elapsed_us > before->chan_elapsed_us &&
			 after->chan_busy_us >= before->chan_busy_us;
	out->chan_elapsed_us = after->chan_elapsed_us - before->chan_elapsed_us;
	out->chan_busy_us = after->chan_busy_us - before->chan_busy_us;
	out->time_scale = after->time_scale;
	for (int i = 0; i < after->n; i++) {
		const struct airtime_sta *a = &before->sta[i],
					 *b = &after->sta[i];

		if (i >= before->n || !a->have || !b->have ||
		    b->tx_us < a->tx_us || b->rx_us < a->rx_us)
			continue;
		out->sta[i].have = true;
		out->sta[i].tx_us = b->tx_us - a->tx_us;
		out->sta[i].rx_us = b->rx_us - a->rx_us;
	}
}

double airtime_shares(const struct airtime_snap *d, double *share)
{
	double sum = 0, v[TOPO_MAX_STATIONS];
	size_t n = 0;

	for (int i = 0; i < d->n; i++)
		if (d->sta[i].have)
			sum += d->sta[i].tx_us + d->sta[i].rx_us;
	for (int i = 0; i < d->n; i++) {
		share[i] = NAN;
		if (!d->sta[i].have || sum <= 0)
			continue;
		share[i] = (d->sta[i].tx_us + d->sta[i].rx_us) / sum;
		v[n++] = share[i];
	}
	return stats_jain(v, n);
}

/* ---- reading the sources on a running cell -------------------------- */

void airtime_snapshot_medium(const struct cell *c, struct airtime_both *o)
{
	const struct lab_atten *a =
	    atten_find_driver(&c->lab, atten_medium_ops.name);
	struct atten_handle h;
	struct al_err err;
	char *reply = NULL;

	o->medium.n = 0;
	if (!a) {
		snprintf(o->why_medium, sizeof(o->why_medium),
			 "the lab has no 'driver: medium' attenuator");
		return;
	}
	if (atten_open(&h, &c->lab, a, &err) < 0 ||
	    medium_ctrl(h.dev, "stats", &reply, &err) < 0)
		snprintf(o->why_medium, sizeof(o->why_medium), "%s", err.msg);
	else if (airtime_from_medium(&c->topo, reply, &o->medium, o->why_medium,
				     sizeof(o->why_medium)) < 0)
		o->medium.n = 0;
	free(reply);
	atten_close(&h);
}

/* Every AP-mode interface's station dump ("iw dev" lists them). */
#define AP_DUMP                                                                \
	"for i in $(iw dev | awk '$1 == \"Interface\" { i = $2 } "             \
	"$1 == \"type\" && $2 == \"AP\" { print i }'); do "                    \
	"iw dev \"$i\" station dump; done"

static void snap_nl(struct dut *d, const struct cell *c,
		    const struct station_row *rows, int nrows,
		    struct airtime_both *o)
{
	char addr[TOPO_MAX_STATIONS][18]; /* 2.3 kB */
	struct al_err err;
	char *text = NULL;
	int status, found;

	o->nl.n = o->link.n = 0;
	for (int i = 0; i < c->topo.nstations; i++) {
		addr[i][0] = 0;
		for (int r = 0; r < nrows; r++)
			if (!strcmp(rows[r].name, c->topo.stations[i].name))
				memcpy(addr[i], rows[r].addr, 18);
	}
	if (dut_run_capture(d, AP_DUMP, &text, &status, 20, &err) < 0)
		snprintf(o->why_nl, sizeof(o->why_nl), "%s", err.msg);
	else if (status != 0)
		snprintf(o->why_nl, sizeof(o->why_nl),
			 "%s: iw station dump exited %d", c->ap_host->name,
			 status);
	else if (link_from_station_dump(&c->topo, addr, text, &o->link,
					o->why_nl, sizeof(o->why_nl)) < 0 ||
		 (found = airtime_from_station_dump(&c->topo, addr, text,
						    &o->nl, o->why_nl,
						    sizeof(o->why_nl))) < 0)
		o->nl.n = o->link.n = 0;
	else if (found == 0)
		snprintf(o->why_nl, sizeof(o->why_nl),
			 "%s: no station with tx/rx duration in the AP's "
			 "station dump (the driver does not report airtime)",
			 c->ap_host->name);
	free(text);
}

void airtime_snapshot(struct dut *d, const struct cell *c,
		      const struct station_row *rows, int nrows,
		      struct airtime_both *out)
{
	out->why_medium[0] = out->why_nl[0] = 0;
	airtime_snapshot_medium(c, out);
	snap_nl(d, c, rows, nrows, out);
}
