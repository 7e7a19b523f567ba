/* The simulated wireless medium: per-radio EDCA queues, one shared medium
 * per channel with transmissions serialized in simulated time, A-MPDU
 * grouping, retries along the frame's rate table, link budget per path.
 * No I/O and no clock: the caller passes times (CLOCK_MONOTONIC ns) in and
 * gets deliveries and tx status back through med_ops callbacks. */
#ifndef AIRLAB_MEDIUM_MEDIUM_H
#define AIRLAB_MEDIUM_MEDIUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define MED_MAX_RADIOS 130 /* AP + up to 128 stations + spare */
#define MED_MAX_PATHS  MED_MAX_RADIOS
#define MED_NAME_MAX   32
#define MED_MAX_VIFS   8
#define MED_MAX_CHANS  8
#define MED_AMPDU_MAX  64
#define MED_NRATES     4 /* IEEE80211_TX_MAX_RATES */

/* hwsim TX flags (mac80211_hwsim.h) and per-rate flags. */
#define MED_TX_CTL_REQ_TX_STATUS 0x1
#define MED_TX_CTL_NO_ACK	 0x2
#define MED_TX_STAT_ACK		 0x4
#define MED_RC_SHORT_PREAMBLE	 0x4
#define MED_RC_MCS		 0x8
#define MED_RC_40MHZ		 0x20
#define MED_RC_SHORT_GI		 0x80
#define MED_RC_VHT_MCS		 0x100

struct med_radio_conf {
	char name[MED_NAME_MAX]; /* "ap" or the station name */
	char path[MED_NAME_MAX]; /* attenuator path, "" for none */
	double base_loss_db;
};

struct med_conf {
	int nradios; /* configured radios: 0 = AP, i = station i */
	struct med_radio_conf radio[MED_MAX_RADIOS];
	double tx_power_dbm;
	bool ampdu;
	int ampdu_max;	  /* subframes per A-MPDU */
	int ampdu_max_us; /* PPDU airtime limit */
	int queue_limit;  /* frames queued per radio */
	uint64_t seed;
	/* Medium time runs this many times slower than wall time (the
	 * daemon's -T); the medium itself only reports it. */
	double time_scale;
	/* Bytes the radios' crypto engine appends to a protected frame on
	 * air (hwsim hwcrypto: the MIC, 8 for CCMP-128), which the frame
	 * handed over does not carry; 0 with software crypto. */
	int mic_bytes;
};

/* One entry of a frame's rate table: hwsim's {idx, count} + flags. */
struct med_try {
	int8_t idx;
	uint8_t count;
	uint16_t flags;
};

struct med_frame {
	struct med_frame *next;
	int tx;	       /* transmitting radio */
	int rx;	       /* addressed radio, -1 for group or unknown */
	int ac, tid;   /* tid -1 for non-QoS */
	bool group;    /* addr1 is multicast/broadcast */
	bool aggr_ok;  /* unicast QoS data at an HT rate */
	unsigned freq; /* MHz */
	uint32_t hwflags;
	uint64_t cookie;
	struct med_try tries[MED_NRATES];
	int64_t enq_ns;
	/* Set before its tx status: its share of the exchange's airtime
	 * (by subframe bytes), what mac80211 charges the station. */
	uint32_t airtime_us;
	size_t len;	 /* frame bytes, without FCS */
	size_t psdu_len; /* on air: + FCS, + MIC the radio appends */
	uint8_t data[];
};

struct med_ops {
	/* Frame f reached radio rx with this signal and legacy rate idx. */
	void (*deliver)(void *ctx, int rx, const struct med_frame *f,
			int signal_dbm, int rx_rate_idx);
	/* Final status of f: acked, the attempts actually made per rate. */
	void (*tx_status)(void *ctx, const struct med_frame *f, bool acked,
			  const struct med_try used[MED_NRATES],
			  int ack_signal_dbm);
	void *ctx;
};

struct med_counters {
	uint64_t frames, bytes, retries, drops, airtime_us;
	uint64_t ppdus, ampdu_subframes;
	/* Per access category (VO VI BE BK): exchanges won, their airtime. */
	uint64_t ac_ppdus[MDL_NUM_AC], ac_airtime_us[MDL_NUM_AC];
};

struct med_queue {
	struct med_frame *head, *tail;
	int len;
	int backoff;	  /* slots left of this queue's backoff */
	int64_t count_ns; /* backoff counts down from here (or idle start) */
};

struct med_radio {
	bool known;
	uint8_t hwaddr[6]; /* hwsim's addresses[1] */
	uint8_t vif[MED_MAX_VIFS][6];
	int nvif;
	unsigned freq;
	struct med_queue q[MDL_NUM_AC];
	int queued;
	struct med_counters tx, rx; /* rx: unicast frames addressed to it */
	struct mdl_rate tx_rate, rx_rate;
	bool has_tx_rate, has_rx_rate;
};

struct med_txop {
	bool active;
	int radio, ac;
	int64_t start_ns, end_ns;
	int64_t air_us; /* all attempts, what counts as airtime used */
	int n;
	struct med_frame *f[MED_AMPDU_MAX];
	bool ok[MED_AMPDU_MAX];
	struct med_try used[MED_AMPDU_MAX][MED_NRATES];
};

struct med_chan {
	unsigned freq;
	int64_t idle_ns; /* medium idle since */
	int64_t busy_us;
	struct med_txop txop;
	int64_t start_ns; /* next contention winner starts, -1 none */
	int start_radio, start_ac;
};

#define MED_LAG_BUCKETS 2100
struct med_lag {
	uint64_t n, bucket[MED_LAG_BUCKETS];
	int64_t max_ns;
};

struct med_path {
	char name[MED_NAME_MAX];
	double atten_db;
};

struct medium {
	struct med_conf conf;
	struct med_ops ops;
	struct med_radio radio[MED_MAX_RADIOS];
	/* One past the highest radio configured or known: every loop over
	 * radios stops here, not at MED_MAX_RADIOS (per frame, under TCG,
	 * that scan was most of the daemon's own time). */
	int radio_end;
	struct med_path path[MED_MAX_PATHS];
	int npaths;
	struct med_chan chan[MED_MAX_CHANS];
	int nchans;
	uint64_t rng;
	struct med_lag lag;
	int64_t stats_since_ns, now_ns;
	uint64_t frames_in, unknown_tx;
};

/* Sets conf's defaults (20 dBm, A-MPDU on, 32 subframes, 4 ms, 200). */
void med_conf_defaults(struct med_conf *c);
/* Initialises m from conf (collects the attenuator paths). Returns 0, or
 * -1 with a message in err. */
int med_init(struct medium *m, const struct med_conf *conf,
	     const struct med_ops *ops, int64_t now_ns, char *err,
	     size_t errlen);
void med_free(struct medium *m);

/* Declares radio idx with its hwsim address and interface address. */
int med_radio_set(struct medium *m, int idx, const uint8_t hwaddr[6],
		  const uint8_t vif[6]);
/* Radio of a hwsim address: known, else the index hwsim encodes in its
 * default addresses (x2:00:00:HH:LL:00), else the next free slot; -1 if
 * the table is full. Learns it when create. */
int med_radio_of_hwaddr(struct medium *m, const uint8_t a[6], bool create);
/* Adds an interface address of a radio (ADD_MAC_ADDR, frame addr2). */
void med_radio_add_vif(struct medium *m, int radio, const uint8_t a[6]);
void med_radio_del_vif(struct medium *m, int radio, const uint8_t a[6]);
/* Radio owning interface address a, or -1. */
int med_radio_of_vif(const struct medium *m, const uint8_t a[6]);

/* Path loss (dB) and SNR of the link between two radios. */
double med_link_loss_db(const struct medium *m, int a, int b);

/* Hands over one frame the kernel sent. Takes a copy of data. Returns 0
 * (queued), 1 (dropped: queue full, tx status already reported), or -1
 * (not a frame we can model; no status reported). */
int med_frame_in(struct medium *m, int64_t now_ns, int tx, const uint8_t *data,
		 size_t len, uint32_t hwflags, unsigned freq, uint64_t cookie,
		 const struct med_try tries[MED_NRATES]);

/* Earliest time something is due, or -1 if nothing is scheduled. */
int64_t med_next_deadline(const struct medium *m);
/* Runs everything due at or before now; records each event's lag
 * (now - scheduled). Returns the number of events run. */
int med_advance(struct medium *m, int64_t now_ns);

/* Attenuation of a named path. */
int med_path_find(const struct medium *m, const char *name);
/* Zeroes counters and the lag histogram. */
void med_reset_stats(struct medium *m, int64_t now_ns);

void med_lag_record(struct med_lag *l, int64_t lag_ns);
/* Quantile q (0..1) of the recorded lags, in ns (bucket upper bound). */
int64_t med_lag_quantile(const struct med_lag *l, double q);

/* Rate of a hwsim rate-table entry on a band; -1 if it does not decode. */
int med_try_rate(const struct med_try *t, enum mdl_band band,
		 struct mdl_rate *out);

#endif
