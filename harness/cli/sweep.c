/* airlab sweep: one suite run per attenuation step (--path P[,P...] --from
 * DB --to DB --step DB) or per fixed rate (--rates mcs:0,3,7 |
 * legacy:6,12,54), on one or more variants. Before each run the link
 * settles: a little ping traffic per cycle until the stations' tx rate
 * holds still (three reads within 15% of their median) or --dwell runs
 * out. Each step records what the attenuators read back, the rate, signal,
 * retries, goodput, latency under load and whether the station stayed
 * associated; results/sweeps/<id>/sweep.json is rewritten after every step
 * (status "running" until the end) and indexed in the store with its runs.
 * `airlab report --sweep ID` draws it. */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../cell/atten.h"
#include "../cell/link.h"
#include "../results/store.h"
#include "../suites/suites.h"
#include "../util/json_file.h"

#define SWEEP_MAX_PATHS	   16
#define SWEEP_MAX_STEPS	   200
#define SWEEP_MAX_VARIANTS 8
#define SETTLE_READS	   3
#define SETTLE_SPREAD	   0.15
#define SETTLE_MAX_CYCLES  120

enum sweep_mode { SWEEP_ATTEN, SWEEP_MCS, SWEEP_LEGACY };

struct sweep {
	enum sweep_mode mode;
	char paths[SWEEP_MAX_PATHS][LAB_NAME_MAX];
	int npaths;
	double x[SWEEP_MAX_STEPS]; /* dB, MCS index or legacy Mb/s */
	int nx;
	char variants[SWEEP_MAX_VARIANTS][256];
	int nvariants;
	int watch[TOPO_MAX_STATIONS]; /* topology indexes of the stations */
	int nwatch;
	const char *suite;
	struct suite_params params;
	int dwell_s;
	const char *results;
	char id[256], dir[4600], file[4700];
	json_t *root, *steps;
	struct stahost_set sh; /* the variant's station hosts, watched */
};

/* What settling found for one station. */
struct settle {
	bool associated, settled;
	double settle_s, signal_dbm, txrate_mbps, expected_mbps;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* "a,b,c" into out (each [A-Za-z0-9_.:-]+); -1 when empty or too many. */
static int split_list(const char *s, char (*out)[256], int max)
{
	int n = 0;

	while (*s) {
		size_t len = strcspn(s, ",");

		if (len == 0 || len >= 256 || n == max)
			return -1;
		snprintf(out[n++], 256, "%.*s", (int)len, s);
		s += len;
		if (*s == ',')
			s++;
	}
	return n;
}

static int parse_db(const char *opt, const char *v, double *out)
{
	char *end;

	*out = v ? strtod(v, &end) : NAN;
	if (!v || end == v || *end || !isfinite(*out)) {
		fprintf(stderr, "airlab sweep: %s '%s' is not a number of dB\n",
			opt, v ? v : "");
		return -1;
	}
	return 0;
}

static int atten_steps(struct sweep *sw, const char *from, const char *to,
		       const char *step)
{
	double a, b, d;

	if (parse_db("--from", from, &a) < 0 || parse_db("--to", to, &b) < 0 ||
	    parse_db("--step", step, &d) < 0)
		return -1;
	if (!(d > 0)) {
		fprintf(stderr, "airlab sweep: --step %s must be above 0 dB\n",
			step);
		return -1;
	}
	if (b < a)
		d = -d;
	/* Steps of d from a, ending at b even when d does not divide. */
	for (sw->nx = 0;; sw->nx++) {
		double x = a + d * sw->nx;

		if ((d > 0 && x > b + 1e-9) || (d < 0 && x < b - 1e-9))
			break;
		if (sw->nx == SWEEP_MAX_STEPS) {
			fprintf(stderr,
				"airlab sweep: more than %d steps from %s to "
				"%s dB by %s\n",
				SWEEP_MAX_STEPS, from, to, step);
			return -1;
		}
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
static int rate_steps(struct sweep *sw, const char *v, bool five_ghz)
{
	static char words[SWEEP_MAX_STEPS][256];
	const char *colon = strchr(v, ':');
	int n;

	if (colon && !strncmp(v, "mcs:", 4))
		sw->mode = SWEEP_MCS;
	else if (colon && !strncmp(v, "legacy:", 7))
		sw->mode = SWEEP_LEGACY;
	else
		goto bad;
	n = split_list(colon + 1, words, SWEEP_MAX_STEPS);
	if (n <= 0)
		goto bad;
	for (sw->nx = 0; sw->nx < n; sw->nx++) {
		char *end;
		double r = strtod(words[sw->nx], &end);

		if (end == words[sw->nx] || *end ||
		    (sw->mode == SWEEP_MCS &&
		     (r != floor(r) || r < 0 || r > 31)) ||
		    (sw->mode == SWEEP_LEGACY &&
		     !legacy_rate_ok(r, five_ghz))) {
			fprintf(stderr,
				"airlab sweep: --rates: '%s' is not %s\n",
				words[sw->nx],
				sw->mode == SWEEP_MCS
				    ? "an HT MCS index (0..31)"
				    : (five_ghz ? "a 5 GHz legacy rate (6 9 12 "
						  "18 24 36 48 54)"
						: "a 2.4 GHz legacy rate (1 2 "
						  "5.5 11 6 9 12 18 24 36 48 "
						  "54)"));
			return -1;
		}
		sw->x[sw->nx] = r;
	}
	return 0;
bad:
	fprintf(stderr,
		"airlab sweep: --rates '%s': give mcs:N[,N...] or "
		"legacy:RATE[,RATE...]\n",
		v);
	return -1;
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
			 const char *list)
{
	static char names[TOPO_MAX_STATIONS][256];
	int n = 0;

	sw->nwatch = 0;
	if (list && (n = split_list(list, names, TOPO_MAX_STATIONS)) < 0) {
		fprintf(stderr,
			"airlab sweep: --station '%s' is not a list "
			"of station names\n",
			list);
		return -1;
	}
	for (int k = 0; k < n; k++) {
		int found = -1;

		for (int i = 0; i < c->topo.nstations; i++)
			if (!strcmp(c->topo.stations[i].name, names[k]))
				found = i;
		if (found < 0) {
			fprintf(stderr,
				"airlab sweep: %s has no station '%s'\n",
				c->topo.path, names[k]);
			return -1;
		}
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
		if (!used) {
			fprintf(stderr,
				"airlab sweep: no station of %s is on path "
				"%s: the sweep would move what it does not "
				"measure\n",
				c->topo.path, sw->paths[p]);
			return -1;
		}
	}
	if (sw->nwatch == 0) {
		fprintf(stderr,
			"airlab sweep: no station of %s to watch: the sweep "
			"would measure nothing\n",
			c->topo.path);
		return -1;
	}
	return 0;
}

/* ---- attenuators ---------------------------------------------------- */

static int path_db(const struct lab *lab, const char *path, const double *set,
		   double *back)
{
	const struct lab_atten *a;
	struct atten_handle h;
	struct al_err err;
	int channel, rc = -1;

	if (atten_path_find(lab, path, &a, &channel, &err) < 0 ||
	    atten_open(&h, lab, a, &err) < 0)
		return cli_fail_neg(&err);
	if ((set && h.ops->set_db(h.dev, channel, *set, &err) < 0) ||
	    h.ops->get_db(h.dev, channel, back, &err) < 0)
		cli_fail(&err);
	else
		rc = 0;
	atten_close(&h);
	return rc;
}

/* ---- the station side: rate masks, settling --------------------------- */

static int dut_sh(struct dut *d, const char *cmd, char **out, int timeout_s)
{
	struct al_err err;
	int status;
	char *buf = NULL;

	if (dut_run_capture(d, cmd, &buf, &status, timeout_s, &err) < 0) {
		cli_fail(&err);
		return -1;
	}
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
static int legacy_usable(const struct sweep *sw, const struct cell *c)
{
	double basic[12];
	int nb = basic_rates(c, basic);

	for (int i = 0; i < sw->nx; i++) {
		bool ok = false;

		for (int b = 0; b < nb; b++)
			ok |= basic[b] == sw->x[i];
		if (!ok) {
			fprintf(stderr,
				"airlab sweep: --rates legacy:%g: %s: %g Mb/s "
				"is not among the cell's basic rates (ap "
				"basic_rates), so mac80211 would not keep it\n",
				sw->x[i], c->topo.path, sw->x[i]);
			return -1;
		}
	}
	for (int k = 0; k < sw->nwatch; k++)
		if (c->topo.stations[sw->watch[k]].ht) {
			fprintf(stderr,
				"%s:%d: station %s: a legacy rate sweep needs "
				"'ht: false' (minstrel_ht does not use legacy "
				"OFDM rates for an HT station)\n",
				c->topo.path,
				c->topo.stations[sw->watch[k]].line,
				c->topo.stations[sw->watch[k]].name);
			return -1;
		}
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
		     double x)
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
		if (!h) {
			fprintf(stderr,
				"airlab sweep: station %s: its host %s is not "
				"open\n",
				sta, c->topo.stations[sw->watch[k]].host);
			return -1;
		}
		st = dut_sh(h, cmd, &out, 20);
		if (st != 0) {
			if (st > 0)
				fprintf(stderr,
					"airlab sweep: %s: station %s: '%s' "
					"failed (exit %d): %s\n",
					h->host->name, sta, cmd, st,
					out ? out : "");
			free(out);
			return -1;
		}
		free(out);
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
		       struct link_sta *out)
{
	static char cmd[16384];
	char *text = NULL, msg[300];
	size_t tlen = 0;
	FILE *all = open_memstream(&text, &tlen);

	if (!all)
		return -1;
	for (int hi = -1; hi < sw->sh.n; hi++) {
		struct dut *h = hi < 0 ? d : &sw->sh.hosts[hi];
		char *part = NULL;
		int status, n = settle_cmd(sw, c, d, h, cmd, sizeof(cmd));

		if (n == 0)
			continue;
		status = n < 0 ? -1 : dut_sh(h, cmd, &part, 30);
		if (status > 0)
			fprintf(stderr,
				"airlab sweep: %s: the stations' ping and 'iw "
				"station dump' exited %d\n",
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
		return -1;
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
			fprintf(stderr, "airlab sweep: %s: %s\n",
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
		  struct settle *out)
{
	static double reads[TOPO_MAX_STATIONS][SETTLE_MAX_CYCLES];
	static struct link_sta now[TOPO_MAX_STATIONS];
	double t0 = cli_mono_s();

	for (int k = 0; k < sw->nwatch; k++)
		out[k] = (struct settle){.settle_s = NAN};
	for (int n = 0; n < SETTLE_MAX_CYCLES; n++) {
		bool all = true;

		if (settle_read(sw, c, d, now) < 0)
			return -1;
		for (int k = 0; k < sw->nwatch; k++) {
			out[k].associated = now[k].have;
			out[k].signal_dbm = now[k].signal_dbm;
			out[k].txrate_mbps = now[k].tx_bitrate_mbps;
			out[k].expected_mbps = rate_estimate(&now[k]);
			reads[k][n] = out[k].expected_mbps;
			if (!out[k].settled && steady(reads[k], n + 1)) {
				out[k].settled = true;
				out[k].settle_s = cli_mono_s() - t0;
			}
			all &= out[k].settled;
		}
		if (all || interrupted || cli_mono_s() - t0 >= sw->dwell_s)
			break;
	}
	return 0;
}

/* ---- the record ------------------------------------------------------- */

static int write_record(struct sweep *sw, const char *status)
{
	char end[32];

	path_utc_stamp(end, sizeof(end));
	json_object_set_new(sw->root, "status", json_string(status));
	json_object_set_new(sw->root, "end", json_string(end));
	return cli_series_write("sweep", sw->root, sw->file, sw->results);
}

static json_t *station_json(struct store *db, const char *run_id,
			    const char *name, const struct settle *se)
{
	/* Store metric GROUP.STATION.NAME, kept under key. */
	static const struct {
		const char *group, *name, *key;
	} figs[] = {
	    {"link", "rate_mbps", "rate_mbps"},
	    {"link", "tx_bitrate_mbps", "tx_bitrate_mbps"},
	    {"link", "signal_dbm", "signal_dbm"},
	    {"link", "retries", "retries"},
	    {"link", "failed", "failed"},
	    {"goodput", "up", "goodput_up_mbps"},
	    {"goodput", "down", "goodput_down_mbps"},
	};
	json_t *o =
	    json_pack("{s:s, s:b, s:b, s:o, s:o, s:o, s:o}", "name", name,
		      "associated", se->associated, "settled", se->settled,
		      "settle_s", json_num(se->settle_s), "settle_signal_dbm",
		      json_num(se->signal_dbm), "settle_txrate_mbps",
		      json_num(se->txrate_mbps), "settle_expected_mbps",
		      json_num(se->expected_mbps));
	char m[256];

	for (size_t k = 0; k < sizeof(figs) / sizeof(figs[0]); k++) {
		snprintf(m, sizeof(m), "%s.%s.%s", figs[k].group, name,
			 figs[k].name);
		json_object_set_new(
		    o, figs[k].key,
		    json_num(db && run_id ? store_metric(db, run_id, m) : NAN));
	}
	return o;
}

static double jnum(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Prints one step's line per moved station: what the sweep is for. */
static void print_step(const json_t *step)
{
	json_t *sts = json_object_get(step, "stations");

	for (size_t i = 0; i < json_array_size(sts); i++) {
		json_t *s = json_array_get(sts, i);

		printf("%-16s %-10s %-8s %-5s %7.1f %8.1f %8.1f %7.2f %8.2f "
		       "%8.1f %s\n",
		       json_string_value(json_object_get(step, "variant")),
		       json_string_value(json_object_get(step, "label")),
		       json_string_value(json_object_get(s, "name")),
		       json_is_true(json_object_get(s, "associated")) ? "yes"
								      : "no",
		       jnum(s, "signal_dbm"), jnum(s, "rate_mbps"),
		       jnum(s, "tx_bitrate_mbps"), jnum(s, "goodput_up_mbps"),
		       jnum(s, "goodput_down_mbps"),
		       jnum(step, "latency_median_ms"),
		       json_string_value(json_object_get(step, "outcome")));
	}
	fflush(stdout);
}

/* One step: move, settle, run, record. Returns AL_EXIT_OK,
 * AL_EXIT_PARTIAL when its run did not complete, AL_EXIT_LAB when the lab
 * failed (the sweep stops). */
static int run_step(struct sweep *sw, struct cli_opts *o, const struct cell *c,
		    struct dut *d, int vi, int xi)
{
	static struct settle se[TOPO_MAX_STATIONS];
	json_t *atten = json_array(), *sts = json_array(), *step;
	struct cli_run_result r = {0};
	struct suite_params p = sw->params;
	struct store *db = NULL;
	struct al_err err;
	char label[64];
	double x = sw->x[xi], xread = x;
	bool any = false, dropped = false;
	const char *outcome;
	int rc = 0;

	step_label(sw, x, label, sizeof(label));
	fprintf(stderr, "sweep %s: step %d/%d: %s, %s\n", sw->id,
		vi * sw->nx + xi + 1, sw->nvariants * sw->nx, sw->variants[vi],
		label);
	for (int k = 0; k < sw->npaths && sw->mode == SWEEP_ATTEN; k++) {
		double back;

		if (path_db(&c->lab, sw->paths[k], &x, &back) < 0) {
			json_decref(atten);
			json_decref(sts);
			return AL_EXIT_LAB;
		}
		if (k == 0)
			xread = back;
		json_array_append_new(
		    atten, json_pack("{s:s, s:f, s:f}", "path", sw->paths[k],
				     "set_db", x, "read_db", back));
	}
	if (sw->mode != SWEEP_ATTEN && set_rates(sw, c, d, x) < 0) {
		json_decref(atten);
		json_decref(sts);
		return AL_EXIT_LAB;
	}
	if (settle(sw, c, d, se) < 0) {
		json_decref(atten);
		json_decref(sts);
		return AL_EXIT_LAB;
	}
	for (int k = 0; k < sw->nwatch; k++) {
		const char *name = c->topo.stations[sw->watch[k]].name;

		any |= se[k].associated;
		if (!se[k].associated) {
			char cmd[128];

			dropped = true;
			/* Asked to look for the AP again now, not at its next
			 * scan: it comes back as soon as the link allows. */
			fprintf(stderr,
				"sweep %s: %s is not associated at %s; "
				"REASSOCIATE sent\n",
				sw->id, name, label);
			if (!cell_station_local(
				c, &c->topo.stations[sw->watch[k]])) {
				if (stahost_reassociate(&sw->sh, c, name,
							&err) < 0)
					cli_fail(&err);
				continue;
			}
			snprintf(cmd, sizeof(cmd),
				 "airlab-guest sta %s REASSOCIATE", name);
			dut_sh(d, cmd, NULL, 20);
		}
	}
	/* With every moved station gone there is nothing to measure. */
	if (any && !interrupted) {
		rc = cli_run_suite(o, sw->suite, &p, sw->results, 5, &r);
		if (r.lab_failed)
			rc = AL_EXIT_LAB;
		else
			rc = rc == AL_EXIT_OK ? AL_EXIT_OK : AL_EXIT_PARTIAL;
		if (r.id[0] && store_open(&db, sw->results, &err) < 0) {
			fprintf(stderr, "airlab sweep: %s\n", err.msg);
			db = NULL;
		}
	}
	outcome = dropped			   ? "dropped"
		  : !r.id[0]			   ? "not-run"
		  : r.exit_code == AL_EXIT_OK	   ? "ok"
		  : r.exit_code == AL_EXIT_PARTIAL ? "partial"
						   : "failed";
	for (int k = 0; k < sw->nwatch; k++)
		json_array_append_new(
		    sts,
		    station_json(db, r.id[0] ? r.id : NULL,
				 c->topo.stations[sw->watch[k]].name, &se[k]));
	step = json_pack(
	    "{s:s, s:f, s:s, s:s, s:s?, s:o, s:o, s:o, s:o}", "variant",
	    sw->variants[vi], "x", xread, "label", label, "outcome", outcome,
	    "run_id", r.id[0] ? r.id : NULL, "atten", atten,
	    "latency_median_ms",
	    json_num(db ? store_metric(db, r.id, "latency_median_ms") : NAN),
	    "latency_p99_ms",
	    json_num(db ? store_metric(db, r.id, "latency_p99_ms") : NAN),
	    "stations", sts);
	store_close(db);
	json_array_append_new(sw->steps, step);
	print_step(step);
	if (write_record(sw, "running") < 0)
		return AL_EXIT_LAB;
	/* A station that dropped is a finding, not a failed step. */
	return dropped && rc == AL_EXIT_PARTIAL ? AL_EXIT_OK : rc;
}

/* Every step of one variant, on a cell brought up once. */
static int run_variant(struct sweep *sw, struct cli_opts *o, int vi, int *worst)
{
	static struct cell c;
	static struct cell_state st;
	double before[SWEEP_MAX_PATHS];
	struct al_err err;
	struct dut d;
	int rc = 0;

	snprintf(o->variant, sizeof(o->variant), "%s", sw->variants[vi]);
	if (cli_cell_load(&c, o) < 0)
		return AL_EXIT_LAB;
	if (stahost_check_traffic(&c, &err) < 0) {
		fprintf(stderr, "airlab sweep: %s\n", err.msg);
		cell_free(&c);
		return AL_EXIT_LAB;
	}
	if (cli_dut_open(&d, &c.lab, c.ap_host->name) != AL_EXIT_OK) {
		cell_free(&c);
		return AL_EXIT_LAB;
	}
	/* Station hosts are watched, not locked: each run locks them. */
	if (cli_cell_up(&c, &d, 60, true, &st) < 0) {
		rc = AL_EXIT_LAB;
		goto out;
	}
	if (stahost_open(&sw->sh, &c, false, &err) < 0) {
		cli_fail(&err);
		rc = AL_EXIT_LAB;
		goto out;
	}
	for (int k = 0; k < sw->npaths; k++)
		if (path_db(&c.lab, sw->paths[k], NULL, &before[k]) < 0) {
			rc = AL_EXIT_LAB;
			goto out;
		}
	for (int xi = 0; xi < sw->nx && !interrupted && rc != AL_EXIT_LAB;
	     xi++) {
		rc = run_step(sw, o, &c, &d, vi, xi);
		if (rc > *worst)
			*worst = rc;
	}
	/* The bench is left as the sweep found it. */
	for (int k = 0; k < sw->npaths; k++) {
		double back;

		if (path_db(&c.lab, sw->paths[k], &before[k], &back) == 0)
			fprintf(stderr, "sweep %s: %s back to %.2f dB\n",
				sw->id, sw->paths[k], back);
	}
	if (sw->mode != SWEEP_ATTEN)
		set_rates(sw, &c, &d, -1);
out:
	stahost_close(&sw->sh);
	dut_close(&d);
	cell_free(&c);
	return rc;
}

static int parse_args(struct sweep *sw, int argc, char **argv,
		      struct cli_opts *o)
{
	const char *path = NULL, *from = NULL, *to = NULL, *step = NULL;
	const char *rates = NULL, *dwell = NULL, *length = NULL;
	const char *variants = NULL, *stations = NULL, *out = NULL;
	const struct cli_flag flags[] = {
	    {"--path", &path, NULL,
	     "P[,P...]\tRF paths to move (attenuation sweep)"},
	    {"--from", &from, NULL, "DB\tfirst attenuation"},
	    {"--to", &to, NULL, "DB\tlast attenuation"},
	    {"--step", &step, NULL, "DB\tattenuation step (above 0)"},
	    {"--rates", &rates, NULL,
	     "mcs:N,...|legacy:R,...\tfixed rates to step through (rate "
	     "sweep)"},
	    {"--suite", &sw->suite, NULL,
	     "S\tthe suite run at each step (default rtt_fair)"},
	    {"--dwell", &dwell, NULL,
	     "S\tat most S seconds for the link to settle (default 20)"},
	    {"--length", &length, NULL,
	     "S\tseconds of each run (default: the suite's)"},
	    {"--variant", &variants, NULL,
	     "V[,V...]\tvariants, each over all steps (default the common "
	     "--variant)"},
	    {"--station", &stations, NULL,
	     "S,...\tstations whose rate is fixed (default all)"},
	    {"--out", &out, NULL,
	     "RESULTS\tresults directory (default ROOT/results)"},
	    {NULL, NULL, NULL, NULL}};
	static char buf[4200], words[SWEEP_MAX_PATHS][256];
	static struct cell c;
	const struct suite *s;
	struct al_err err;
	int rc = cli_parse("sweep", argc, argv, o, flags, NULL, 0), n;

	if (rc >= 0)
		return rc;
	if (!rates && !path) {
		fprintf(stderr, "airlab sweep: give --path P --from DB --to DB "
				"--step DB, or --rates LIST\n");
		return AL_EXIT_USAGE;
	}
	if (rates && (from || to || step)) {
		fprintf(stderr, "airlab sweep: --rates steps through rates; "
				"--from/--to/--step are for attenuation\n");
		return AL_EXIT_USAGE;
	}
	if (path) {
		n = split_list(path, words, SWEEP_MAX_PATHS);
		if (n <= 0) {
			fprintf(stderr,
				"airlab sweep: --path '%s' is not a "
				"list of paths\n",
				path);
			return AL_EXIT_USAGE;
		}
		for (sw->npaths = 0; sw->npaths < n; sw->npaths++)
			snprintf(sw->paths[sw->npaths], LAB_NAME_MAX, "%s",
				 words[sw->npaths]);
	}
	if (!sw->suite)
		sw->suite = "rtt_fair";
	if (!(s = suite_find(sw->suite, &err))) {
		fprintf(stderr, "airlab sweep: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	sw->dwell_s = 20;
	if ((dwell &&
	     cli_seconds_arg("sweep", "--dwell", dwell, 1, &sw->dwell_s) < 0) ||
	    (length && cli_seconds_arg("sweep", "--length", length, 1, &n) < 0))
		return AL_EXIT_USAGE;
	if (length)
		sw->params.length_s = n;
	if (variants) {
		sw->nvariants =
		    split_list(variants, sw->variants, SWEEP_MAX_VARIANTS);
		if (sw->nvariants <= 0) {
			fprintf(stderr,
				"airlab sweep: --variant '%s': give "
				"1 to %d variants\n",
				variants, SWEEP_MAX_VARIANTS);
			return AL_EXIT_USAGE;
		}
	}
	/* Everything is checked before anything moves: the cell of each
	 * variant, the paths, the stations. */
	for (int v = 0; v < (sw->nvariants ? sw->nvariants : 1); v++) {
		if (sw->nvariants)
			snprintf(o->variant, sizeof(o->variant), "%s",
				 sw->variants[v]);
		if (cli_cell_load(&c, o) < 0)
			return AL_EXIT_USAGE;
		if (!sw->nvariants)
			snprintf(sw->variants[sw->nvariants++], 256, "%s",
				 c.variant.name);
		if (v == 0) {
			rc = rates ? rate_steps(sw, rates, five_ghz(&c))
				   : atten_steps(sw, from, to, step);
			for (int k = 0; rc == 0 && k < sw->npaths; k++) {
				const struct lab_atten *a;
				int ch;

				if (atten_path_find(&c.lab, sw->paths[k], &a,
						    &ch, &err) < 0)
					rc = cli_fail_neg(&err);
			}
			if (rc == 0)
				rc = pick_stations(sw, &c, stations);
			if (rc == 0 && sw->mode == SWEEP_LEGACY)
				rc = legacy_usable(sw, &c);
		}
		cell_free(&c);
		if (rc < 0)
			return AL_EXIT_USAGE;
	}
	sw->results = cli_results_dir(o, out, buf, sizeof(buf));
	return -1;
}

static json_t *spec_json(const struct sweep *sw, const struct cli_opts *o)
{
	json_t *paths = json_array(), *vars = json_array(), *x = json_array();
	static const char *const mode[] = {"attenuation", "mcs", "legacy"};
	char start[32];

	for (int k = 0; k < sw->npaths; k++)
		json_array_append_new(paths, json_string(sw->paths[k]));
	for (int v = 0; v < sw->nvariants; v++)
		json_array_append_new(vars, json_string(sw->variants[v]));
	for (int i = 0; i < sw->nx; i++)
		json_array_append_new(x, json_real(sw->x[i]));
	path_utc_stamp(start, sizeof(start));
	return json_pack(
	    "{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:i, "
	    "s:o, s:[]}",
	    "id", sw->id, "kind", "sweep", "start", start, "mode",
	    mode[sw->mode], "suite", sw->suite, "lab", o->lab, "paths", paths,
	    "variants", vars, "x", x, "dwell_s", sw->dwell_s, "length_s",
	    sw->params.length_s > 0 ? json_real(sw->params.length_s)
				    : json_null(),
	    "steps");
}

int cmd_sweep(int argc, char **argv, struct cli_opts *o)
{
	static struct sweep sw;
	char parent[4300], stamp[32];
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	int rc, worst = 0;

	memset(&sw, 0, sizeof(sw));
	if ((rc = parse_args(&sw, argc, argv, o)) >= 0)
		return rc;
	snprintf(parent, sizeof(parent), "%s/sweeps", sw.results);
	path_utc_stamp(stamp, sizeof(stamp));
	if ((mkdir(sw.results, 0755) < 0 && errno != EEXIST) ||
	    path_mkdir_unique(parent, stamp, sw.id, sizeof(sw.id), sw.dir,
			      sizeof(sw.dir)) < 0) {
		fprintf(stderr,
			"airlab sweep: cannot create a directory in "
			"%s: %s\n",
			parent, strerror(errno));
		return AL_EXIT_LAB;
	}
	snprintf(sw.file, sizeof(sw.file), "%s/sweep.json", sw.dir);
	sw.root = spec_json(&sw, o);
	sw.steps = json_object_get(sw.root, "steps");
	if (write_record(&sw, "running") < 0) {
		json_decref(sw.root);
		return AL_EXIT_LAB;
	}
	fprintf(stderr,
		"sweep %s: %d steps x %d variants, %s each; record %s\n", sw.id,
		sw.nx, sw.nvariants, sw.suite, sw.file);
	printf("%-16s %-10s %-8s %-5s %7s %8s %8s %7s %8s %8s %s\n", "variant",
	       "step", "station", "assoc", "sig_dBm", "rate_Mbs", "txbr_Mbs",
	       "up_Mbs", "down_Mbs", "lat_ms", "outcome");
	interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	for (int v = 0; v < sw.nvariants && !interrupted && rc != AL_EXIT_LAB;
	     v++)
		rc = run_variant(&sw, o, v, &worst);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc == AL_EXIT_LAB || worst == AL_EXIT_LAB)
		rc = AL_EXIT_LAB;
	else if (interrupted)
		rc = AL_EXIT_WORSE; /* an incomplete record */
	else
		rc = worst ? AL_EXIT_PARTIAL : AL_EXIT_OK;
	write_record(&sw, rc == AL_EXIT_LAB	  ? "lab-failed"
			  : interrupted		  ? "interrupted"
			  : rc == AL_EXIT_PARTIAL ? "partial"
						  : "complete");
	fprintf(stderr,
		"sweep %s: %s, %zu steps recorded in %s (report: airlab report "
		"--sweep %s)\n",
		sw.id,
		rc == AL_EXIT_LAB	? "the lab failed"
		: interrupted		? "interrupted"
		: rc == AL_EXIT_PARTIAL ? "some runs did not complete"
					: "complete",
		json_array_size(sw.steps), sw.file, sw.id);
	json_decref(sw.root);
	return rc;
}
