/* libFuzzer target: bytes as a medium `stats` reply and as an AP station
 * dump, through both airtime parsers, for a fixed 3-station cell. A parse
 * either fails with one line naming a station or yields stations whose
 * figures are finite and not negative; shares then sum to 1. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../cell/airtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char cell[] =
    "cell: f\n"
    "ap: {host: h, radio: r0, ssid: s, passphrase: 12345678, channel: 6}\n"
    "server: {host: h, link: veth}\n"
    "stations:\n"
    "  - {name: sta1, host: h, radio: r1, path: p1, base_loss_db: 1}\n"
    "  - {name: sta2, host: h, radio: r2, path: p2, base_loss_db: 1}\n"
    "  - {name: sta3, host: h, radio: r3, path: p3, base_loss_db: 1}\n";

static const char addr[TOPO_MAX_STATIONS][18] = {
    "02:00:00:00:01:00", "02:00:00:00:02:00", "02:00:00:00:03:00"};

static void check(const struct airtime_snap *s, int rc, const char *msg)
{
	double share[TOPO_MAX_STATIONS], sum = 0;
	int have = 0;

	if (rc < 0) {
		if (!strstr(msg, "sta") || strchr(msg, '\n'))
			__builtin_trap();
		return;
	}
	for (int i = 0; i < s->n; i++) {
		if (!s->sta[i].have)
			continue;
		have++;
		if (!(s->sta[i].tx_us >= 0) || !(s->sta[i].rx_us >= 0) ||
		    !isfinite(s->sta[i].tx_us) || !isfinite(s->sta[i].rx_us))
			__builtin_trap();
	}
	if (have != rc)
		__builtin_trap();
	airtime_shares(s, share);
	for (int i = 0; i < s->n; i++)
		if (s->sta[i].have && isfinite(share[i]))
			sum += share[i];
	if (sum != 0 && fabs(sum - 1) > 1e-9)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topology t;
	static int loaded;
	struct airtime_snap s;
	struct al_err err;
	char msg[1100];
	char *text = malloc(size + 1);

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
	check(&s, airtime_from_medium(&t, text, &s, msg, sizeof(msg)), msg);
	check(&s,
	      airtime_from_station_dump(&t, addr, text, &s, msg, sizeof(msg)),
	      msg);
	free(text);
	return 0;
}
