/* The DUT reports stations as key=value lines (harness/guest); this turns
 * them into rows and a table. */
#include "cell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double parse_num(const char *v)
{
	char *end;
	double d;

	if (!v || !*v || strcmp(v, "-") == 0)
		return NAN;
	d = strtod(v, &end);
	return *end ? NAN : d;
}

/* Finds "key=" in a whitespace-separated line; copies its value. */
static int field(const char *line, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = line;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			const char *v = p + klen + 1;
			size_t n = strcspn(v, " \t\r\n");
			if (n >= len)
				n = len - 1;
			memcpy(out, v, n);
			out[n] = 0;
			return 0;
		}
		p += strcspn(p, " \t");
	}
	return -1;
}

static void row_init(struct station_row *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->assoc_s = r->signal_dbm = r->txrate_mbps = NAN;
	snprintf(r->wpa_state, sizeof(r->wpa_state), "NOT_REPORTED");
}

int stations_parse(const struct topology *t, const char *text,
		   struct station_row *rows, int max, struct al_err *err)
{
	int n = 0;

	if (t->nstations > max)
		return al_errf(err, "%d stations exceed the table of %d",
			       t->nstations, max);
	for (int i = 0; i < t->nstations; i++)
		row_init(&rows[n++], t->stations[i].name);

	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t llen = eol ? (size_t)(eol - line) : strlen(line);
		char l[1024], name[32], v[64];
		struct station_row *r = NULL;

		if (llen >= sizeof(l))
			llen = sizeof(l) - 1;
		memcpy(l, line, llen);
		l[llen] = 0;
		line = eol ? eol + 1 : NULL;
		if (!l[0])
			continue;
		if (field(l, "station", name, sizeof(name)) < 0)
			return al_errf(err,
				       "DUT station report: no station= "
				       "in line '%s'",
				       l);
		for (int i = 0; i < n; i++)
			if (strcmp(rows[i].name, name) == 0)
				r = &rows[i];
		if (!r)
			return al_errf(err,
				       "DUT reports station '%s' which "
				       "is not in %s",
				       name, t->path);
		if (field(l, "associated", v, sizeof(v)) == 0)
			r->associated = strcmp(v, "yes") == 0;
		if (field(l, "assoc_s", v, sizeof(v)) == 0)
			r->assoc_s = parse_num(v);
		if (field(l, "signal_dbm", v, sizeof(v)) == 0)
			r->signal_dbm = parse_num(v);
		if (field(l, "txrate_mbps", v, sizeof(v)) == 0)
			r->txrate_mbps = parse_num(v);
		field(l, "wpa_state", r->wpa_state, sizeof(r->wpa_state));
		field(l, "bssid", r->bssid, sizeof(r->bssid));
		if (field(l, "addr", r->addr, sizeof(r->addr)) == 0 &&
		    strlen(r->addr) != 17)
			r->addr[0] = 0;
	}
	return n;
}

static void put_num(FILE *f, double v, int width, const char *fmt)
{
	if (isnan(v))
		fprintf(f, "%*s", width, "-");
	else
		fprintf(f, fmt, width, v);
}

void stations_print(FILE *f, const struct station_row *rows, int n)
{
	fprintf(f, "%-15s %-10s %9s %11s %12s  %s\n", "station", "associated",
		"assoc_s", "signal_dBm", "txrate_Mb/s", "state");
	for (int i = 0; i < n; i++) {
		const struct station_row *r = &rows[i];
		fprintf(f, "%-15s %-10s ", r->name,
			r->associated ? "yes" : "no");
		put_num(f, r->assoc_s, 9, "%*.2f");
		fputc(' ', f);
		put_num(f, r->signal_dbm, 11, "%*.0f");
		fputc(' ', f);
		put_num(f, r->txrate_mbps, 12, "%*.1f");
		fprintf(f, "  %s\n", r->wpa_state);
	}
}
