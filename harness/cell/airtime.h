/* Per-station airtime over a run, from two sources:
 *  - the AP's nl80211 station info (`iw dev IF station dump`: "tx
 *    duration", "rx duration"), where the driver reports it;
 *  - on the virtual lab, airlab-medium's own counters (`stats`), which
 *    count every attempt, preamble and ACK.
 * A snapshot is taken before and after the load; the run reports the
 * difference. tx is what the station sent (uplink), rx what the AP sent
 * to it (downlink). */
#ifndef AIRLAB_CELL_AIRTIME_H
#define AIRLAB_CELL_AIRTIME_H

#include <stdbool.h>

#include "../lab/topology.h"
#include "link.h"

struct airtime_sta {
	bool have; /* the source reported this station */
	double tx_us, rx_us;
};

/* Indexed like the topology's stations. */
struct airtime_snap {
	int n;
	struct airtime_sta sta[TOPO_MAX_STATIONS];
	/* The medium's channel (first channel line of `stats`): medium
	 * time elapsed and busy since its last reset, and how many times
	 * slower than the host's clock it runs; chan_have false when the
	 * source has no such line (nl80211). */
	bool chan_have;
	double chan_elapsed_us, chan_busy_us, time_scale;
};

/* From an airlab-medium `stats` reply: "radio K name=NAME ...
 * tx_airtime_us=N ... rx_airtime_us=N". Returns how many topology
 * stations it found; -1 when a station's line lacks a counter or has a
 * bad number (msg says which). */
int airtime_from_medium(const struct topology *t, const char *reply,
			struct airtime_snap *out, char *msg, size_t msglen);

/* From the AP's station dump; addr[i] is station i's MAC ("" unknown,
 * any case). The AP's "tx duration" to a station is that station's rx.
 * Returns how many stations had both counters; -1 on a malformed
 * duration (msg says which). */
int airtime_from_station_dump(const struct topology *t, const char (*addr)[18],
			      const char *text, struct airtime_snap *out,
			      char *msg, size_t msglen);

/* after - before; a station missing from either, or whose counters went
 * backwards (a reset, a reassociation), is left out (have = false). */
void airtime_delta(const struct airtime_snap *before,
		   const struct airtime_snap *after, struct airtime_snap *out);

/* share[i] = (tx + rx) of station i over the sum of all stations that
 * have figures (NaN for the others); returns Jain's index over those
 * shares, NaN when fewer than one station has airtime. */
double airtime_shares(const struct airtime_snap *d, double *share);

/* Both snapshots of a running cell: medium from the lab's `driver: medium`
 * attenuator (when it has one), nl from the station dump of every AP-mode
 * interface on the AP host (and link from that dump). A source that cannot be
 * read is marked (n = 0) and its reason put in why_*; neither fails the caller.
 */
struct dut;
struct cell;
struct station_row;
struct airtime_both {
	struct airtime_snap medium, nl;
	struct link_snap link; /* from the same station dump as nl */
	char why_medium[1100], why_nl[1100];
};
void airtime_snapshot(struct dut *d, const struct cell *c,
		      const struct station_row *rows, int nrows,
		      struct airtime_both *out);
/* Only the medium's counters (one command to the DUT): out->medium. */
void airtime_snapshot_medium(const struct cell *c, struct airtime_both *out);

#endif
