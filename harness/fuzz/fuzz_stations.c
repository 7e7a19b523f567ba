/* libFuzzer target: bytes as `airlab-guest stations` output (key=value
 * lines) through stations_parse for a fixed 3-station cell, then
 * stations_print. A parse either fails with one line of message, or yields
 * exactly one row per topology station, in its order and under its name,
 * where a station the text never names is still "not reported", an
 * address is a full MAC or "", and "associated" was said with "yes"; the
 * table has a header and one line per row. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cell/cell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char cell[] =
    "cell: f\n"
    "ap: {host: h, radio: r0, ssid: s, passphrase: 12345678, channel: 6}\n"
    "server: {host: h, link: veth}\n"
    "stations:\n"
    "  - {name: sta1, host: h, radio: r1, path: p1, base_loss_db: 1}\n"
    "  - {name: sta2, host: h, radio: r2, path: p2, base_loss_db: 1}\n"
    "  - {name: long-station-15, host: h, radio: r3, path: p3, "
    "base_loss_db: 0}\n";

/* Whether a "station=NAME" word appears anywhere in text (the end of the
 * text ends a word too: strchr finds the NUL). */
static int named(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; (p = strstr(p, "station=")); p++) {
		if (p != text && !strchr(" \t\n", p[-1]))
			continue;
		if (!strncmp(p + 8, name, n) && strchr(" \t\r\n", p[8 + n]))
			return 1;
	}
	return 0;
}

static void check_table(const struct station_row *rows, int n)
{
	char *buf = NULL;
	size_t len = 0;
	int lines = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	stations_print(f, rows, n);
	if (fclose(f) != 0)
		return;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	if (lines != n + 1 || (len && buf[len - 1] != '\n'))
		__builtin_trap();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topology t;
	static int loaded;
	static struct station_row rows[TOPO_MAX_STATIONS];
	struct al_err err;
	char *text = malloc(size + 1);
	int n;

	if (!text)
		return 0;
	if (!loaded) {
		if (topology_load_buf(&t, "f.yaml", cell, strlen(cell), NULL,
				      &err) < 0)
			__builtin_trap();
		loaded = 1;
	}
	memcpy(text, data, size);
	text[size] = 0;
	/* A table too small for the topology is refused, whatever the text. */
	if (stations_parse(&t, text, rows, t.nstations - 1, &err) >= 0)
		__builtin_trap();
	err.msg[0] = 0;
	n = stations_parse(&t, text, rows, TOPO_MAX_STATIONS, &err);
	if (n < 0) {
		if (n != -1 || !err.msg[0] || strchr(err.msg, '\n'))
			__builtin_trap();
		free(text);
		return 0;
	}
	if (n != t.nstations)
		__builtin_trap();
	for (int i = 0; i < n; i++) {
		const struct station_row *r = &rows[i];

		if (strcmp(r->name, t.stations[i].name) ||
		    strnlen(r->wpa_state, sizeof(r->wpa_state)) ==
			sizeof(r->wpa_state) ||
		    strnlen(r->bssid, sizeof(r->bssid)) == sizeof(r->bssid) ||
		    (r->addr[0] && strnlen(r->addr, sizeof(r->addr)) != 17))
			__builtin_trap();
		if (r->associated && !strstr(text, "associated=yes"))
			__builtin_trap();
		if (!named(text, r->name) &&
		    (r->associated || !isnan(r->assoc_s) ||
		     !isnan(r->signal_dbm) || !isnan(r->txrate_mbps) ||
		     strcmp(r->wpa_state, "NOT_REPORTED") || r->bssid[0] ||
		     r->addr[0]))
			__builtin_trap();
	}
	check_table(rows, n);
	free(text);
	return 0;
}
