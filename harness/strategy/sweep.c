/* The sweep strategy (sweep.h). */
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../cell/atten.h"
#include "../cell/link.h"
#include "../results/series_doc.h"
#include "../results/store.h"
#include "../util/clock.h"
#include "../util/path.h"
#include "bringup.h"
#include "run.h"

#define SETTLE_READS	  3
#define SETTLE_SPREAD	  0.15
#define SETTLE_MAX_CYCLES 120

/* What settling found for one station. */
struct settle {
	bool associated, settled;
	double settle_s, signal_dbm, txrate_mbps, expected_mbps;
};

/* A running sweep's working memory, too big for the stack. */
struct sweep_scratch {
	struct cell cell;
	struct cell_state st;
	struct settle se[TOPO_MAX_STATIONS];
	double reads[TOPO_MAX_STATIONS][SETTLE_MAX_CYCLES];
	struct link_sta now[TOPO_MAX_STATIONS];
	struct series_step step; /* the step being recorded */
};

static bool stopped(const struct sweep *sw)
{
	return sw->stop && *sw->stop;
}

/* "a,b,c" into out, rows of width bytes (each item shorter); -1 when
 * empty, an item is empty or too long, or there are more than max. */
static int split_list(const char *s, char *out, size_t width, int max)
{
	int n = 0;

	while (*s) {
		size_t len = strcspn(s, ",");

		if (len == 0 || len >= width || n == max)
			return -1;
		snprintf(out + (size_t)n++ * width, width, "%.*s", (int)len, s);
		s += len;
		if (*s == ',')
			s++;
	}
	return n;
}

static int parse_db(const char *opt, const char *v, double *out,
		    struct al_err *err)
{
	char *end;

	*out = v ? strtod(v, &end) : NAN;
	if (!v || end == v || *end || !isfinite(*out))
		return al_err_input(err, "%s '%s' is not a number of dB", opt,
				    v ? v : "");
	return 0;
}

static int atten_steps(struct sweep *sw, const char *from, const char *to,
		       const char *step, struct al_err *err)
{
	double a, b, d;

	if (parse_db("--from", from, &a, err) < 0 ||
	    parse_db("--to", to, &b, err) < 0 ||
	    parse_db("--step", step, &d, err) < 0)
		return -1;
	if (!(d > 0))
		return al_err_input(err, "--step %s must be above 0 dB", step);
	if (b < a)
		d = -d;
	/* Steps of d from a, ending at b even when d does not divide. */
	for (sw->nx = 0;; sw->nx++) {
		double x = a + d * sw->nx;

		if ((d > 0 && x > b + 1e-9) || (d < 0 && x < b - 1e-9))
			break;
		if (sw->nx == SWEEP_MAX_STEPS)
			return al_err_input(err,
					    "more than %d steps from %s to %s "
					    "dB by %s",
					    SWEEP_MAX_STEPS, from, to, step);
		sw->x[sw->nx] = x;
	}
	if (fabs(sw->x[sw->nx - 1] - b) > 1e-9 && sw->nx < SWEEP_MAX_STEPS)
		sw->x[sw->nx++] = b;
	return 0;
}

static bool legacy_rate_ok(double r, bool five_ghz)
{
	static const double ofdm[] = {6, 9, 12, 18, 24, 36, 48, 54};
	static const double cck[] = {1, 2, 5.5, 11};

	for (size_t i = 0; i < sizeof(ofdm) / sizeof(ofdm[0]); i++)
		if (r == ofdm[i])
			return true;
	for (size_t i = 0; !five_ghz && i < sizeof(cck) / sizeof(cck[0]); i++)
		if (r == cck[i])
			return true;
	return false;
}

/* mcs:0,3,7 (HT MCS 0..31) or legacy:6,12,54 (Mb/s of the band). */
static int rate_steps(struct sweep *sw, const char *v, bool five_ghz,
		      struct al_err *err)
{
	char words[SWEEP_MAX_STEPS][32];
	const char *colon = strchr(v, ':');
	int n = -1;

	if (colon && !strncmp(v, "mcs:", 4))
		sw->mode = SWEEP_MCS;
	else if (colon && !strncmp(v, "legacy:", 7))
		sw->mode = SWEEP_LEGACY;
	if (colon && sw->mode != SWEEP_ATTEN)
		n = split_list(colon + 1, words[0], sizeof(words[0]),
			       SWEEP_MAX_STEPS);
	if (n <= 0)
		return al_err_input(err,
				    "--rates '%s': give mcs:N[,N...] or "
				    "legacy:RATE[,RATE...]",
				    v);
	for (sw->nx = 0; sw->nx < n; sw->nx++) {
		char *end;
		double r = strtod(words[sw->nx], &end);

		if (end == words[sw->nx] || *end ||
		    (sw->mode == SWEEP_MCS &&
		     (r != floor(r) || r < 0 || r > 31)) ||
		    (sw->mode == SWEEP_LEGACY && !legacy_rate_ok(r, five_ghz)))
			return al_err_input(
			    err, "--rates: '%s' is not %s", words[sw->nx],
			    sw->mode == SWEEP_MCS
				? "an HT MCS index (0..31)"
				: (five_ghz ? "a 5 GHz legacy rate (6 9 12 18 "
					      "24 36 48 54)"
					    : "a 2.4 GHz legacy rate (1 2 5.5 "
					      "11 6 9 12 18 24 36 48 54)"));
		sw->x[sw->nx] = r;
	}
	return 0;
}

static bool five_ghz(const struct cell *c)
{
	return c->topo.ap.channel > 14;
}

static const char *step_label(const struct sweep *sw, double x, char *buf,
			      size_t len)
{
	if (sw->mode == SWEEP_ATTEN)
		snprintf(buf, len, "%g dB", x);
	else if (sw->mode == SWEEP_MCS)
		snprintf(buf, len, "MCS %g", x);
	else
		snprintf(buf, len, "%gM", x);
	return buf;
}

/* The stations the sweep moves: on its paths, or --station NAME[,...]
 * (rate sweeps; default every station). */
static int pick_stations(struct sweep *sw, const struct cell *c,
			 const char *list, struct al_err *err)
{
	char names[TOPO_MAX_STATIONS][LAB_NAME_MAX];
	int n = 0;

	sw->nwatch = 0;
	if (list && (n = split_list(list, names[0], sizeof(names[0]),
				    TOPO_MAX_STATIONS)) < 0)
		return al_err_input(err,
				    "--station '%s' is not a list of station "
				    "names",
				    list);
	for (int k = 0; k < n; k++) {
		int found = -1;

		for (int i = 0; i < c->topo.nstations; i++)
			if (!strcmp(c->topo.stations[i].name, names[k]))
				found = i;
		if (found < 0)
			return al_err_input(err, "%s has no station '%s'",
					    c->topo.path, names[k]);
		sw->watch[sw->nwatch++] = found;
	}
	for (int i = 0; !list && i < c->topo.nstations; i++) {
		bool on = sw->mode != SWEEP_ATTEN;

		for (int p = 0; p < sw->npaths; p++)
			on |= !strcmp(c->topo.stations[i].path, sw->paths[p]);
		if (on)
			sw->watch[sw->nwatch++] = i;
	}
	/* Every path moved must move some station. */
	for (int p = 0; p < sw->npaths && sw->mode == SWEEP_ATTEN; p++) {
		bool used = false;

		for (int i = 0; i < c->topo.nstations; i++)
			used |= !strcmp(c->topo.stations[i].path, sw->paths[p]);
		if (!used)
			return al_err_input(err,
					    "no station of %s is on path %s: "
					    "the sweep would move what it does "
					    "not measure",
					    c->topo.path, sw->paths[p]);
	}
	if (sw->nwatch == 0)
		return al_err_input(err,
				    "no station of %s to watch: the sweep "
				    "would measure nothing",
				    c->topo.path);
	return 0;
}

/* ---- attenuators ---------------------------------------------------- */

static int path_db(const struct lab *lab, const char *path, const double *set,
		   double *back, struct al_err *err)
{
	const struct lab_atten *a;
	struct atten_handle h;
	int channel, rc = -1;

	if (atten_path_find(lab, path, &a, &channel, err) < 0 ||
	    atten_open(&h, lab, a, err) < 0)
		return -1;
	if ((!set || h.ops->set_db(h.dev, channel, *set, err) == 0) &&
	    h.ops->get_db(h.dev, channel, back, err) == 0)
		rc = 0;
	atten_close(&h);
	return rc;
}

/* ---- the station side: rate masks, settling --------------------------- */

/* cmd's exit status on d (its output in *out when out is given), -1
 * with err when it could not be run. */
static int dut_sh(struct dut *d, const char *cmd, char **out, int timeout_s,
		  struct al_err *err)
{
	int status;
	char *buf = NULL;

	if (dut_run_capture(d, cmd, &buf, &status, timeout_s, err) < 0)
		return -1;
	if (out)
		*out = buf;
	else
		free(buf);
	return status;
}

/* The cell's basic rates in Mb/s: the topology's, else hostapd's default
 * for the band. */
static int basic_rates(const struct cell *c, double *out)
{
	static const double cck[] = {1, 2, 5.5, 11}, ofdm[] = {6, 12, 24};
	int n = c->topo.ap.nbasic_rates;

	for (int i = 0; i < n; i++)
		out[i] = c->topo.ap.basic_rates[i] / 10.0;
	if (n)
		return n;
	if (five_ghz(c)) {
		memcpy(out, ofdm, sizeof(ofdm));
		return 3;
	}
	memcpy(out, cck, sizeof(cck));
	return 4;
}

/* mac80211 drops a fixed mask that misses every basic rate, and
 * minstrel_ht never picks a legacy OFDM rate for an HT station: a legacy
 * step needs its rate among the basic rates and stations with ht: false. */
static int legacy_usable(const struct sweep *sw, const struct cell *c,
			 struct al_err *err)
{
	double basic[12];
	int nb = basic_rates(c, basic);

	for (int i = 0; i < sw->nx; i++) {
		bool ok = false;

		for (int b = 0; b < nb; b++)
			ok |= basic[b] == sw->x[i];
		if (!ok)
			return al_err_input(
			    err,
			    "--rates legacy:%g: %s: %g Mb/s is not among the "
			    "cell's basic rates (ap basic_rates), so mac80211 "
			    "would not keep it",
			    sw->x[i], c->topo.path, sw->x[i]);
	}
	for (int k = 0; k < sw->nwatch; k++)
		if (c->topo.stations[sw->watch[k]].ht)
			return al_err_input(
			    err,
			    "%s:%d: station %s: a legacy rate sweep needs 'ht: "
			    "false' (minstrel_ht does not use legacy OFDM "
			    "rates for an HT station)",
			    c->topo.path, c->topo.stations[sw->watch[k]].line,
			    c->topo.stations[sw->watch[k]].name);
	return 0;
}

/* Where watched station k's commands run and how they name its
 * interface: a station of the AP's host inside its namespace there
 * (wlan0), a station-host station on that host (the interface its start
 * recorded). pre goes before each command. */
static struct dut *sta_where(struct sweep *sw, const struct cell *c,
			     struct dut *d, int k, char *pre, size_t plen,
			     char *ifx, size_t ilen)
{
	const struct topo_station *s = &c->topo.stations[sw->watch[k]];

	if (cell_station_local(c, s)) {
		snprintf(pre, plen, "ip netns exec %s ", s->name);
		snprintf(ifx, ilen, "wlan0");
		return d;
	}
	pre[0] = 0;
	snprintf(ifx, ilen, "\"$(cat %s/%s/iface)\"", STAHOST_DIR, s->name);
	return stahost_of(&sw->sh, s);
}

/* Fixes (x >= 0) or frees (x < 0) the bitrate mask of every watched
 * station's interface. An MCS step keeps one basic rate too (the mask
 * must meet the basic rates): the fastest one not above the MCS's own
 * rate, so that when rate control takes it (it did take 1 Mb/s over MCS 0
 * in a CI run) the link still runs near the step's rate. */
static int set_rates(struct sweep *sw, const struct cell *c, struct dut *d,
		     double x, struct al_err *err)
{
	/* MCS 0..7 at 20 MHz, long guard interval, in Mb/s. */
	static const double mcs_mbps[8] = {6.5, 13, 19.5, 26, 39, 52, 58.5, 65};
	const char *band = five_ghz(c) ? "5" : "2.4";
	double basic[12], low, near = 0;
	int nb = basic_rates(c, basic);

	low = basic[0];
	for (int b = 1; b < nb; b++)
		low = basic[b] < low ? basic[b] : low;
	if (sw->mode == SWEEP_MCS && x >= 0)
		for (int b = 0; b < nb; b++)
			if (basic[b] <= mcs_mbps[(int)x % 8] && basic[b] > near)
				near = basic[b];
	if (near > 0)
		low = near;
	for (int k = 0; k < sw->nwatch; k++) {
		const char *sta = c->topo.stations[sw->watch[k]].name;
		char cmd[512], mask[128], pre[64], ifx[96], *out = NULL;
		struct dut *h =
		    sta_where(sw, c, d, k, pre, sizeof(pre), ifx, sizeof(ifx));
		int st;

		if (x < 0)
			mask[0] = 0;
		else if (sw->mode == SWEEP_MCS)
			snprintf(mask, sizeof(mask),
				 " legacy-%s %g ht-mcs-%s %g", band, low, band,
				 x);
		else
			snprintf(mask, sizeof(mask), " legacy-%s %g ht-mcs-%s",
				 band, x, band);
		snprintf(cmd, sizeof(cmd),
			 "PATH=$PATH:/usr/sbin:/sbin; %siw dev %s set "
			 "bitrates%s 2>&1",
			 pre, ifx, mask);
		if (!h)
			return al_errf(
			    err, "station %s: its host %s is not open", sta,
			    c->topo.stations[sw->watch[k]].host);
		st = dut_sh(h, cmd, &out, 20, err);
		if (st > 0)
			al_errf(err,
				"%s: station %s: '%s' failed (exit %d): %s",
				h->host->name, sta, cmd, st, out ? out : "");
		free(out);
		if (st != 0)
			return -1;
	}
	return 0;
}

/* The settle command for the watched stations that run on host h: a
 * second of ping from each to its gateway (rate control learns only from
 * frames sent), then each one's own station dump after a "== NAME" line.
 * Returns how many stations it covers, -1 when cmd is too short. */
static int settle_cmd(struct sweep *sw, const struct cell *c, struct dut *d,
		      const struct dut *h, char *cmd, size_t len)
{
	size_t off = (size_t)snprintf(cmd, len, "PATH=$PATH:/usr/sbin:/sbin; ");
	int n = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < sw->nwatch; k++) {
			const char *name = c->topo.stations[sw->watch[k]].name;
			char pre[64], ifx[96];
			int w;

			if (sta_where(sw, c, d, k, pre, sizeof(pre), ifx,
				      sizeof(ifx)) != h)
				continue;
			n += pass;
			w = pass == 0
				? snprintf(cmd + off, len - off,
					   "gw=$(%sip route show default dev "
					   "%s 2>/dev/null | awk '{print $3; "
					   "exit}'); [ -n \"$gw\" ] && %sping "
					   "-I %s -q -A -s 1000 -w 1 $gw "
					   ">/dev/null 2>&1 & ",
					   pre, ifx, pre, ifx)
				: snprintf(cmd + off, len - off,
					   "echo '== %s'; %siw dev %s station "
					   "dump; ",
					   name, pre, ifx);
			if (w < 0 || (size_t)w >= len - off)
				return -1;
			off += (size_t)w;
		}
		if (pass == 0) {
			if (off + 7 >= len)
				return -1;
			off += (size_t)snprintf(cmd + off, len - off, "wait; ");
		}
	}
	return n;
}

/* One settle cycle on every host that carries a watched station; the
 * outputs, concatenated, hold one "== NAME" block per station. */
static int settle_read(struct sweep *sw, const struct cell *c, struct dut *d,
		       struct link_sta *out, struct al_err *err)
{
	char cmd[16384];
	char *text = NULL, msg[300];
	size_t tlen = 0;
	FILE *all = open_memstream(&text, &tlen);

	if (!all)
		return al_errf(err, "out of memory");
	for (int hi = -1; hi < sw->sh.n; hi++) {
		struct dut *h = hi < 0 ? d : &sw->sh.hosts[hi];
		char *part = NULL;
		int status, n = settle_cmd(sw, c, d, h, cmd, sizeof(cmd));

		if (n == 0)
			continue;
		if (n < 0)
			status =
			    al_errf(err,
				    "%s: the settle command for %d "
				    "stations is over %zu bytes",
				    h->host->name, sw->nwatch, sizeof(cmd));
		else
			status = dut_sh(h, cmd, &part, 30, err);
		if (status > 0)
			al_errf(err,
				"%s: the stations' ping and 'iw station dump' "
				"exited %d",
				h->host->name, status);
		if (status != 0) {
			free(part);
			fclose(all);
			free(text);
			return -1;
		}
		fputs(part ? part : "", all);
		free(part);
	}
	if (fclose(all) != 0) {
		free(text);
		return al_errf(err, "out of memory");
	}
	for (int k = 0; k < sw->nwatch; k++) {
		const char *name = c->topo.stations[sw->watch[k]].name;
		char mark[32];
		const char *blk;

		char *next = NULL;
		int rc = -1;

		snprintf(mark, sizeof(mark), "== %s\n", name);
		blk = strstr(text, mark);
		/* A station with no peer prints nothing: its block ends at
		 * the next mark, not at the next station's AP. */
		if (blk && (next = strstr(blk + strlen(mark), "\n== ")))
			*next = 0;
		if (blk)
			rc = link_from_own_dump(blk + strlen(mark), name,
						&out[k], msg, sizeof(msg));
		if (next)
			*next = '\n';
		if (rc < 0) {
			al_errf(err, "%s: %s",
				c->topo.stations[sw->watch[k]].host,
				blk ? msg : "a station's dump is missing");
			free(text);
			return -1;
		}
	}
	free(text);
	return 0;
}

/* Three reads within SETTLE_SPREAD of their median. */
static bool steady(const double *r, int n)
{
	double a, b, c, med;

	if (n < SETTLE_READS)
		return false;
	a = r[n - 1], b = r[n - 2], c = r[n - 3];
	if (!isfinite(a) || !isfinite(b) || !isfinite(c))
		return false;
	med = a > b ? (b > c ? b : (a > c ? c : a))
		    : (a > c ? a : (b > c ? c : b));
	return med > 0 && fabs(a - med) <= SETTLE_SPREAD * med &&
	       fabs(b - med) <= SETTLE_SPREAD * med &&
	       fabs(c - med) <= SETTLE_SPREAD * med;
}

/* What rate control says it can do (minstrel's expected throughput);
 * the last frame's bitrate where the driver gives no estimate. */
static double rate_estimate(const struct link_sta *l)
{
	return !l->have			    ? NAN
	       : isfinite(l->expected_mbps) ? l->expected_mbps
					    : l->tx_bitrate_mbps;
}

/* Cycles until every moved station's rate estimate holds still, or
 * --dwell (or SETTLE_MAX_CYCLES) runs out. */
static int settle(struct sweep *sw, const struct cell *c, struct dut *d,
		  struct sweep_scratch *w, struct al_err *err)
{
	double t0 = mono_s();

	for (int k = 0; k < sw->nwatch; k++)
		w->se[k] = (struct settle){.settle_s = NAN};
	for (int n = 0; n < SETTLE_MAX_CYCLES; n++) {
		bool all = true;

		if (settle_read(sw, c, d, w->now, err) < 0)
			return -1;
		for (int k = 0; k < sw->nwatch; k++) {
			struct settle *o = &w->se[k];

			o->associated = w->now[k].have;
			o->signal_dbm = w->now[k].signal_dbm;
			o->txrate_mbps = w->now[k].tx_bitrate_mbps;
			o->expected_mbps = rate_estimate(&w->now[k]);
			w->reads[k][n] = o->expected_mbps;
			if (!o->settled && steady(w->reads[k], n + 1)) {
				o->settled = true;
				o->settle_s = mono_s() - t0;
			}
			all &= o->settled;
		}
		if (all || stopped(sw) || mono_s() - t0 >= sw->dwell_s)
			break;
	}
	return 0;
}

/* ---- the record ------------------------------------------------------- */

/* sweep.json written aside and renamed (the record), then indexed: an
 * index that cannot take it is reported, not fatal (`airlab reindex`
 * rebuilds it). */
static int write_record(struct sweep *sw, const char *status,
			struct al_err *err)
{
	char end[32];
	struct al_err e2;
	int rc;

	path_utc_stamp(end, sizeof(end));
	series_doc_head_set(sw->root_json,
			    &(struct series_doc){.status = status, .end = end});
	rc = store_series_write(sw->root_json, sw->file, sw->results, &e2);
	if (rc > 0)
		fprintf(stderr,
			"sweep %s: %s (%s stays the record; `airlab reindex` "
			"indexes it)\n",
			sw->id, e2.msg, sw->file);
	if (rc < 0)
		*err = e2;
	return rc < 0 ? -1 : 0;
}

/* What the step saw of one watched station: settling, then its run's
 * figures from the store (none without a run). */
static void station_fill(struct series_station *t, struct store *db,
			 const char *run_id, const char *name,
			 const struct settle *se)
{
	/* Store metric GROUP.STATION.NAME, kept in *to. */
	const struct {
		const char *group, *name;
		double *to;
	} figs[] = {
	    {"link", "rate_mbps", &t->rate_mbps},
	    {"link", "tx_bitrate_mbps", &t->tx_bitrate_mbps},
	    {"link", "signal_dbm", &t->signal_dbm},
	    {"link", "retries", &t->retries},
	    {"link", "failed", &t->failed},
	    {"goodput", "up", &t->goodput_up_mbps},
	    {"goodput", "down", &t->goodput_down_mbps},
	};
	char m[256];

	snprintf(t->name, sizeof(t->name), "%s", name);
	t->associated = se->associated;
	t->settled = se->settled;
	t->settle_s = se->settle_s;
	t->settle_signal_dbm = se->signal_dbm;
	t->settle_txrate_mbps = se->txrate_mbps;
	t->settle_expected_mbps = se->expected_mbps;
	for (size_t k = 0; k < sizeof(figs) / sizeof(figs[0]); k++) {
		snprintf(m, sizeof(m), "%s.%s.%s", figs[k].group, name,
			 figs[k].name);
		*figs[k].to = db && run_id ? store_metric(db, run_id, m) : NAN;
	}
}

/* Prints one step's line per moved station: what the sweep is for. */
static void print_step(FILE *f, const struct series_step *step)
{
	for (size_t i = 0; i < step->n_sta; i++) {
		const struct series_station *s = &step->sta[i];

		fprintf(f,
			"%-16s %-10s %-8s %-5s %7.1f %8.1f %8.1f %7.2f %8.2f "
			"%8.1f %s\n",
			step->variant, step->label, s->name,
			s->associated ? "yes" : "no", s->signal_dbm,
			s->rate_mbps, s->tx_bitrate_mbps, s->goodput_up_mbps,
			s->goodput_down_mbps, step->latency_median_ms,
			step->outcome);
	}
	fflush(f);
}

enum step_result { STEP_OK, STEP_PARTIAL, STEP_LAB };

/* Moves the paths to x (recorded in the step's atten with what each
 * reads back, the first one's its x) or fixes the stations' rate at x. */
static int step_move(struct sweep *sw, const struct cell *c, struct dut *d,
		     double x, struct series_step *s, struct al_err *err)
{
	s->x = x;
	for (int k = 0; k < sw->npaths && sw->mode == SWEEP_ATTEN; k++) {
		struct series_atten *a;
		double back;

		if (path_db(&c->lab, sw->paths[k], &x, &back, err) < 0)
			return -1;
		if (!(a = series_step_add_atten(s)))
			return al_errf(err, "out of memory");
		snprintf(a->path, sizeof(a->path), "%s", sw->paths[k]);
		a->set_db = x;
		a->read_db = back;
		if (k == 0)
			s->x = back;
	}
	if (sw->mode != SWEEP_ATTEN)
		return set_rates(sw, c, d, x, err);
	return 0;
}

/* Asks each moved station that is not associated to look for the AP
 * again now, not at its next scan: it comes back as soon as the link
 * allows. Returns whether any is associated; *dropped whether any is
 * not. */
static bool step_reassociate(struct sweep *sw, const struct cell *c,
			     struct dut *d, const struct settle *se,
			     const char *label, bool *dropped)
{
	bool any = false;

	for (int k = 0; k < sw->nwatch; k++) {
		const struct topo_station *s = &c->topo.stations[sw->watch[k]];
		struct al_err e2;
		char cmd[128];

		any |= se[k].associated;
		if (se[k].associated)
			continue;
		*dropped = true;
		fprintf(stderr,
			"sweep %s: %s is not associated at %s; REASSOCIATE "
			"sent\n",
			sw->id, s->name, label);
		if (!cell_station_local(c, s)) {
			if (stahost_reassociate(&sw->sh, c, s->name, &e2) < 0)
				fprintf(stderr, "sweep %s: %s\n", sw->id,
					e2.msg);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "airlab-guest sta %s REASSOCIATE",
			 s->name);
		if (dut_sh(d, cmd, NULL, 20, &e2) < 0)
			fprintf(stderr, "sweep %s: %s\n", sw->id, e2.msg);
	}
	return any;
}

/* The step's run on the cell of variant vi: STEP_OK, STEP_PARTIAL when
 * it did not complete, STEP_LAB when the lab failed. */
static enum step_result step_measure(struct sweep *sw, int vi,
				     struct run_result *r, struct al_err *err)
{
	struct run_request rq = {.cell = sw->cell,
				 .root = sw->root,
				 .suite = sw->suite,
				 .params = sw->params,
				 .out_dir = sw->results,
				 .wait_s = 5,
				 .show = sw->show};
	int rc;

	rq.cell.variant = sw->variants[vi];
	rc = run_suite(&rq, r, err);
	/* err says why; the sweep reports it when it stops */
	if (r->status == RUN_LAB_FAILED || r->status == RUN_REFUSED)
		return STEP_LAB;
	if (rc < 0) /* a failed run: the step records it, the sweep goes on */
		fprintf(stderr, "sweep %s: %s\n", sw->id, err->msg);
	return r->status == RUN_COMPLETE ? STEP_OK : STEP_PARTIAL;
}

static const char *step_outcome(bool dropped, const struct run_result *r)
{
	return dropped			   ? "dropped"
	       : !r->id[0]		   ? "not-run"
	       : r->status == RUN_COMPLETE ? "ok"
	       : r->status == RUN_PARTIAL  ? "partial"
					   : "failed";
}

/* The rest of the step's entry in the record, its figures read from the
 * store. */
static void step_fill(struct sweep *sw, const struct cell *c, int vi,
		      const char *outcome, const struct run_result *r,
		      const struct settle *se, struct series_step *s)
{
	struct store *db = NULL;
	struct al_err e2;

	if (r->id[0] && store_open(&db, sw->results, &e2) < 0) {
		fprintf(stderr, "sweep %s: %s\n", sw->id, e2.msg);
		db = NULL;
	}
	snprintf(s->variant, sizeof(s->variant), "%s", sw->variants[vi]);
	snprintf(s->outcome, sizeof(s->outcome), "%s", outcome);
	snprintf(s->run_id, sizeof(s->run_id), "%s", r->id);
	for (int k = 0; k < sw->nwatch; k++) {
		struct series_station *t = series_step_add_station(s);

		if (t)
			station_fill(t, db, r->id[0] ? r->id : NULL,
				     c->topo.stations[sw->watch[k]].name,
				     &se[k]);
	}
	s->latency_median_ms =
	    db ? store_metric(db, r->id, "latency_median_ms") : NAN;
	s->latency_p99_ms =
	    db ? store_metric(db, r->id, "latency_p99_ms") : NAN;
	store_close(db);
}

/* One step: move, settle, run, record. */
static enum step_result run_step(struct sweep *sw, const struct cell *c,
				 struct dut *d, int vi, int xi,
				 struct al_err *err)
{
	struct sweep_scratch *w = sw->scratch;
	struct series_step *s = &w->step;
	struct run_result r = {0};
	enum step_result rc = STEP_OK;
	double x = sw->x[xi];
	bool dropped = false;

	series_step_init(s);
	step_label(sw, x, s->label, sizeof(s->label));
	fprintf(stderr, "sweep %s: step %d/%d: %s, %s\n", sw->id,
		vi * sw->nx + xi + 1, sw->nvariants * sw->nx, sw->variants[vi],
		s->label);
	if (step_move(sw, c, d, x, s, err) < 0 ||
	    settle(sw, c, d, w, err) < 0) {
		series_step_free(s);
		return STEP_LAB;
	}
	/* With every moved station gone there is nothing to measure. */
	if (step_reassociate(sw, c, d, w->se, s->label, &dropped) &&
	    !stopped(sw))
		rc = step_measure(sw, vi, &r, err);
	step_fill(sw, c, vi, step_outcome(dropped, &r), &r, w->se, s);
	series_doc_add_step(sw->root_json, s);
	if (sw->show)
		print_step(sw->show, s);
	series_step_free(s);
	if (write_record(sw, "running", err) < 0)
		return STEP_LAB;
	/* A station that dropped is a finding, not a failed step. */
	return dropped && rc == STEP_PARTIAL ? STEP_OK : rc;
}

/* The cell of variant vi up, its station hosts open to watch (not
 * locked: each run locks them) and the paths' dB before the sweep. */
static int variant_up(struct sweep *sw, int vi, struct cell *c, struct dut *d,
		      double *before, struct al_err *err)
{
	struct cell_paths p = sw->cell;
	const struct bringup_opts bo = {60, true, sw->show};
	struct cell_state *st = &sw->scratch->st;

	p.variant = sw->variants[vi];
	if (cell_load(c, &p, err) < 0)
		return -1;
	if (stahost_check_traffic(c, err) < 0 ||
	    dut_open(d, &c->lab, c->ap_host->name, err) < 0) {
		cell_free(c);
		return -1;
	}
	if (bringup_cell(c, d, &bo, st, err) < 0 ||
	    stahost_open(&sw->sh, c, false, err) < 0)
		goto fail;
	for (int k = 0; k < sw->npaths; k++)
		if (path_db(&c->lab, sw->paths[k], NULL, &before[k], err) < 0)
			goto fail;
	return 0;
fail:
	stahost_close(&sw->sh);
	dut_close(d);
	cell_free(c);
	return -1;
}

/* Every step of one variant, on a cell brought up once; the bench left
 * as the sweep found it. *worst: the worst step. */
static int run_variant(struct sweep *sw, int vi, enum step_result *worst,
		       struct al_err *err)
{
	struct cell *c = &sw->scratch->cell;
	double before[SWEEP_MAX_PATHS];
	enum step_result rc = STEP_OK;
	struct al_err e2;
	struct dut d;

	if (variant_up(sw, vi, c, &d, before, err) < 0) {
		*worst = STEP_LAB;
		return -1;
	}
	for (int xi = 0; xi < sw->nx && !stopped(sw) && rc != STEP_LAB; xi++) {
		rc = run_step(sw, c, &d, vi, xi, err);
		if (rc > *worst)
			*worst = rc;
	}
	for (int k = 0; k < sw->npaths; k++) {
		double back;

		if (path_db(&c->lab, sw->paths[k], &before[k], &back, &e2) == 0)
			fprintf(stderr, "sweep %s: %s back to %.2f dB\n",
				sw->id, sw->paths[k], back);
		else
			fprintf(stderr, "sweep %s: %s\n", sw->id, e2.msg);
	}
	if (sw->mode != SWEEP_ATTEN && set_rates(sw, c, &d, -1, &e2) < 0)
		fprintf(stderr, "sweep %s: %s\n", sw->id, e2.msg);
	stahost_close(&sw->sh);
	dut_close(&d);
	cell_free(c);
	return rc == STEP_LAB ? -1 : 0;
}

/* ---- plan and run ------------------------------------------------------ */

/* The checks that need variant v's cell: for the first, the steps, the
 * paths and the stations. */
static int plan_variant(struct sweep *sw, const struct sweep_args *a, int v,
			struct cell *c, struct al_err *err)
{
	struct cell_paths p = sw->cell;
	const struct ap_ops *ap;
	int rc = 0;

	if (sw->nvariants)
		p.variant = sw->variants[v];
	if (cell_load(c, &p, err) < 0)
		return -1;
	if (bringup_check(c, &ap, err) < 0) {
		cell_free(c);
		return -1;
	}
	if (!sw->nvariants)
		snprintf(sw->variants[sw->nvariants++], 256, "%s",
			 c->variant.name);
	if (v == 0) {
		rc = a->rates ? rate_steps(sw, a->rates, five_ghz(c), err)
			      : atten_steps(sw, a->from, a->to, a->step, err);
		for (int k = 0; rc == 0 && k < sw->npaths; k++) {
			const struct lab_atten *at;
			int ch;

			rc = atten_path_find(&c->lab, sw->paths[k], &at, &ch,
					     err);
		}
		if (rc == 0)
			rc = pick_stations(sw, c, a->stations, err);
		if (rc == 0 && sw->mode == SWEEP_LEGACY)
			rc = legacy_usable(sw, c, err);
	}
	cell_free(c);
	return rc;
}

static int plan_lists(struct sweep *sw, const struct sweep_args *a,
		      struct al_err *err)
{
	if (!a->rates && !a->paths)
		return al_err_input(err, "give --path P --from DB --to DB "
					 "--step DB, or --rates LIST");
	if (a->rates && (a->from || a->to || a->step))
		return al_err_input(err,
				    "--rates steps through rates; "
				    "--from/--to/--step are for attenuation");
	if (a->paths && (sw->npaths = split_list(a->paths, sw->paths[0],
						 sizeof(sw->paths[0]),
						 SWEEP_MAX_PATHS)) <= 0)
		return al_err_input(err, "--path '%s' is not a list of paths",
				    a->paths);
	if (a->variants &&
	    (sw->nvariants =
		 split_list(a->variants, sw->variants[0],
			    sizeof(sw->variants[0]), SWEEP_MAX_VARIANTS)) <= 0)
		return al_err_input(err,
				    "--variant '%s': give 1 to %d variants",
				    a->variants, SWEEP_MAX_VARIANTS);
	return 0;
}

int sweep_plan(struct sweep *sw, const struct sweep_args *a, struct al_err *err)
{
	struct cell *c;
	int rc = 0;

	if (plan_lists(sw, a, err) < 0)
		return -1;
	sw->suite = a->suite ? a->suite : "rtt_fair";
	if (!suite_find(sw->suite, err)) {
		err->bad_input = true;
		return -1;
	}
	sw->dwell_s = a->dwell_s ? a->dwell_s : 20;
	sw->params.length_s = a->length_s;
	if (!(c = calloc(1, sizeof(*c))))
		return al_errf(err, "out of memory");
	/* Everything is checked before anything moves: the cell of each
	 * variant, the paths, the stations. */
	for (int v = 0; rc == 0 && v < (sw->nvariants ? sw->nvariants : 1); v++)
		rc = plan_variant(sw, a, v, c, err);
	free(c);
	if (rc < 0)
		err->bad_input = true;
	return rc;
}

const char *sweep_status_name(enum sweep_status s)
{
	switch (s) {
	case SWEEP_PARTIAL:
		return "partial";
	case SWEEP_INTERRUPTED:
		return "interrupted";
	case SWEEP_LAB_FAILED:
		return "lab-failed";
	case SWEEP_COMPLETE:
		break;
	}
	return "complete";
}

/* The record's head and the sweep's own plan (paths, variants, x,
 * dwell_s, length_s: read by nobody else). */
static json_t *spec_json(const struct sweep *sw)
{
	json_t *paths = json_array(), *vars = json_array(), *x = json_array();
	static const char *const mode[] = {"attenuation", "mcs", "legacy"};
	char start[32];
	json_t *root;

	for (int k = 0; k < sw->npaths; k++)
		json_array_append_new(paths, json_string(sw->paths[k]));
	for (int v = 0; v < sw->nvariants; v++)
		json_array_append_new(vars, json_string(sw->variants[v]));
	for (int i = 0; i < sw->nx; i++)
		json_array_append_new(x, json_real(sw->x[i]));
	path_utc_stamp(start, sizeof(start));
	root = series_doc_head_json(&(struct series_doc){.id = sw->id,
							 .kind = "sweep",
							 .start = start,
							 .mode = mode[sw->mode],
							 .suite = sw->suite,
							 .lab = sw->cell.lab});
	json_object_update_new(
	    root,
	    json_pack("{s:o, s:o, s:o, s:i, s:o}", "paths", paths, "variants",
		      vars, "x", x, "dwell_s", sw->dwell_s, "length_s",
		      sw->params.length_s > 0 ? json_real(sw->params.length_s)
					      : json_null()));
	return root;
}

/* Its directory RESULTS/sweeps/<stamp> and the first record. */
static int sweep_start(struct sweep *sw, struct al_err *err)
{
	char parent[4300], stamp[32];

	snprintf(parent, sizeof(parent), "%s/sweeps", sw->results);
	path_utc_stamp(stamp, sizeof(stamp));
	if (path_mkdirs(sw->results) < 0 ||
	    path_mkdir_unique(parent, stamp, sw->id, sizeof(sw->id), sw->dir,
			      sizeof(sw->dir)) < 0)
		return al_errf(err, "cannot create a directory in %s: %s",
			       parent, strerror(errno));
	snprintf(sw->file, sizeof(sw->file), "%s/sweep.json", sw->dir);
	sw->root_json = spec_json(sw);
	return write_record(sw, "running", err);
}

int sweep_run(struct sweep *sw, enum sweep_status *status, struct al_err *err)
{
	enum step_result worst = STEP_OK;
	struct al_err e2;
	int rc = 0;

	*status = SWEEP_LAB_FAILED;
	if (!(sw->scratch = calloc(1, sizeof(*sw->scratch))))
		return al_errf(err, "out of memory");
	if (sweep_start(sw, err) < 0) {
		json_decref(sw->root_json);
		free(sw->scratch);
		return -1;
	}
	fprintf(stderr,
		"sweep %s: %d steps x %d variants, %s each; record %s\n",
		sw->id, sw->nx, sw->nvariants, sw->suite, sw->file);
	for (int v = 0; v < sw->nvariants && !stopped(sw) && rc == 0; v++)
		rc = run_variant(sw, v, &worst, err);
	*status = worst == STEP_LAB	  ? SWEEP_LAB_FAILED
		  : stopped(sw)		  ? SWEEP_INTERRUPTED
		  : worst == STEP_PARTIAL ? SWEEP_PARTIAL
					  : SWEEP_COMPLETE;
	if (worst == STEP_LAB)
		fprintf(stderr, "sweep %s: %s\n", sw->id, err->msg);
	if (write_record(sw, sweep_status_name(*status), &e2) < 0)
		fprintf(stderr, "sweep %s: %s\n", sw->id, e2.msg);
	fprintf(stderr,
		"sweep %s: %s, %zu steps recorded in %s (report: airlab report "
		"--sweep %s)\n",
		sw->id,
		*status == SWEEP_LAB_FAILED    ? "the lab failed"
		: *status == SWEEP_INTERRUPTED ? "interrupted"
		: *status == SWEEP_PARTIAL     ? "some runs did not complete"
					       : "complete",
		series_doc_n_steps(sw->root_json), sw->file, sw->id);
	json_decref(sw->root_json);
	sw->root_json = NULL;
	free(sw->scratch);
	sw->scratch = NULL;
	return 0;
}
