/* The radio model of airlab's virtual medium: pure functions for PHY
 * airtime, EDCA channel access, packet error rate and link budget.
 * Formulas and their sources are in harness/medium/README.md. All
 * durations are whole microseconds, as the 802.11 TXTIME formulas give. */
#ifndef AIRLAB_MEDIUM_MODEL_H
#define AIRLAB_MEDIUM_MODEL_H

#include <stdbool.h>
#include <stddef.h>

enum mdl_band { MDL_BAND_2G, MDL_BAND_5G };

enum mdl_phy {
	MDL_DSSS, /* 802.11b DSSS/CCK: 1, 2, 5.5, 11 Mb/s */
	MDL_OFDM, /* 802.11a/g OFDM: 6..54 Mb/s */
	MDL_HT,	  /* 802.11n HT mixed format, MCS 0..15 */
};

/* Access categories in mac80211's queue order (VO first). */
enum mdl_ac { MDL_AC_VO, MDL_AC_VI, MDL_AC_BE, MDL_AC_BK, MDL_NUM_AC };

struct mdl_rate {
	enum mdl_phy phy;
	int kbps100;	     /* legacy: 10, 20, 55, 110, 60, 90, ... 540 */
	int mcs;	     /* HT: 0..15 */
	int width_mhz;	     /* HT: 20 or 40; legacy: 20 */
	bool sgi;	     /* HT short guard interval */
	bool short_preamble; /* DSSS 2/5.5/11 */
};

struct mdl_edca {
	int aifsn;
	int cwmin;
	int cwmax;
};

/* Band of a channel centre frequency in MHz. */
enum mdl_band mdl_band_of_freq(unsigned freq_mhz);

/* Legacy rate idx of mac80211_hwsim's bitrate table for the band
 * (2.4 GHz: 1 2 5.5 11 6 9 12 18 24 36 48 54; 5 GHz: 6..54). Returns 0, or
 * -1 if idx is outside the table. */
int mdl_rate_legacy(enum mdl_band band, int idx, bool short_preamble,
		    struct mdl_rate *out);
/* HT MCS 0..15; returns -1 otherwise. */
int mdl_rate_ht(int mcs, int width_mhz, bool sgi, struct mdl_rate *out);
/* The hwsim legacy idx that best describes rate r for RX_RATE (HT
 * rates map to the OFDM rate of the same modulation and coding). */
int mdl_rx_rate_idx(enum mdl_band band, const struct mdl_rate *r);

/* PHY data rate in kb/s. */
int mdl_rate_kbps(const struct mdl_rate *r);
/* Short name: "1M", "54M", "MCS7/20", "MCS15/40/SGI". */
void mdl_rate_name(const struct mdl_rate *r, char *buf, size_t len);
/* The rate of such a name in the band's table; -1 for no such rate. */
int mdl_rate_parse(const char *name, enum mdl_band band, struct mdl_rate *out);

/* Timing of the band: SIFS and slot in µs, and the 6 µs OFDM signal
 * extension of 2.4 GHz. */
int mdl_sifs_us(enum mdl_band band);
int mdl_slot_us(enum mdl_band band);

/* Duration of one PPDU carrying a PSDU of psdu_bytes (MPDU incl. FCS, or
 * the whole A-MPDU): preamble, PLCP header, payload symbols. */
int mdl_ppdu_us(const struct mdl_rate *r, enum mdl_band band,
		size_t psdu_bytes);

/* A-MPDU PSDU length of n MPDUs of mpdu_bytes[i] (each incl. FCS): a 4-byte
 * delimiter per subframe, each but the last padded to 4 bytes. */
size_t mdl_ampdu_bytes(const size_t *mpdu_bytes, int n);

/* Rate of the ACK / BlockAck answering a frame sent at r: the highest
 * mandatory rate of the same PHY class not faster than r. */
void mdl_response_rate(const struct mdl_rate *r, struct mdl_rate *out);
#define MDL_ACK_BYTES	   14
#define MDL_BLOCKACK_BYTES 32 /* compressed BlockAck */
int mdl_ack_us(const struct mdl_rate *r, enum mdl_band band);
int mdl_blockack_us(const struct mdl_rate *r, enum mdl_band band);

/* EDCA parameters of an AC (802.11 defaults for a non-AP STA; the AP's
 * hostapd defaults are the same for BE/BK/VI/VO AIFSN and CW). */
struct mdl_edca mdl_edca_of(enum mdl_ac ac);
int mdl_aifs_us(enum mdl_ac ac, enum mdl_band band);
/* Contention window before attempt number retry (0 = first): CWmin
 * doubled per retry, capped at CWmax. */
int mdl_cw(enum mdl_ac ac, int retry);
/* AC of a QoS TID (802.1D user priority). */
enum mdl_ac mdl_ac_of_tid(int tid);

/* Airtime of one attempt: AIFS + backoff_slots * slot + PPDU of psdu_bytes
 * + (if acked) SIFS + ACK, or SIFS + BlockAck when ampdu. */
int mdl_attempt_us(const struct mdl_rate *r, enum mdl_band band, enum mdl_ac ac,
		   int backoff_slots, size_t psdu_bytes, bool acked,
		   bool ampdu);
/* Same with the mean backoff CW(retry)/2 slots (in µs, fractional). */
double mdl_attempt_mean_us(const struct mdl_rate *r, enum mdl_band band,
			   enum mdl_ac ac, int retry, size_t psdu_bytes,
			   bool acked, bool ampdu);

/* SNR (dB) at which a 1000-byte PSDU at r has 10% PER. */
double mdl_snr_threshold_db(const struct mdl_rate *r);
/* Packet error rate of one PSDU of psdu_bytes at r with snr_db: a
 * logistic curve around the rate's threshold, scaled to the length. */
double mdl_per(const struct mdl_rate *r, double snr_db, size_t psdu_bytes);

/* Link budget. */
double mdl_noise_floor_dbm(int width_mhz);
double mdl_signal_dbm(double tx_power_dbm, double base_loss_db,
		      double atten_db);
double mdl_snr_db(double signal_dbm, int width_mhz);

/* Goodput (Mb/s) of one bulk TCP flow over one link at rate r without
 * errors: each cycle is one data PPDU of ampdu_n MSS-sized MPDUs (MTU
 * mtu_bytes, CCMP) followed by one PPDU carrying the TCP ACKs (one per
 * two segments) at the same rate, each paying AIFS + mean backoff of BE. */
double mdl_tcp_goodput_mbps(const struct mdl_rate *r, enum mdl_band band,
			    int mtu_bytes, int ampdu_n);
/* MPDU bytes (incl. FCS) of an IP packet of ip_bytes in a CCMP QoS data
 * frame; TCP payload bytes of an MTU-sized segment (timestamps on). */
size_t mdl_mpdu_bytes_of_ip(size_t ip_bytes);
size_t mdl_tcp_mss(int mtu_bytes);

#endif
