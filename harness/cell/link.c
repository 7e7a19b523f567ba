#include "link.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int link_dump_station(const struct topology *t, const char (*addr)[18],
		      const char *s, size_t len)
{
	if (len < 8 + 17 || strncmp(s, "Station ", 8))
		return -1;
	for (int i = 0; i < t->nstations; i++)
		if (addr[i][0] && !strncasecmp(s + 8, addr[i], 17))
			return i;
	return -1;
}

enum field_kind { COUNT, DBM, MBPS, EXPECTED };
struct field {
	const char *key; /* up to and with the ':' */
	enum field_kind kind;
	size_t off; /* of the double in struct link_sta */
};

#define F(key, kind, member)                                                   \
	{                                                                      \
		key, kind, offsetof(struct link_sta, member)                   \
	}
static const struct field fields[] = {
    F("rx bytes:", COUNT, rx_bytes),
    F("tx bytes:", COUNT, tx_bytes),
    F("rx packets:", COUNT, rx_packets),
    F("tx packets:", COUNT, tx_packets),
    F("tx retries:", COUNT, tx_retries),
    F("tx failed:", COUNT, tx_failed),
    F("signal:", DBM, signal_dbm),
    F("tx bitrate:", MBPS, tx_bitrate_mbps),
    F("rx bitrate:", MBPS, rx_bitrate_mbps),
    F("expected throughput:", EXPECTED, expected_mbps),
};
#undef F

/* The value of one field at s (past the key and blanks); *end past the
 * figure. -1 when it is not the kind's figure. */
static int field_value(enum field_kind kind, const char *s, const char **end,
		       double *out)
{
	char *e;

	errno = 0;
	if (kind == COUNT) {
		unsigned long long v;

		if (!isdigit((unsigned char)*s))
			return -1;
		v = strtoull(s, &e, 10);
		*out = (double)v;
	} else {
		*out = strtod(s, &e);
		if (e == s || !isfinite(*out))
			return -1;
	}
	if (errno)
		return -1;
	if (kind == DBM) {
		/* "-52 dBm" or "-52 [-52, -54] dBm" (per chain). */
		if (*e != ' ' && *e != '\t')
			return -1;
	} else if (kind == MBPS) {
		while (*e == ' ')
			e++;
		if (strncmp(e, "MBit/s", 6))
			return -1;
		e += 6;
	} else if (kind == EXPECTED) {
		/* "10.162Mbps": rate control's estimate, in iw's own unit. */
		if (strncmp(e, "Mbps", 4))
			return -1;
		e += 4;
	} else if (*e && *e != '\n' && *e != ' ' && *e != '\t') {
		return -1;
	}
	*end = e;
	return 0;
}

/* One line of a station's block [s, s+len) into l; -1 when a field it
 * knows is malformed (msg quotes the line). */
static int field_line(const char *s, size_t len, struct link_sta *l,
		      const char *who, char *msg, size_t msglen)
{
	const char *p = s;

	while (*p == ' ' || *p == '\t')
		p++;
	for (size_t f = 0; f < sizeof(fields) / sizeof(*fields); f++) {
		size_t klen = strlen(fields[f].key);
		const char *v = p + klen, *end;
		/* off is offsetof a double member of struct link_sta. */
		// cppcheck-suppress invalidPointerCast
		double *dst = (double *)((char *)l + fields[f].off);

		if (strncmp(p, fields[f].key, klen))
			continue;
		while (*v == ' ' || *v == '\t')
			v++;
		if (field_value(fields[f].kind, v, &end, dst) < 0) {
			snprintf(msg, msglen,
				 "station dump: %s: malformed '%.*s'", who,
				 (int)(len > 200 ? 200 : len), s);
			return -1;
		}
		if (dst == &l->tx_bitrate_mbps) {
			while (*end == ' ')
				end++;
			snprintf(l->tx_rate, sizeof(l->tx_rate), "%.*s",
				 (int)strcspn(end, "\n"), end);
		}
		return 0;
	}
	return 0;
}

static void sta_init(struct link_sta *l)
{
	memset(l, 0, sizeof(*l));
	l->signal_dbm = l->tx_bitrate_mbps = l->rx_bitrate_mbps = NAN;
	l->expected_mbps = NAN;
}

int link_from_station_dump(const struct topology *t, const char (*addr)[18],
			   const char *text, struct link_snap *out, char *msg,
			   size_t msglen)
{
	int cur = -1, found = 0;

	memset(out, 0, sizeof(*out));
	out->n = t->nstations;
	for (int i = 0; i < t->nstations; i++)
		sta_init(&out->sta[i]);
	for (const char *s = text; *s;) {
		size_t len = strcspn(s, "\n");

		if (!strncmp(s, "Station ", 8)) {
			cur = link_dump_station(t, addr, s, len);
			if (cur >= 0 && !out->sta[cur].have) {
				out->sta[cur].have = true;
				found++;
			}
		} else if (cur >= 0 &&
			   field_line(s, len, &out->sta[cur],
				      t->stations[cur].name, msg, msglen) < 0) {
			return -1;
		}
		s += len + (s[len] == '\n');
	}
	return found;
}

int link_from_own_dump(const char *text, const char *who, struct link_sta *l,
		       char *msg, size_t msglen)
{
	bool in_first = false;

	sta_init(l);
	for (const char *s = text; *s;) {
		size_t len = strcspn(s, "\n");

		if (!strncmp(s, "Station ", 8)) {
			if (l->have)
				break;
			l->have = in_first = true;
		} else if (in_first &&
			   field_line(s, len, l, who, msg, msglen) < 0) {
			return -1;
		}
		s += len + (s[len] == '\n');
	}
	return 0;
}

void link_delta(const struct link_snap *before, const struct link_snap *after,
		struct link_snap *out)
{
	memset(out, 0, sizeof(*out));
	out->n = after->n;
	for (int i = 0; i < after->n; i++) {
		const struct link_sta *a = &before->sta[i], *b = &after->sta[i];
		struct link_sta *d = &out->sta[i];

		*d = *b;
		d->have = false;
		if (i >= before->n || !a->have || !b->have ||
		    b->tx_bytes < a->tx_bytes || b->rx_bytes < a->rx_bytes ||
		    b->tx_retries < a->tx_retries ||
		    b->tx_failed < a->tx_failed)
			continue;
		d->have = true;
		d->tx_bytes = b->tx_bytes - a->tx_bytes;
		d->rx_bytes = b->rx_bytes - a->rx_bytes;
		d->tx_packets = b->tx_packets - a->tx_packets;
		d->rx_packets = b->rx_packets - a->rx_packets;
		d->tx_retries = b->tx_retries - a->tx_retries;
		d->tx_failed = b->tx_failed - a->tx_failed;
	}
}

double link_rate_mbps(const struct link_sta *l, double airtime_us)
{
	double bytes = l->tx_bytes + l->rx_bytes;

	if (!l->have || !(airtime_us > 0) || !(bytes > 0))
		return NAN;
	return bytes * 8 / airtime_us; /* bits per microsecond = Mb/s */
}
