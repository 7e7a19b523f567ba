/* The medium's radio model against hand-computed 802.11 TXTIME values, and
 * the simulated medium's queues, A-MPDU grouping and timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../medium/medium.h"
#include "../medium/model.h"

static struct mdl_rate legacy(enum mdl_band b, int idx, bool sp)
{
	struct mdl_rate r;
	assert_int_equal(mdl_rate_legacy(b, idx, sp, &r), 0);
	return r;
}

static struct mdl_rate ht(int mcs, int w, bool sgi)
{
	struct mdl_rate r;
	assert_int_equal(mdl_rate_ht(mcs, w, sgi, &r), 0);
	return r;
}

static void test_ppdu_ofdm_54(void **state)
{
	(void)state;
	/* 54 Mb/s: Ndbps 216. 16 + 8*1500 + 6 = 12022 bits -> 56 symbols
	 * (55.66 rounded up) -> 20 µs preamble+SIGNAL + 224 = 244 µs; at
	 * 2.4 GHz plus 6 µs signal extension = 250 µs. */
	struct mdl_rate r5 = legacy(MDL_BAND_5G, 7, false);
	struct mdl_rate r2 = legacy(MDL_BAND_2G, 11, false);
	assert_int_equal(r5.kbps100, 540);
	assert_int_equal(mdl_ppdu_us(&r5, MDL_BAND_5G, 1500), 244);
	assert_int_equal(mdl_ppdu_us(&r2, MDL_BAND_2G, 1500), 250);
	/* 6 Mb/s, 14-byte ACK: 134 bits / 24 = 6 symbols -> 44 µs. */
	struct mdl_rate r6 = legacy(MDL_BAND_5G, 0, false);
	assert_int_equal(mdl_ppdu_us(&r6, MDL_BAND_5G, 14), 44);
}

static void test_ppdu_dsss(void **state)
{
	(void)state;
	/* 1 Mb/s long preamble: 144 + 48 µs PLCP + 12000 µs = 12192 µs. */
	struct mdl_rate r1 = legacy(MDL_BAND_2G, 0, true);
	assert_false(r1.short_preamble); /* 1 Mb/s has none */
	assert_int_equal(mdl_ppdu_us(&r1, MDL_BAND_2G, 1500), 12192);
	/* 11 Mb/s short preamble: 96 + ceil(12000 / 11) = 96 + 1091. */
	struct mdl_rate r11 = legacy(MDL_BAND_2G, 3, true);
	assert_int_equal(mdl_ppdu_us(&r11, MDL_BAND_2G, 1500), 1187);
	/* ACK at 1 Mb/s: 192 + 112 = 304 µs. */
	assert_int_equal(mdl_ack_us(&r1, MDL_BAND_2G), 304);
}

static void test_ppdu_ht(void **state)
{
	(void)state;
	/* MCS 7 HT20 LGI: Ndbps 260, 12022 bits -> 47 symbols = 188 µs;
	 * mixed-format preamble 8+8+4+8+4+4 = 36 µs -> 224 µs (+6 at 2.4). */
	struct mdl_rate m7 = ht(7, 20, false);
	assert_int_equal(mdl_rate_kbps(&m7), 65000);
	assert_int_equal(mdl_ppdu_us(&m7, MDL_BAND_5G, 1500), 224);
	assert_int_equal(mdl_ppdu_us(&m7, MDL_BAND_2G, 1500), 230);
	/* SGI: 47 * 3.6 = 169.2 µs -> 172 on the 4 µs grid -> 208 µs. */
	struct mdl_rate m7s = ht(7, 20, true);
	assert_int_equal(mdl_ppdu_us(&m7s, MDL_BAND_5G, 1500), 208);
	assert_int_equal(mdl_rate_kbps(&m7s), 72222);
	/* MCS 15 HT40: Ndbps 1080 -> 12 symbols = 48 µs; two HT-LTFs ->
	 * 40 µs preamble -> 88 µs. */
	struct mdl_rate m15 = ht(15, 40, false);
	assert_int_equal(mdl_rate_kbps(&m15), 270000);
	assert_int_equal(mdl_ppdu_us(&m15, MDL_BAND_5G, 1500), 88);
	assert_int_equal(mdl_rate_ht(16, 20, false, &m15), -1);
}

static void test_ack_and_attempt(void **state)
{
	(void)state;
	struct mdl_rate r54 = legacy(MDL_BAND_2G, 11, false);
	/* ACK of a 54 Mb/s frame at 24 Mb/s: 134 bits / 96 = 2 symbols ->
	 * 20 + 8 + 6 = 34 µs at 2.4 GHz. */
	assert_int_equal(mdl_ack_us(&r54, MDL_BAND_2G), 34);
	/* BlockAck (32 bytes) after MCS 7: 278 bits -> 3 symbols = 32 µs
	 * at 5 GHz. */
	struct mdl_rate m7 = ht(7, 20, false);
	assert_int_equal(mdl_blockack_us(&m7, MDL_BAND_5G), 32);
	/* MCS 0 answers at 6 Mb/s: 134 / 24 -> 6 symbols = 44 µs. */
	struct mdl_rate m0 = ht(0, 20, false);
	assert_int_equal(mdl_ack_us(&m0, MDL_BAND_5G), 44);
	/* One BE attempt at 54 Mb/s, 2.4 GHz, 1500 bytes: AIFS 10 + 3*9 =
	 * 37, 5 backoff slots 45, PPDU 250, SIFS 10, ACK 34 = 376 µs. */
	assert_int_equal(mdl_aifs_us(MDL_AC_BE, MDL_BAND_2G), 37);
	assert_int_equal(
	    mdl_attempt_us(&r54, MDL_BAND_2G, MDL_AC_BE, 5, 1500, true, false),
	    376);
	/* Without an ACK (group frame): 37 + 45 + 250. */
	assert_int_equal(
	    mdl_attempt_us(&r54, MDL_BAND_2G, MDL_AC_BE, 5, 1500, false, false),
	    332);
	/* Mean backoff of the first attempt: 15/2 slots. */
	assert_true(fabs(mdl_attempt_mean_us(&r54, MDL_BAND_2G, MDL_AC_BE, 0,
					     1500, true, false) -
			 (37 + 7.5 * 9 + 250 + 10 + 34)) < 1e-9);
}

static void test_cw_doubling(void **state)
{
	(void)state;
	static const int be[] = {15, 31, 63, 127, 255, 511, 1023, 1023};
	for (int i = 0; i < 8; i++)
		assert_int_equal(mdl_cw(MDL_AC_BE, i), be[i]);
	assert_int_equal(mdl_cw(MDL_AC_VO, 0), 3);
	assert_int_equal(mdl_cw(MDL_AC_VO, 1), 7);
	assert_int_equal(mdl_cw(MDL_AC_VO, 5), 7);
	assert_int_equal(mdl_cw(MDL_AC_VI, 3), 15);
	assert_int_equal(mdl_aifs_us(MDL_AC_VO, MDL_BAND_5G), 16 + 2 * 9);
	assert_int_equal(mdl_ac_of_tid(0), MDL_AC_BE);
	assert_int_equal(mdl_ac_of_tid(1), MDL_AC_BK);
	assert_int_equal(mdl_ac_of_tid(5), MDL_AC_VI);
	assert_int_equal(mdl_ac_of_tid(6), MDL_AC_VO);
}

static void test_ampdu_airtime(void **state)
{
	(void)state;
	size_t two[2] = {1538, 1538};
	/* (4 + 1538) padded to 1544, + (4 + 1538) = 3086. */
	assert_int_equal(mdl_ampdu_bytes(two, 2), 3086);
	/* MCS 7 HT20: 16 + 8*3086 + 6 = 24710 bits -> 96 symbols -> 36 +
	 * 384 = 420 µs at 5 GHz. */
	struct mdl_rate m7 = ht(7, 20, false);
	assert_int_equal(mdl_ppdu_us(&m7, MDL_BAND_5G, 3086), 420);
	/* 16 subframes: 15 * 1544 + 1542 = 24702 bytes -> 197638 bits -> 761
	 * symbols -> 3080 µs PPDU; + AIFS 43 + SIFS 16 + BlockAck 32 = 3171,
	 * against 16 * (43 + 228 + 16 + 28) = 5040 µs sent one by one. */
	size_t sixteen[16];
	for (int i = 0; i < 16; i++)
		sixteen[i] = 1538;
	int agg = mdl_attempt_us(&m7, MDL_BAND_5G, MDL_AC_BE, 0,
				 mdl_ampdu_bytes(sixteen, 16), true, true);
	int single =
	    mdl_attempt_us(&m7, MDL_BAND_5G, MDL_AC_BE, 0, 1538, true, false);
	assert_int_equal(agg, 3171);
	assert_int_equal(single, 315);
	/* So the model's TCP goodput at MCS 7 rises with aggregation and
	 * stays below the PHY rate. */
	double g1 = mdl_tcp_goodput_mbps(&m7, MDL_BAND_5G, 1500, 1);
	double g16 = mdl_tcp_goodput_mbps(&m7, MDL_BAND_5G, 1500, 16);
	assert_true(g1 > 10 && g1 < g16 && g16 < 65.0);
	/* 54 Mb/s legacy, 1554-byte MPDU: 12454 bits -> 58 symbols -> 258
	 * µs; per segment 37 + 67.5 + 258 + 10 + 34 = 406.5 µs, plus half a
	 * TCP ACK (106 bytes: 870 bits -> 5 symbols -> 46 µs; 37 + 67.5 +
	 * 46 + 10 + 34 = 194.5 µs) -> 1448*8 / 503.75 µs = 23.0 Mb/s. */
	struct mdl_rate r54 = legacy(MDL_BAND_2G, 11, false);
	double g54 = mdl_tcp_goodput_mbps(&r54, MDL_BAND_2G, 1500, 1);
	assert_true(fabs(g54 - 1448 * 8 / 503.75) < 0.001);
}

static void test_per(void **state)
{
	(void)state;
	struct mdl_rate rates[] = {legacy(MDL_BAND_2G, 0, false),
				   legacy(MDL_BAND_2G, 11, false), ht(0, 20, 0),
				   ht(7, 20, 0), ht(15, 40, 0)};
	for (size_t k = 0; k < sizeof(rates) / sizeof(rates[0]); k++) {
		const struct mdl_rate *r = &rates[k];
		double th = mdl_snr_threshold_db(r), prev = 1.0;
		/* 10% at the threshold for 1000 bytes, by construction. */
		assert_true(fabs(mdl_per(r, th, 1000) - 0.1) < 1e-9);
		for (double snr = -10; snr <= 50; snr += 0.5) {
			double p = mdl_per(r, snr, 1500);
			assert_true(p >= 0 && p <= 1);
			assert_true(p <= prev); /* falls as SNR rises */
			prev = p;
			/* rises with length */
			assert_true(mdl_per(r, snr, 100) <=
				    mdl_per(r, snr, 1500));
			assert_true(mdl_per(r, snr, 1500) <=
				    mdl_per(r, snr, 4000));
		}
		assert_true(mdl_per(r, th + 10, 1500) < 1e-6);
		assert_true(mdl_per(r, th - 10, 1500) > 0.999);
	}
	/* Faster rates need more SNR. */
	assert_true(mdl_snr_threshold_db(&rates[0]) <
		    mdl_snr_threshold_db(&rates[1]));
	assert_true(mdl_snr_threshold_db(&rates[2]) <
		    mdl_snr_threshold_db(&rates[3]));
}

static void test_link_budget(void **state)
{
	(void)state;
	/* -174 dBm/Hz + 10 log10(20 MHz) = -100.99, + 6 dB NF = -94.99. */
	assert_true(fabs(mdl_noise_floor_dbm(20) - (-94.99)) < 0.01);
	assert_true(fabs(mdl_noise_floor_dbm(40) - (-91.98)) < 0.01);
	assert_true(fabs(mdl_signal_dbm(20, 50, 10) - (-40)) < 1e-9);
	assert_true(fabs(mdl_snr_db(-40, 20) - 54.99) < 0.01);
}

/* ---- the simulated medium ------------------------------------------- */

struct rec {
	int delivered, status, acked, drops;
	int64_t last_deliver_ns;
	int last_signal;
	struct medium *m;
	int used_count;
	uint64_t airtime_us; /* sum of the per-frame shares */
	uint64_t order[64];  /* cookies in delivery order */
};

static void rec_deliver(void *ctx, int rx, const struct med_frame *f, int sig,
			int rate)
{
	struct rec *r = ctx;
	(void)rx;
	(void)rate;
	if (r->delivered < 64)
		r->order[r->delivered] = f->cookie;
	r->delivered++;
	r->last_signal = sig;
	r->last_deliver_ns = r->m->now_ns;
}

static void rec_status(void *ctx, const struct med_frame *f, bool acked,
		       const struct med_try used[MED_NRATES], int sig)
{
	struct rec *r = ctx;
	(void)sig;
	r->status++;
	r->airtime_us += f->airtime_us;
	r->acked += acked;
	r->used_count = 0;
	for (int i = 0; i < MED_NRATES; i++)
		r->used_count += used[i].count;
	if (used[0].idx < 0)
		r->drops++;
}

static const uint8_t hw0[6] = {0x42, 0, 0, 0, 0, 0};
static const uint8_t hw1[6] = {0x42, 0, 0, 0, 1, 0};
static const uint8_t vif0[6] = {0x02, 0, 0, 0, 0, 0};
static const uint8_t vif1[6] = {0x02, 0, 0, 0, 1, 0};

static void setup_medium(struct medium *m, struct rec *r, int qlimit,
			 bool ampdu)
{
	struct med_conf c;
	/* r is only stored here; the caller fills it later. */
	// cppcheck-suppress ctuuninitvar
	struct med_ops ops = {rec_deliver, rec_status, r};
	char err[128];

	med_conf_defaults(&c);
	c.nradios = 2;
	snprintf(c.radio[0].name, MED_NAME_MAX, "ap");
	snprintf(c.radio[1].name, MED_NAME_MAX, "sta1");
	snprintf(c.radio[1].path, MED_NAME_MAX, "path1");
	c.radio[1].base_loss_db = 50;
	c.queue_limit = qlimit;
	c.ampdu = ampdu;
	c.seed = 42;
	memset(r, 0, sizeof(*r));
	r->m = m;
	assert_int_equal(med_init(m, &c, &ops, 0, err, sizeof(err)), 0);
	med_radio_set(m, 0, hw0, vif0);
	med_radio_set(m, 1, hw1, vif1);
}

/* A QoS data frame sta1 -> AP of len bytes, TID tid. */
static size_t qos_frame(uint8_t *b, size_t len, int tid)
{
	memset(b, 0, len);
	b[0] = 0x88; /* data, QoS data subtype */
	b[1] = 0x01; /* ToDS */
	memcpy(b + 4, vif0, 6);
	memcpy(b + 10, vif1, 6);
	memcpy(b + 16, vif0, 6);
	b[24] = (uint8_t)tid;
	return len;
}

static const struct med_try mcs7[MED_NRATES] = {
    {7, 3, MED_RC_MCS}, {4, 3, MED_RC_MCS}, {0, 3, MED_RC_MCS}, {-1, 0, 0}};

static void run_until_idle(struct medium *m)
{
	int64_t d;
	int guard = 0;
	while ((d = med_next_deadline(m)) >= 0 && guard++ < 100000)
		med_advance(m, d);
}

static void test_queue_bounds(void **state)
{
	static struct medium m;
	struct rec r;
	uint8_t b[1600];
	(void)state;

	setup_medium(&m, &r, 5, false);
	for (int i = 0; i < 8; i++) {
		int rc = med_frame_in(&m, 0, 1, b, qos_frame(b, 1500, 0), 1,
				      2437, (uint64_t)i, mcs7);
		assert_int_equal(rc, i < 5 ? 0 : 1);
	}
	/* The overflow got its (failed, untried) status at once. */
	assert_int_equal(m.radio[1].queued, 5);
	assert_int_equal(r.status, 3);
	assert_int_equal(r.drops, 3);
	assert_int_equal(r.acked, 0);
	assert_int_equal(m.radio[1].tx.drops, 3);
	run_until_idle(&m);
	assert_int_equal(m.radio[1].queued, 0);
	assert_int_equal(r.delivered, 5);
	assert_int_equal(r.acked, 5);
	assert_int_equal(r.status, 8);
	/* 50 dB loss at 20 dBm: -30 dBm at the AP. */
	assert_int_equal(r.last_signal, -30);
	assert_int_equal(m.radio[1].tx.frames, 5);
	assert_int_equal(m.radio[0].rx.frames, 5);
	med_free(&m);
}

/* With the radios' crypto engine (hwsim hwcrypto) a protected frame
 * reaches the medium without its MIC: -m puts those bytes back on air,
 * and only on protected frames. */
static void test_mic_bytes_on_protected_frames(void **state)
{
	static struct medium m;
	struct rec r;
	uint8_t b[1600];
	int64_t air[3];
	(void)state;

	for (int k = 0; k < 3; k++) {
		setup_medium(&m, &r, 5, false);
		m.conf.mic_bytes = k ? 8 : 0;
		/* 1516 bytes: the MIC's 64 bits need one more symbol */
		qos_frame(b, 1516, 0);
		if (k == 2)
			b[1] |= 0x40; /* Protected */
		assert_int_equal(
		    med_frame_in(&m, 0, 1, b, 1516, 1, 2437, 1, mcs7), 0);
		run_until_idle(&m);
		assert_int_equal(r.acked, 1);
		air[k] = m.radio[1].tx.airtime_us;
		med_free(&m);
	}
	struct mdl_rate ht7;

	assert_int_equal(mdl_rate_ht(7, 20, false, &ht7), 0);
	/* Same seed, same backoff: only the PPDU differs, by the MIC. */
	assert_true(air[0] == air[1]);
	assert_int_equal(air[2] - air[0],
			 mdl_ppdu_us(&ht7, MDL_BAND_2G, 1516 + 4 + 8) -
			     mdl_ppdu_us(&ht7, MDL_BAND_2G, 1516 + 4));
	assert_int_equal(air[2] - air[0], 4);
}

static void test_unreachable_uses_all_retries(void **state)
{
	static struct medium m;
	struct rec r;
	uint8_t b[1600];
	(void)state;

	setup_medium(&m, &r, 10, false);
	m.path[med_path_find(&m, "path1")].atten_db = 150; /* SNR < 0 */
	assert_int_equal(
	    med_frame_in(&m, 0, 1, b, qos_frame(b, 1500, 0), 1, 2437, 1, mcs7),
	    0);
	run_until_idle(&m);
	assert_int_equal(r.delivered, 0);
	assert_int_equal(r.status, 1);
	assert_int_equal(r.acked, 0);
	assert_int_equal(r.used_count, 9); /* 3 + 3 + 3 attempts */
	assert_int_equal(m.radio[1].tx.retries, 8);
	assert_int_equal(m.radio[1].tx.drops, 1);
	med_free(&m);
}

static void test_ampdu_grouping(void **state)
{
	static struct medium m;
	struct rec r;
	uint8_t b[1600];
	size_t lens[10];
	(void)state;

	for (int on = 0; on <= 1; on++) {
		setup_medium(&m, &r, 100, on);
		for (int i = 0; i < 10; i++) {
			lens[i] = 1500 + 4;
			med_frame_in(&m, 0, 1, b, qos_frame(b, 1500, 0), 1,
				     2437, (uint64_t)i, mcs7);
		}
		/* A frame of another TID does not join the aggregate. */
		med_frame_in(&m, 0, 1, b, qos_frame(b, 1500, 3), 1, 2437, 99,
			     mcs7);
		int64_t start = med_next_deadline(&m);
		assert_true(start > 0);
		med_advance(&m, start);
		int64_t end = med_next_deadline(&m);
		struct mdl_rate m7 = ht(7, 20, false);
		int expect = on ? mdl_ppdu_us(&m7, MDL_BAND_2G,
					      mdl_ampdu_bytes(lens, 10)) +
				      10 + mdl_blockack_us(&m7, MDL_BAND_2G)
				: mdl_ppdu_us(&m7, MDL_BAND_2G, 1504) + 10 +
				      mdl_ack_us(&m7, MDL_BAND_2G);
		assert_int_equal((end - start) / 1000, expect);
		run_until_idle(&m);
		assert_int_equal(r.delivered, 11);
		assert_int_equal(m.radio[1].tx.ppdus, on ? 2 : 11);
		assert_int_equal(m.radio[1].tx.ampdu_subframes, on ? 10 : 0);
		/* Each frame's tx status carries its share of the airtime
		 * (what the hwsim patch charges the station); the shares add
		 * up to what the medium counted. */
		assert_true(r.airtime_us > 0);
		assert_int_equal(r.airtime_us, m.radio[1].tx.airtime_us);
		/* Delivery happens at the scheduled end, not before. */
		assert_true(r.last_deliver_ns >= end);
		med_free(&m);
	}
}

/* A rate-control probe in the middle of a flow ends the aggregate: the
 * frames of one receiver and TID are delivered in the order they came. */
static void test_ampdu_keeps_flow_order(void **state)
{
	static struct medium m;
	struct rec r;
	uint8_t b[1600];
	static const struct med_try mcs4[MED_NRATES] = {
	    {4, 3, MED_RC_MCS}, {0, 3, MED_RC_MCS}, {-1, 0, 0}, {-1, 0, 0}};
	(void)state;

	setup_medium(&m, &r, 100, true);
	for (int i = 0; i < 8; i++)
		med_frame_in(&m, 0, 1, b, qos_frame(b, 1500, 0), 1, 2437,
			     (uint64_t)i, i == 3 ? mcs4 : mcs7);
	run_until_idle(&m);
	assert_int_equal(r.delivered, 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(r.order[i], (uint64_t)i);
	/* 0-2 together, the probe alone, 4-7 together. */
	assert_int_equal(m.radio[1].tx.ppdus, 3);
	assert_int_equal(m.radio[1].tx.ampdu_subframes, 7);
	med_free(&m);
}

/* Voice (TID 6, 7) is never aggregated: no block-ack session on VO. The
 * per-AC counters say which access category won each exchange. */
static void test_ampdu_not_on_voice(void **state)
{
	static struct medium m;
	struct rec r;
	uint8_t b[1600];
	(void)state;

	setup_medium(&m, &r, 100, true);
	for (int i = 0; i < 6; i++)
		med_frame_in(&m, 0, 1, b, qos_frame(b, 1500, 6), 1, 2437,
			     (uint64_t)i, mcs7);
	for (int i = 0; i < 4; i++)
		med_frame_in(&m, 0, 1, b, qos_frame(b, 1500, 5), 1, 2437,
			     (uint64_t)(10 + i), mcs7);
	run_until_idle(&m);
	assert_int_equal(r.delivered, 10);
	assert_int_equal(m.radio[1].tx.ac_ppdus[MDL_AC_VO], 6);
	assert_int_equal(m.radio[1].tx.ac_ppdus[MDL_AC_VI], 1);
	assert_int_equal(m.radio[1].tx.ac_ppdus[MDL_AC_BE], 0);
	assert_int_equal(m.radio[1].tx.ampdu_subframes, 4);
	assert_int_equal(m.radio[1].tx.ac_airtime_us[MDL_AC_VO] +
			     m.radio[1].tx.ac_airtime_us[MDL_AC_VI],
			 m.radio[1].tx.airtime_us);
	med_free(&m);
}

static void test_lag_histogram(void **state)
{
	struct med_lag l;
	(void)state;
	memset(&l, 0, sizeof(l));
	for (int i = 0; i < 98; i++)
		med_lag_record(&l, 10 * 1000); /* 10 µs */
	med_lag_record(&l, 500 * 1000);
	med_lag_record(&l, 5 * 1000 * 1000);
	assert_int_equal(med_lag_quantile(&l, 0.5), 11 * 1000);
	assert_int_equal(med_lag_quantile(&l, 0.99), 501 * 1000);
	assert_int_equal(med_lag_quantile(&l, 1.0), 5 * 1000 * 1000);
	assert_int_equal(l.max_ns, 5 * 1000 * 1000);
}

/* Every name mdl_rate_name gives parses back to the same rate; others
 * do not parse. */
static void test_rate_parse(void **state)
{
	struct mdl_rate r;

	(void)state;
	assert_int_equal(mdl_rate_parse("54M", MDL_BAND_2G, &r), 0);
	assert_int_equal(r.phy, MDL_OFDM);
	assert_int_equal(mdl_rate_kbps(&r), 54000);
	assert_int_equal(mdl_rate_parse("5.5M", MDL_BAND_2G, &r), 0);
	assert_int_equal(r.phy, MDL_DSSS);
	assert_int_equal(mdl_rate_parse("MCS7/40/SGI", MDL_BAND_2G, &r), 0);
	assert_int_equal(r.mcs, 7);
	assert_int_equal(r.width_mhz, 40);
	assert_true(r.sgi);
	assert_int_equal(mdl_rate_kbps(&r), 150000);
	assert_int_equal(mdl_rate_parse("1M", MDL_BAND_5G, &r), -1);
	assert_int_equal(mdl_rate_parse("MCS16/20", MDL_BAND_2G, &r), -1);
	assert_int_equal(mdl_rate_parse("54", MDL_BAND_2G, &r), -1);
	assert_int_equal(mdl_rate_parse("", MDL_BAND_2G, &r), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ppdu_ofdm_54),
	    cmocka_unit_test(test_rate_parse),
	    cmocka_unit_test(test_ampdu_keeps_flow_order),
	    cmocka_unit_test(test_ampdu_not_on_voice),
	    cmocka_unit_test(test_ppdu_dsss),
	    cmocka_unit_test(test_ppdu_ht),
	    cmocka_unit_test(test_ack_and_attempt),
	    cmocka_unit_test(test_cw_doubling),
	    cmocka_unit_test(test_ampdu_airtime),
	    cmocka_unit_test(test_per),
	    cmocka_unit_test(test_link_budget),
	    cmocka_unit_test(test_queue_bounds),
	    cmocka_unit_test(test_mic_bytes_on_protected_frames),
	    cmocka_unit_test(test_unreachable_uses_all_retries),
	    cmocka_unit_test(test_ampdu_grouping),
	    cmocka_unit_test(test_lag_histogram),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
