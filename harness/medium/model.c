/* Radio model (see model.h and README.md for the formulas). */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* hwsim's 2.4 GHz bitrate table in 100 kb/s; 5 GHz starts at 6 Mb/s. */
static const int hwsim_rates[] = {10,  20,  55,	 110, 60,  90,
				  120, 180, 240, 360, 480, 540};
#define HWSIM_NRATES   12
#define HWSIM_5G_FIRST 4

/* Data bits per OFDM symbol of HT MCS 0..7, one spatial stream. */
static const int ht20_ndbps[8] = {26, 52, 78, 104, 156, 208, 234, 260};
static const int ht40_ndbps[8] = {54, 108, 162, 216, 324, 432, 486, 540};

/* SNR (dB) for 10% PER on 1000 bytes. OFDM/HT values follow the spacing
 * of the 802.11 minimum-sensitivity tables (17.3.10.2, 19.3.19.2) without
 * their implementation margin; DSSS includes the Barker/CCK gain. */
static const double dsss_th[4] = {1.0, 4.0, 7.0, 10.0}; /* 1 2 5.5 11 */
static const double ofdm_th[8] = {5.0,	6.0,  8.0,  10.0,
				  13.0, 17.0, 21.0, 23.0}; /* 6 .. 54 */
static const double ht_th[8] = {5.0,  8.0,  10.0, 13.0,
				17.0, 21.0, 23.0, 25.0}; /* MCS 0..7 */
#define HT_2SS_EXTRA_DB 3.0
/* Logistic slope per dB: PER goes from 90% to 10% in 2*ln(9)/k = 2.2 dB,
 * the waterfall width of BCC-coded OFDM in AWGN. */
#define PER_SLOPE     2.0
#define PER_REF_BYTES 1000.0

#define NOISE_FIGURE_DB 6.0

enum mdl_band mdl_band_of_freq(unsigned freq_mhz)
{
	return freq_mhz < 3000 ? MDL_BAND_2G : MDL_BAND_5G;
}

int mdl_rate_legacy(enum mdl_band band, int idx, bool short_preamble,
		    struct mdl_rate *out)
{
	int k = band == MDL_BAND_2G ? idx : idx + HWSIM_5G_FIRST;

	if (idx < 0 || k >= HWSIM_NRATES)
		return -1;
	out->kbps100 = hwsim_rates[k];
	out->phy = k < HWSIM_5G_FIRST ? MDL_DSSS : MDL_OFDM;
	out->mcs = 0;
	out->width_mhz = 20;
	out->sgi = false;
	/* 1 Mb/s has no short preamble. */
	out->short_preamble = out->phy == MDL_DSSS && k > 0 && short_preamble;
	return 0;
}

int mdl_rate_ht(int mcs, int width_mhz, bool sgi, struct mdl_rate *out)
{
	if (mcs < 0 || mcs > 15 || (width_mhz != 20 && width_mhz != 40))
		return -1;
	out->phy = MDL_HT;
	out->kbps100 = 0;
	out->mcs = mcs;
	out->width_mhz = width_mhz;
	out->sgi = sgi;
	out->short_preamble = false;
	return 0;
}

int mdl_rx_rate_idx(enum mdl_band band, const struct mdl_rate *r)
{
	/* OFDM rate of the same modulation and coding as MCS 0..7. */
	static const int ht_as_ofdm[8] = {60,  120, 180, 240,
					  360, 480, 540, 540};
	int want = r->phy == MDL_HT ? ht_as_ofdm[r->mcs % 8] : r->kbps100;
	int first = band == MDL_BAND_2G ? 0 : HWSIM_5G_FIRST;

	for (int k = first; k < HWSIM_NRATES; k++)
		if (hwsim_rates[k] == want)
			return k - first;
	return 0;
}

static int ht_ndbps(const struct mdl_rate *r)
{
	int nss = r->mcs / 8 + 1;
	const int *t = r->width_mhz == 40 ? ht40_ndbps : ht20_ndbps;

	return t[r->mcs % 8] * nss;
}

int mdl_rate_kbps(const struct mdl_rate *r)
{
	if (r->phy != MDL_HT)
		return r->kbps100 * 100;
	/* Ndbps bits per 4 µs symbol, or per 3.6 µs with SGI. */
	return r->sgi ? ht_ndbps(r) * 10000 / 36 : ht_ndbps(r) * 250;
}

void mdl_rate_name(const struct mdl_rate *r, char *buf, size_t len)
{
	if (r->phy == MDL_HT)
		snprintf(buf, len, "MCS%d/%d%s", r->mcs, r->width_mhz,
			 r->sgi ? "/SGI" : "");
	else if (r->kbps100 % 10)
		snprintf(buf, len, "%d.%dM", r->kbps100 / 10, r->kbps100 % 10);
	else
		snprintf(buf, len, "%dM", r->kbps100 / 10);
}

int mdl_rate_parse(const char *name, enum mdl_band band, struct mdl_rate *out)
{
	char n[32];

	/* The inverse of mdl_rate_name over every rate the model has, so the
	 * two can never disagree. */
	for (int idx = 0; mdl_rate_legacy(band, idx, false, out) == 0; idx++) {
		mdl_rate_name(out, n, sizeof(n));
		if (!strcmp(n, name))
			return 0;
	}
	for (int mcs = 0; mcs < 16; mcs++)
		for (int w = 20; w <= 40; w += 20)
			for (int sgi = 0; sgi < 2; sgi++) {
				mdl_rate_ht(mcs, w, sgi, out);
				mdl_rate_name(out, n, sizeof(n));
				if (!strcmp(n, name))
					return 0;
			}
	return -1;
}

int mdl_sifs_us(enum mdl_band band)
{
	return band == MDL_BAND_2G ? 10 : 16;
}

int mdl_slot_us(enum mdl_band band)
{
	(void)band; /* short slot: ERP (no 802.11b-only BSS) and OFDM PHY */
	return 9;
}

/* ERP-OFDM and HT at 2.4 GHz end with 6 µs of signal extension. */
static int signal_ext_us(enum mdl_band band)
{
	return band == MDL_BAND_2G ? 6 : 0;
}

int mdl_ppdu_us(const struct mdl_rate *r, enum mdl_band band, size_t psdu_bytes)
{
	/* SERVICE (16 bits) + PSDU + tail (6 bits), in whole symbols. */
	long bits = 16 + 8 * (long)psdu_bytes + 6;

	switch (r->phy) {
	case MDL_DSSS: {
		int plcp = r->short_preamble ? 96 : 192;
		/* Payload time at kbps100 * 100 kb/s, rounded up to 1 µs. */
		long payload =
		    (8 * (long)psdu_bytes * 10 + r->kbps100 - 1) / r->kbps100;
		return plcp + (int)payload;
	}
	case MDL_OFDM: {
		int ndbps = r->kbps100 * 4 / 10; /* bits per 4 µs symbol */
		long nsym = (bits + ndbps - 1) / ndbps;
		/* L-STF + L-LTF 16 µs, L-SIG 4 µs. */
		return 20 + 4 * (int)nsym + signal_ext_us(band);
	}
	case MDL_HT: {
		int ndbps = ht_ndbps(r);
		long nsym = (bits + ndbps - 1) / ndbps;
		int nltf = r->mcs >= 8 ? 2 : 1;
		/* L-STF 8, L-LTF 8, L-SIG 4, HT-SIG 8, HT-STF 4, HT-LTF 4 each.
		 */
		int pre = 8 + 8 + 4 + 8 + 4 + 4 * nltf;
		long data_us;
		if (r->sgi) /* 3.6 µs symbols, padded to the 4 µs grid */
			data_us = 4 * ((nsym * 36 + 39) / 40);
		else
			data_us = 4 * nsym;
		return pre + (int)data_us + signal_ext_us(band);
	}
	}
	return 0;
}

size_t mdl_ampdu_bytes(const size_t *mpdu_bytes, int n)
{
	size_t total = 0;

	for (int i = 0; i < n; i++) {
		size_t sub = 4 + mpdu_bytes[i];
		if (i < n - 1)
			sub = (sub + 3) & ~(size_t)3;
		total += sub;
	}
	return total;
}

void mdl_response_rate(const struct mdl_rate *r, struct mdl_rate *out)
{
	*out = *r;
	out->sgi = false;
	out->width_mhz = 20;
	if (r->phy == MDL_DSSS)
		return; /* 1, 2, 5.5 and 11 are all HR/DSSS mandatory rates */
	/* OFDM mandatory rates 6, 12, 24: the highest not above r. */
	int eq = r->phy == MDL_HT ? mdl_rate_kbps(r) / 100 : r->kbps100;
	if (r->phy == MDL_HT) {
		struct mdl_rate ht1 = *r;
		ht1.mcs = r->mcs % 8; /* per-stream modulation */
		ht1.width_mhz = 20;
		ht1.sgi = false;
		eq = mdl_rate_kbps(&ht1) / 100;
	}
	out->phy = MDL_OFDM;
	out->mcs = 0;
	out->kbps100 = eq >= 240 ? 240 : eq >= 120 ? 120 : 60;
}

int mdl_ack_us(const struct mdl_rate *r, enum mdl_band band)
{
	struct mdl_rate resp;

	mdl_response_rate(r, &resp);
	return mdl_ppdu_us(&resp, band, MDL_ACK_BYTES);
}

int mdl_blockack_us(const struct mdl_rate *r, enum mdl_band band)
{
	struct mdl_rate resp;

	mdl_response_rate(r, &resp);
	return mdl_ppdu_us(&resp, band, MDL_BLOCKACK_BYTES);
}

struct mdl_edca mdl_edca_of(enum mdl_ac ac)
{
	/* 802.11-2020 Table 9-155 (dot11EDCATable for non-AP STAs). */
	static const struct mdl_edca t[MDL_NUM_AC] = {
	    [MDL_AC_VO] = {2, 3, 7},
	    [MDL_AC_VI] = {2, 7, 15},
	    [MDL_AC_BE] = {3, 15, 1023},
	    [MDL_AC_BK] = {7, 15, 1023},
	};
	return t[ac];
}

int mdl_aifs_us(enum mdl_ac ac, enum mdl_band band)
{
	return mdl_sifs_us(band) + mdl_edca_of(ac).aifsn * mdl_slot_us(band);
}

int mdl_cw(enum mdl_ac ac, int retry)
{
	struct mdl_edca e = mdl_edca_of(ac);
	long cw = e.cwmin;

	for (int i = 0; i < retry && cw < e.cwmax; i++)
		cw = 2 * cw + 1;
	return cw > e.cwmax ? e.cwmax : (int)cw;
}

enum mdl_ac mdl_ac_of_tid(int tid)
{
	switch (tid & 7) {
	case 1:
	case 2:
		return MDL_AC_BK;
	case 4:
	case 5:
		return MDL_AC_VI;
	case 6:
	case 7:
		return MDL_AC_VO;
	default:
		return MDL_AC_BE;
	}
}

static int exchange_us(const struct mdl_rate *r, enum mdl_band band,
		       size_t psdu_bytes, bool acked, bool ampdu)
{
	int t = mdl_ppdu_us(r, band, psdu_bytes);

	if (acked)
		t += mdl_sifs_us(band) +
		     (ampdu ? mdl_blockack_us(r, band) : mdl_ack_us(r, band));
	return t;
}

int mdl_attempt_us(const struct mdl_rate *r, enum mdl_band band, enum mdl_ac ac,
		   int backoff_slots, size_t psdu_bytes, bool acked, bool ampdu)
{
	return mdl_aifs_us(ac, band) + backoff_slots * mdl_slot_us(band) +
	       exchange_us(r, band, psdu_bytes, acked, ampdu);
}

double mdl_attempt_mean_us(const struct mdl_rate *r, enum mdl_band band,
			   enum mdl_ac ac, int retry, size_t psdu_bytes,
			   bool acked, bool ampdu)
{
	return mdl_aifs_us(ac, band) +
	       mdl_cw(ac, retry) / 2.0 * mdl_slot_us(band) +
	       exchange_us(r, band, psdu_bytes, acked, ampdu);
}

double mdl_snr_threshold_db(const struct mdl_rate *r)
{
	switch (r->phy) {
	case MDL_DSSS:
		switch (r->kbps100) {
		case 10:
			return dsss_th[0];
		case 20:
			return dsss_th[1];
		case 55:
			return dsss_th[2];
		default:
			return dsss_th[3];
		}
	case MDL_OFDM: {
		static const int k[8] = {60, 90, 120, 180, 240, 360, 480, 540};
		for (int i = 0; i < 8; i++)
			if (k[i] == r->kbps100)
				return ofdm_th[i];
		return ofdm_th[7];
	}
	case MDL_HT:
		return ht_th[r->mcs % 8] + (r->mcs >= 8 ? HT_2SS_EXTRA_DB : 0);
	}
	return 0;
}

double mdl_per(const struct mdl_rate *r, double snr_db, size_t psdu_bytes)
{
	/* PER of the 1000-byte reference is 10% at the threshold. */
	double mid = mdl_snr_threshold_db(r) - log(9.0) / PER_SLOPE;
	double per_ref = 1.0 / (1.0 + exp(PER_SLOPE * (snr_db - mid)));

	if (per_ref >= 1.0)
		return 1.0;
	/* Independent errors per reference block: success scales as a power
	 * of the length. */
	return 1.0 - pow(1.0 - per_ref, (double)psdu_bytes / PER_REF_BYTES);
}

double mdl_noise_floor_dbm(int width_mhz)
{
	/* Thermal noise -174 dBm/Hz over the bandwidth, plus the receiver's
	 * noise figure. */
	return -174.0 + 10.0 * log10(width_mhz * 1e6) + NOISE_FIGURE_DB;
}

double mdl_signal_dbm(double tx_power_dbm, double base_loss_db, double atten_db)
{
	return tx_power_dbm - (base_loss_db + atten_db);
}

double mdl_snr_db(double signal_dbm, int width_mhz)
{
	return signal_dbm - mdl_noise_floor_dbm(width_mhz);
}

size_t mdl_mpdu_bytes_of_ip(size_t ip_bytes)
{
	/* QoS data header 26, CCMP header 8, LLC/SNAP 8, MIC 8, FCS 4. */
	return 26 + 8 + 8 + ip_bytes + 8 + 4;
}

size_t mdl_tcp_mss(int mtu_bytes)
{
	return (size_t)mtu_bytes - 20 - 32; /* IPv4 + TCP with timestamps */
}

double mdl_tcp_goodput_mbps(const struct mdl_rate *r, enum mdl_band band,
			    int mtu_bytes, int ampdu_n)
{
	int n = ampdu_n < 1 ? 1 : ampdu_n > 64 ? 64 : ampdu_n;
	int nack = (n + 1) / 2;
	size_t data[64], ack[64];
	bool agg = n > 1;
	double cycle;

	for (int i = 0; i < n; i++)
		data[i] = mdl_mpdu_bytes_of_ip((size_t)mtu_bytes);
	for (int i = 0; i < nack; i++)
		ack[i] = mdl_mpdu_bytes_of_ip(52); /* IP 20 + TCP 32 */
	cycle = mdl_attempt_mean_us(r, band, MDL_AC_BE, 0,
				    agg ? mdl_ampdu_bytes(data, n) : data[0],
				    true, agg);
	/* Unaggregated, a TCP ACK goes every other cycle. */
	cycle +=
	    (agg ? 1.0 : 0.5) *
	    mdl_attempt_mean_us(r, band, MDL_AC_BE, 0,
				nack > 1 ? mdl_ampdu_bytes(ack, nack) : ack[0],
				true, nack > 1);
	return (double)n * (double)mdl_tcp_mss(mtu_bytes) * 8.0 / cycle;
}
