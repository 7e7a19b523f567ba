/* The AP's view of each station's link, from `iw dev IF station dump`:
 * bytes, retries and failures (counters, read before and after a load)
 * and signal and bitrates (the last frame's, read when asked). A sweep
 * records them per step; a run keeps them in run.json's "link". */
#ifndef AIRLAB_CELL_LINK_H
#define AIRLAB_CELL_LINK_H

#include <stdbool.h>

#include "../lab/topology.h"

struct link_sta {
	bool have; /* the AP's dump lists this station */
	/* Counters; tx is what the AP sent to the station (downlink). */
	double tx_bytes, rx_bytes, tx_packets, rx_packets;
	double tx_retries, tx_failed;
	/* The last frame's; NaN when the dump has no such line. */
	double signal_dbm, tx_bitrate_mbps, rx_bitrate_mbps;
	/* Rate control's own estimate of the throughput it can give
	 * (minstrel's "expected throughput"); NaN where the driver has none. */
	double expected_mbps;
	char tx_rate[48]; /* the rate line after the figure: "MCS 7 short GI" */
};

/* Indexed like the topology's stations. */
struct link_snap {
	int n;
	struct link_sta sta[TOPO_MAX_STATIONS];
};

/* The topology station a station dump's "Station MAC (on IF)" line [s,
 * s+len) starts, or -1 (another line, an unknown MAC). */
int link_dump_station(const struct topology *t, const char (*addr)[18],
		      const char *s, size_t len);

/* From the AP's station dump; addr[i] is station i's MAC ("" unknown, any
 * case). Returns how many stations the dump lists; -1 when a line it
 * reads is malformed (msg quotes it). */
int link_from_station_dump(const struct topology *t, const char (*addr)[18],
			   const char *text, struct link_snap *out, char *msg,
			   size_t msglen);

/* From the station dump of a station's own interface (its one peer, the
 * AP); have is false when it lists none (not associated). who names the
 * station in msg. */
int link_from_own_dump(const char *text, const char *who, struct link_sta *l,
		       char *msg, size_t msglen);

/* Counters as after - before; signal and bitrates as after. A station
 * missing from either, or whose counters went backwards (it reassociated),
 * is left out (have = false). */
void link_delta(const struct link_snap *before, const struct link_snap *after,
		struct link_snap *out);

/* The rate the station's traffic actually went at: its bytes (both
 * directions) over the airtime they took, in Mb/s; NaN without bytes or
 * airtime. */
double link_rate_mbps(const struct link_sta *l, double airtime_us);

#endif
