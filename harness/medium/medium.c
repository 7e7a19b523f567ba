/* Simulated medium (see medium.h; formulas in README.md). */
#include "medium.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_US 1000LL

static uint64_t rng_next(struct medium *m)
{
	/* xorshift64*: reproducible per seed, no libc state. */
	uint64_t x = m->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	m->rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static double rng_unit(struct medium *m)
{
	return (double)(rng_next(m) >> 11) / 9007199254740992.0; /* [0,1) */
}

static int rng_upto(struct medium *m, int n) /* uniform 0..n */
{
	return (int)(rng_next(m) % (uint64_t)(n + 1));
}

void med_conf_defaults(struct med_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->tx_power_dbm = 20.0;
	c->ampdu = true;
	c->ampdu_max = 32;
	c->ampdu_max_us = 4000;
	c->time_scale = 1;
	/* hwsim itself drops beyond 200 frames pending per radio. */
	c->queue_limit = 200;
	c->seed = 1;
}

int med_init(struct medium *m, const struct med_conf *conf,
	     const struct med_ops *ops, int64_t now_ns, char *err,
	     size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (conf->nradios < 0 || conf->nradios > MED_MAX_RADIOS) {
		snprintf(err, errlen, "%d radios configured, at most %d",
			 conf->nradios, MED_MAX_RADIOS);
		return -1;
	}
	if (conf->ampdu_max < 1 || conf->ampdu_max > MED_AMPDU_MAX) {
		snprintf(err, errlen, "A-MPDU size %d outside 1..%d",
			 conf->ampdu_max, MED_AMPDU_MAX);
		return -1;
	}
	if (conf->queue_limit < 1) {
		snprintf(err, errlen, "queue limit %d is not positive",
			 conf->queue_limit);
		return -1;
	}
	m->conf = *conf;
	m->ops = *ops;
	m->radio_end = conf->nradios;
	m->rng = conf->seed ? conf->seed : 0x9E3779B97F4A7C15ULL;
	for (int i = 0; i < conf->nradios; i++) {
		const char *p = conf->radio[i].path;
		if (!p[0] || med_path_find(m, p) >= 0)
			continue;
		snprintf(m->path[m->npaths].name, MED_NAME_MAX, "%s", p);
		m->path[m->npaths].atten_db = 0;
		m->npaths++;
	}
	for (int i = 0; i < MED_MAX_CHANS; i++)
		m->chan[i].start_ns = -1;
	m->stats_since_ns = m->now_ns = now_ns;
	return 0;
}

static void free_queue(struct med_queue *q)
{
	struct med_frame *f = q->head, *n;

	for (; f; f = n) {
		n = f->next;
		free(f);
	}
	q->head = q->tail = NULL;
	q->len = 0;
}

void med_free(struct medium *m)
{
	for (int r = 0; r < MED_MAX_RADIOS; r++)
		for (int a = 0; a < MDL_NUM_AC; a++)
			free_queue(&m->radio[r].q[a]);
	for (int c = 0; c < m->nchans; c++) {
		struct med_txop *t = &m->chan[c].txop;
		for (int i = 0; t->active && i < t->n; i++)
			free(t->f[i]);
		t->active = false;
	}
}

int med_path_find(const struct medium *m, const char *name)
{
	for (int i = 0; i < m->npaths; i++)
		if (strcmp(m->path[i].name, name) == 0)
			return i;
	return -1;
}

/* ---- radios and addresses ------------------------------------------- */

int med_radio_set(struct medium *m, int idx, const uint8_t hwaddr[6],
		  const uint8_t vif[6])
{
	if (idx < 0 || idx >= MED_MAX_RADIOS)
		return -1;
	m->radio[idx].known = true;
	if (idx >= m->radio_end)
		m->radio_end = idx + 1;
	memcpy(m->radio[idx].hwaddr, hwaddr, 6);
	if (vif)
		med_radio_add_vif(m, idx, vif);
	return 0;
}

int med_radio_of_hwaddr(struct medium *m, const uint8_t a[6], bool create)
{
	int idx;

	for (int i = 0; i < m->radio_end; i++)
		if (m->radio[i].known && memcmp(m->radio[i].hwaddr, a, 6) == 0)
			return i;
	if (!create)
		return -1;
	/* hwsim's default address of radio k: 02:00:00:HH:LL:00 with 0x40
	 * set in the first octet for the medium address (k = HH<<8 | LL). */
	idx = a[3] << 8 | a[4];
	if ((a[0] & ~0x40) == 0x02 && a[1] == 0 && a[2] == 0 && a[5] == 0 &&
	    idx < MED_MAX_RADIOS && !m->radio[idx].known) {
		uint8_t vif[6];
		memcpy(vif, a, 6);
		vif[0] &= ~0x40;
		med_radio_set(m, idx, a, vif);
		return idx;
	}
	/* Anything else: the first slot beyond the configured radios. */
	for (int i = m->conf.nradios; i < MED_MAX_RADIOS; i++) {
		if (!m->radio[i].known) {
			med_radio_set(m, i, a, NULL);
			return i;
		}
	}
	return -1;
}

void med_radio_add_vif(struct medium *m, int radio, const uint8_t a[6])
{
	struct med_radio *r = &m->radio[radio];

	if (a[0] & 1)
		return;
	for (int i = 0; i < r->nvif; i++)
		if (memcmp(r->vif[i], a, 6) == 0)
			return;
	/* An address belongs to one radio: take it from any other. */
	for (int o = 0; o < m->radio_end; o++)
		if (o != radio)
			med_radio_del_vif(m, o, a);
	if (r->nvif == MED_MAX_VIFS) /* forget the oldest */
		memmove(r->vif[0], r->vif[1], 6 * (MED_MAX_VIFS - 1)),
		    r->nvif--;
	memcpy(r->vif[r->nvif++], a, 6);
}

void med_radio_del_vif(struct medium *m, int radio, const uint8_t a[6])
{
	struct med_radio *r = &m->radio[radio];

	for (int i = 0; i < r->nvif; i++) {
		if (memcmp(r->vif[i], a, 6) == 0) {
			memmove(r->vif[i], r->vif[i + 1],
				6 * (size_t)(r->nvif - i - 1));
			r->nvif--;
			return;
		}
	}
}

int med_radio_of_vif(const struct medium *m, const uint8_t a[6])
{
	for (int r = 0; r < m->radio_end; r++)
		for (int i = 0; i < m->radio[r].nvif; i++)
			if (memcmp(m->radio[r].vif[i], a, 6) == 0)
				return r;
	return -1;
}

/* Loss between the AP (radio 0) and radio r: base loss + attenuator. */
static double loss_to_ap(const struct medium *m, int r)
{
	const struct med_radio_conf *c;
	double loss;
	int p;

	if (r <= 0 || r >= m->conf.nradios)
		return 0;
	c = &m->conf.radio[r];
	loss = c->base_loss_db;
	p = c->path[0] ? med_path_find(m, c->path) : -1;
	if (p >= 0)
		loss += m->path[p].atten_db;
	return loss;
}

double med_link_loss_db(const struct medium *m, int a, int b)
{
	/* Station to station: both paths, through the AP's position. */
	return loss_to_ap(m, a) + loss_to_ap(m, b);
}

int med_try_rate(const struct med_try *t, enum mdl_band band,
		 struct mdl_rate *out)
{
	int width = t->flags & MED_RC_40MHZ ? 40 : 20;
	bool sgi = t->flags & MED_RC_SHORT_GI;

	if (t->idx < 0)
		return -1;
	if (t->flags & MED_RC_VHT_MCS) {
		/* VHT is approximated by the HT MCS of the same modulation
		 * and stream count (idx = NSS << 4 | MCS). */
		int mcs = t->idx & 0xf, nss = (t->idx >> 4) & 0xf;
		mcs = mcs > 7 ? 7 : mcs;
		nss = nss < 1 ? 1 : nss > 2 ? 2 : nss;
		return mdl_rate_ht(mcs + 8 * (nss - 1), width, sgi, out);
	}
	if (t->flags & MED_RC_MCS)
		return mdl_rate_ht(t->idx, width, sgi, out);
	return mdl_rate_legacy(band, t->idx, t->flags & MED_RC_SHORT_PREAMBLE,
			       out);
}

/* ---- channels and queues --------------------------------------------- */

static struct med_chan *chan_of(struct medium *m, unsigned freq)
{
	for (int i = 0; i < m->nchans; i++)
		if (m->chan[i].freq == freq)
			return &m->chan[i];
	if (m->nchans == MED_MAX_CHANS)
		return NULL;
	struct med_chan *c = &m->chan[m->nchans++];
	memset(c, 0, sizeof(*c));
	c->freq = freq;
	c->idle_ns = m->now_ns;
	c->start_ns = -1;
	return c;
}

/* Time at which queue q would win: backoff counts down after AIFS of idle
 * medium, from when q got its frame or the medium went idle. */
static int64_t ready_ns(const struct med_chan *c, const struct med_queue *q,
			int ac)
{
	enum mdl_band band = mdl_band_of_freq(c->freq);
	int64_t from = q->count_ns > c->idle_ns ? q->count_ns : c->idle_ns;

	return from + (mdl_aifs_us((enum mdl_ac)ac, band) +
		       (int64_t)q->backoff * mdl_slot_us(band)) *
			  NS_PER_US;
}

/* Picks the contention winner of an idle channel. Ties (equal slot) go to
 * the first found; collisions are not modelled. */
static void chan_schedule(struct medium *m, struct med_chan *c)
{
	c->start_ns = -1;
	if (c->txop.active)
		return;
	for (int r = 0; r < m->radio_end; r++) {
		struct med_radio *rd = &m->radio[r];
		if (!rd->queued)
			continue;
		for (int a = 0; a < MDL_NUM_AC; a++) {
			struct med_queue *q = &rd->q[a];
			if (!q->head || q->head->freq != c->freq)
				continue;
			int64_t t = ready_ns(c, q, a);
			if (c->start_ns < 0 || t < c->start_ns) {
				c->start_ns = t;
				c->start_radio = r;
				c->start_ac = a;
			}
		}
	}
}

static void parse_frame(struct med_frame *f)
{
	const uint8_t *d = f->data;
	unsigned fc = d[0] | d[1] << 8;
	unsigned type = (fc >> 2) & 3, subtype = (fc >> 4) & 0xf;

	f->group = d[4] & 1;
	f->tid = -1;
	f->ac = type == 0 ? MDL_AC_VO : MDL_AC_BE; /* mac80211: mgmt on VO */
	if (type == 2 && (subtype & 8)) {
		size_t hdr = (fc & 0x0300) == 0x0300 ? 30 : 24;
		if (f->len >= hdr + 2) {
			f->tid = d[hdr] & 7;
			f->ac = mdl_ac_of_tid(f->tid);
			/* Ack policy "no ack" (bits 5-6 = 01). */
			if (((d[hdr] >> 5) & 3) == 1)
				f->hwflags |= MED_TX_CTL_NO_ACK;
		}
	}
	/* mac80211's rate control starts no block-ack session on VO
	 * (minstrel_ht), so voice frames go out one per exchange. */
	f->aggr_ok = f->tid >= 0 && f->ac != MDL_AC_VO && !f->group &&
		     !(f->hwflags & MED_TX_CTL_NO_ACK) &&
		     (f->tries[0].flags & (MED_RC_MCS | MED_RC_VHT_MCS));
}

static void report_drop(struct medium *m, const struct med_frame *f)
{
	struct med_try used[MED_NRATES];

	/* Not sent at all: no rate was tried, so rate control learns
	 * nothing wrong about the rate. */
	for (int i = 0; i < MED_NRATES; i++)
		used[i] = (struct med_try){-1, 0, 0};
	if (m->ops.tx_status)
		m->ops.tx_status(m->ops.ctx, f, false, used, 0);
}

int med_frame_in(struct medium *m, int64_t now_ns, int tx, const uint8_t *data,
		 size_t len, uint32_t hwflags, unsigned freq, uint64_t cookie,
		 const struct med_try tries[MED_NRATES])
{
	struct med_radio *r;
	struct med_frame *f;
	struct med_queue *q;
	struct med_chan *c;

	if (tx < 0 || tx >= MED_MAX_RADIOS || len < 16)
		return -1;
	if (now_ns > m->now_ns)
		m->now_ns = now_ns;
	r = &m->radio[tx];
	f = malloc(sizeof(*f) + len);
	if (!f)
		return -1;
	memset(f, 0, sizeof(*f));
	memcpy(f->data, data, len);
	f->len = len;
	/* + FCS; + the MIC a hardware crypto engine appends (Protected) */
	f->psdu_len =
	    len + 4 + ((data[1] & 0x40) ? (size_t)m->conf.mic_bytes : 0);
	f->tx = tx;
	f->freq = freq;
	f->hwflags = hwflags;
	f->cookie = cookie;
	f->enq_ns = now_ns;
	memcpy(f->tries, tries, sizeof(f->tries));
	parse_frame(f);
	m->frames_in++;
	/* addr2 is the sender's interface address. */
	med_radio_add_vif(m, tx, data + 10);
	f->rx = f->group ? -1 : med_radio_of_vif(m, data + 4);
	if (f->rx == tx)
		f->rx = -1;
	r->freq = freq;
	c = chan_of(m, freq);
	if (!c) {
		free(f);
		return -1;
	}
	if (r->queued >= m->conf.queue_limit) {
		r->tx.drops++;
		if (f->rx >= 0)
			m->radio[f->rx].rx.drops++;
		report_drop(m, f);
		free(f);
		return 1;
	}
	q = &r->q[f->ac];
	if (!q->head) {
		q->head = q->tail = f;
		q->count_ns = now_ns;
		q->backoff = rng_upto(m, mdl_cw((enum mdl_ac)f->ac, 0));
	} else {
		q->tail->next = f;
		q->tail = f;
	}
	q->len++;
	r->queued++;
	chan_schedule(m, c);
	return 0;
}

/* ---- transmissions --------------------------------------------------- */

static bool same_first_rate(const struct med_frame *a,
			    const struct med_frame *b)
{
	return a->tries[0].idx == b->tries[0].idx &&
	       a->tries[0].flags == b->tries[0].flags;
}

static size_t psdu_of(const struct med_txop *t, const bool *pending, bool ampdu)
{
	size_t lens[MED_AMPDU_MAX];
	int n = 0;

	for (int i = 0; i < t->n; i++)
		if (pending[i])
			lens[n++] = t->f[i]->psdu_len;
	return ampdu ? mdl_ampdu_bytes(lens, n) : lens[0];
}

/* Takes the winner's frames off its queue: the head, and with A-MPDU on
 * the following frames of the same receiver and TID at the same rate,
 * within the count and airtime limits. */
static void collect(struct medium *m, struct med_queue *q, struct med_txop *t,
		    enum mdl_band band)
{
	struct med_frame *h = q->head, **pp;
	struct mdl_rate rate;
	size_t lens[MED_AMPDU_MAX];

	q->head = h->next;
	h->next = NULL;
	t->f[0] = h;
	t->n = 1;
	lens[0] = h->psdu_len;
	if (!m->conf.ampdu || !h->aggr_ok ||
	    med_try_rate(&h->tries[0], band, &rate) < 0)
		goto done;
	pp = &q->head;
	while (*pp && t->n < m->conf.ampdu_max) {
		struct med_frame *f = *pp;
		if (f->rx != h->rx || f->tid != h->tid || f->freq != h->freq) {
			pp = &f->next; /* another flow: may stay behind */
			continue;
		}
		/* The same receiver and TID at another rate (a rate-control
		 * probe) ends the aggregate: taking the frames behind it would
		 * reorder the flow, which TCP takes for loss. */
		if (!f->aggr_ok || !same_first_rate(f, h))
			break;
		lens[t->n] = f->psdu_len;
		size_t bytes = mdl_ampdu_bytes(lens, t->n + 1);
		if (bytes > 65535 ||
		    mdl_ppdu_us(&rate, band, bytes) > m->conf.ampdu_max_us)
			break;
		*pp = f->next;
		f->next = NULL;
		t->f[t->n++] = f;
	}
done:
	q->tail = NULL;
	for (struct med_frame *f = q->head; f; f = f->next)
		q->tail = f;
	q->len -= t->n;
	m->radio[h->tx].queued -= t->n;
}

static double link_snr(const struct medium *m, int a, int b,
		       const struct mdl_rate *r)
{
	double sig =
	    mdl_signal_dbm(m->conf.tx_power_dbm, 0, med_link_loss_db(m, a, b));
	return mdl_snr_db(sig, r->width_mhz);
}

static int link_signal(const struct medium *m, int a, int b)
{
	return (int)lround(
	    mdl_signal_dbm(m->conf.tx_power_dbm, 0, med_link_loss_db(m, a, b)));
}

/* Starts the winning queue's transmission at c->start_ns: decides every
 * attempt now (PER draws, backoff per retry) and schedules the end. */
static void txop_start(struct medium *m, struct med_chan *c)
{
	enum mdl_band band = mdl_band_of_freq(c->freq);
	int ri = c->start_radio, ac = c->start_ac;
	struct med_radio *rd = &m->radio[ri];
	struct med_queue *q = &rd->q[ac];
	struct med_txop *t = &c->txop;
	int64_t start = c->start_ns, dur_us = 0, air_us = 0;
	bool pending[MED_AMPDU_MAX];
	int npending, attempt = 0;
	struct med_frame *h;
	bool acked_type, ampdu;

	/* Queues that lost: their backoff froze after the slots that
	 * elapsed before the winner started. */
	for (int r = 0; r < m->radio_end; r++) {
		if (!m->radio[r].queued)
			continue;
		for (int a = 0; a < MDL_NUM_AC; a++) {
			struct med_queue *o = &m->radio[r].q[a];
			if (!o->head || o == q || o->head->freq != c->freq)
				continue;
			int64_t from =
			    o->count_ns > c->idle_ns ? o->count_ns : c->idle_ns;
			int64_t idle =
			    start - from -
			    mdl_aifs_us((enum mdl_ac)a, band) * NS_PER_US;
			int64_t slots =
			    idle > 0 ? idle / (mdl_slot_us(band) * NS_PER_US)
				     : 0;
			o->backoff -=
			    slots > o->backoff ? o->backoff : (int)slots;
		}
	}

	memset(t, 0, sizeof(*t));
	t->active = true;
	t->radio = ri;
	t->ac = ac;
	t->start_ns = start;
	collect(m, q, t, band);
	h = t->f[0];
	ampdu = t->n > 1;
	acked_type = !h->group && !(h->hwflags & MED_TX_CTL_NO_ACK);
	npending = t->n;
	for (int i = 0; i < t->n; i++) {
		pending[i] = true;
		for (int k = 0; k < MED_NRATES; k++)
			t->used[i][k] = (struct med_try){-1, 0, 0};
	}

	for (int s = 0; s < MED_NRATES && npending > 0; s++) {
		struct med_try *tr = &h->tries[s];
		struct mdl_rate rate;
		if (tr->idx < 0)
			break;
		if (med_try_rate(tr, band, &rate) < 0)
			break;
		int count = acked_type ? tr->count : 1;
		for (int j = 0; j < count && npending > 0; j++, attempt++) {
			size_t psdu = psdu_of(t, pending, ampdu);
			int ex = mdl_attempt_us(&rate, band, (enum mdl_ac)ac, 0,
						psdu, acked_type, ampdu) -
				 mdl_aifs_us((enum mdl_ac)ac, band);
			/* The first attempt's AIFS + backoff were spent in
			 * contention; each retry waits again with CW
			 * doubled. */
			if (attempt > 0)
				dur_us +=
				    mdl_aifs_us((enum mdl_ac)ac, band) +
				    (int64_t)rng_upto(
					m, mdl_cw((enum mdl_ac)ac, attempt)) *
					mdl_slot_us(band);
			dur_us += ex;
			air_us += ex;
			for (int i = 0; i < t->n; i++) {
				if (!pending[i])
					continue;
				t->used[i][s].idx = tr->idx;
				t->used[i][s].flags = tr->flags;
				t->used[i][s].count++;
				if (!acked_type)
					continue;
				int rx = t->f[i]->rx;
				double per =
				    rx < 0 ? 1.0
					   : mdl_per(&rate,
						     link_snr(m, ri, rx, &rate),
						     t->f[i]->psdu_len);
				if (rng_unit(m) >= per) {
					pending[i] = false;
					t->ok[i] = true;
					npending--;
				}
			}
		}
		rd->tx_rate = rate;
		rd->has_tx_rate = true;
		if (h->rx >= 0) {
			m->radio[h->rx].rx_rate = rate;
			m->radio[h->rx].has_rx_rate = true;
		}
	}
	if (attempt == 0) /* no usable rate: one attempt at the lowest */
		dur_us = air_us = mdl_ppdu_us(
		    &(struct mdl_rate){MDL_OFDM, 60, 0, 20, false, false}, band,
		    h->psdu_len);

	t->end_ns = start + dur_us * NS_PER_US;
	t->air_us = air_us;
	c->busy_us += air_us;
	c->start_ns = -1;
	rd->tx.airtime_us += (uint64_t)air_us;
	rd->tx.ppdus++;
	rd->tx.ac_ppdus[ac]++;
	rd->tx.ac_airtime_us[ac] += (uint64_t)air_us;
	if (ampdu)
		rd->tx.ampdu_subframes += (uint64_t)t->n;
	if (h->rx >= 0)
		m->radio[h->rx].rx.airtime_us += (uint64_t)air_us;
	/* New backoff for the winner's next frame, from CWmin. */
	q->backoff = rng_upto(m, mdl_cw((enum mdl_ac)ac, 0));
	q->count_ns = t->end_ns;
}

static void count_frame(struct med_counters *k, const struct med_frame *f,
			const struct med_try *used, bool dropped)
{
	int n = 0;

	for (int s = 0; s < MED_NRATES; s++)
		n += used[s].count;
	k->frames++;
	k->bytes += f->len;
	if (n > 1)
		k->retries += (uint64_t)(n - 1);
	if (dropped)
		k->drops++;
}

/* End of a transmission: deliveries, then tx status, at the end time. */
static void txop_end(struct medium *m, struct med_chan *c)
{
	enum mdl_band band = mdl_band_of_freq(c->freq);
	struct med_txop *t = &c->txop;
	int tx = t->radio;
	int64_t psdu = 0, given_us = 0;

	for (int i = 0; i < t->n; i++)
		psdu += (int64_t)t->f[i]->psdu_len;
	for (int i = 0; i < t->n; i++) {
		struct med_frame *f = t->f[i];
		/* The last subframe takes the rounding remainder, so the
		 * shares add up to the exchange exactly. */
		int64_t share = i == t->n - 1
				    ? t->air_us - given_us
				    : t->air_us * (int64_t)f->psdu_len / psdu;
		given_us += share;
		f->airtime_us = (uint32_t)share;
		bool acked_type = !f->group &&
				  !(f->hwflags & MED_TX_CTL_NO_ACK) &&
				  f->rx >= 0;
		int last = 0;
		struct mdl_rate rate = {MDL_OFDM, 60, 0, 20, false, false};

		for (int s = 0; s < MED_NRATES; s++)
			if (t->used[i][s].count)
				last = s;
		med_try_rate(&t->used[i][last], band, &rate);
		if (acked_type) {
			if (t->ok[i] && m->ops.deliver)
				m->ops.deliver(m->ops.ctx, f->rx, f,
					       link_signal(m, tx, f->rx),
					       mdl_rx_rate_idx(band, &rate));
			count_frame(&m->radio[f->rx].rx, f, t->used[i],
				    !t->ok[i]);
		} else {
			/* Group, no-ack or unknown receiver: everyone on the
			 * channel may hear it, each with its own PER. */
			for (int r = 0; r < m->radio_end; r++) {
				if (r == tx || !m->radio[r].known ||
				    (f->rx >= 0 && r != f->rx))
					continue;
				double per =
				    mdl_per(&rate, link_snr(m, tx, r, &rate),
					    f->psdu_len);
				if (rng_unit(m) >= per && m->ops.deliver)
					m->ops.deliver(
					    m->ops.ctx, r, f,
					    link_signal(m, tx, r),
					    mdl_rx_rate_idx(band, &rate));
			}
		}
		count_frame(&m->radio[tx].tx, f, t->used[i],
			    acked_type && !t->ok[i]);
		if (m->ops.tx_status)
			m->ops.tx_status(
			    m->ops.ctx, f, acked_type && t->ok[i], t->used[i],
			    f->rx >= 0 ? link_signal(m, tx, f->rx) : 0);
		free(f);
	}
	c->idle_ns = t->end_ns;
	t->active = false;
	t->n = 0;
	chan_schedule(m, c);
}

int64_t med_next_deadline(const struct medium *m)
{
	int64_t best = -1;

	for (int i = 0; i < m->nchans; i++) {
		const struct med_chan *c = &m->chan[i];
		int64_t t = c->txop.active ? c->txop.end_ns : c->start_ns;
		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	return best;
}

int med_advance(struct medium *m, int64_t now_ns)
{
	int events = 0;
	bool progress = true;

	if (now_ns > m->now_ns)
		m->now_ns = now_ns;
	while (progress) {
		progress = false;
		for (int i = 0; i < m->nchans; i++) {
			struct med_chan *c = &m->chan[i];
			if (c->txop.active && c->txop.end_ns <= now_ns) {
				med_lag_record(&m->lag,
					       now_ns - c->txop.end_ns);
				txop_end(m, c);
				events++;
				progress = true;
			}
			if (!c->txop.active && c->start_ns >= 0 &&
			    c->start_ns <= now_ns) {
				med_lag_record(&m->lag, now_ns - c->start_ns);
				txop_start(m, c);
				events++;
				progress = true;
			}
		}
	}
	return events;
}

void med_reset_stats(struct medium *m, int64_t now_ns)
{
	for (int r = 0; r < MED_MAX_RADIOS; r++) {
		memset(&m->radio[r].tx, 0, sizeof(m->radio[r].tx));
		memset(&m->radio[r].rx, 0, sizeof(m->radio[r].rx));
	}
	for (int i = 0; i < m->nchans; i++)
		m->chan[i].busy_us = 0;
	memset(&m->lag, 0, sizeof(m->lag));
	m->frames_in = 0;
	m->stats_since_ns = now_ns;
}

/* Lag buckets: 1 µs wide up to 1 ms, 100 µs wide up to 100 ms, then one
 * overflow bucket. */
static int lag_bucket(int64_t lag_ns)
{
	int64_t us = lag_ns < 0 ? 0 : lag_ns / 1000;

	if (us < 1000)
		return (int)us;
	if (us < 100000)
		return 1000 + (int)((us - 1000) / 100);
	return MED_LAG_BUCKETS - 1;
}

static int64_t bucket_upper_ns(int b)
{
	if (b < 1000)
		return (int64_t)(b + 1) * 1000;
	if (b < MED_LAG_BUCKETS - 1)
		return (1000 + (int64_t)(b - 1000 + 1) * 100) * 1000;
	return INT64_MAX;
}

void med_lag_record(struct med_lag *l, int64_t lag_ns)
{
	l->n++;
	l->bucket[lag_bucket(lag_ns)]++;
	if (lag_ns > l->max_ns)
		l->max_ns = lag_ns;
}

int64_t med_lag_quantile(const struct med_lag *l, double q)
{
	uint64_t want, seen = 0;

	if (!l->n)
		return 0;
	want = (uint64_t)ceil(q * (double)l->n);
	if (want < 1)
		want = 1;
	for (int b = 0; b < MED_LAG_BUCKETS; b++) {
		seen += l->bucket[b];
		if (seen >= want) {
			int64_t up = bucket_upper_ns(b);
			return up > l->max_ns ? l->max_ns : up;
		}
	}
	return l->max_ns;
}
