/* Control protocol (see ctrl.h). */
#include "ctrl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 4

/* Splits line at blanks into at most MAX_WORDS words; returns the count
 * or -1 if there are more. */
static int split(char *line, char **w)
{
	int n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t\r", &save); t;
	     t = strtok_r(NULL, " \t\r", &save)) {
		if (n == MAX_WORDS)
			return -1;
		w[n++] = t;
	}
	return n;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int want_args(const char *cmd, int have, int lo, int hi,
		     const char *usage, char *err, size_t errlen)
{
	if (have < lo || have > hi)
		return fail(err, errlen, "%s takes %s", cmd, usage);
	return 0;
}

int med_ctrl_parse(const struct medium *m, const char *line,
		   struct med_cmd *cmd, char *err, size_t errlen)
{
	char buf[MED_CTRL_LINE_MAX + 1], *w[MAX_WORDS];
	int n;

	if (strlen(line) > MED_CTRL_LINE_MAX)
		return fail(err, errlen, "command longer than %d bytes",
			    MED_CTRL_LINE_MAX);
	snprintf(buf, sizeof(buf), "%s", line);
	n = split(buf, w);
	if (n < 0)
		return fail(err, errlen, "too many words");
	if (n == 0)
		return fail(err, errlen, "empty command");
	memset(cmd, 0, sizeof(*cmd));
	cmd->path = -1;
	if (strcmp(w[0], "set-atten") == 0) {
		char *end;
		if (want_args(w[0], n - 1, 2, 2, "PATH DB", err, errlen) < 0)
			return -1;
		cmd->op = MED_CMD_SET_ATTEN;
		cmd->path = med_path_find(m, w[1]);
		if (cmd->path < 0)
			return fail(err, errlen,
				    "unknown path '%s' (get-atten lists them)",
				    w[1]);
		errno = 0;
		cmd->db = strtod(w[2], &end);
		if (errno || end == w[2] || *end || !isfinite(cmd->db))
			return fail(err, errlen, "'%s' is not a number of dB",
				    w[2]);
		if (cmd->db < 0 || cmd->db > MED_ATTEN_MAX)
			return fail(err, errlen, "%s dB is outside 0..%g dB",
				    w[2], MED_ATTEN_MAX);
	} else if (strcmp(w[0], "get-atten") == 0) {
		if (want_args(w[0], n - 1, 0, 1, "[PATH]", err, errlen) < 0)
			return -1;
		cmd->op = MED_CMD_GET_ATTEN;
		if (n == 2) {
			cmd->path = med_path_find(m, w[1]);
			if (cmd->path < 0)
				return fail(err, errlen, "unknown path '%s'",
					    w[1]);
		}
	} else if (strcmp(w[0], "stats") == 0 || strcmp(w[0], "reset") == 0 ||
		   strcmp(w[0], "lag") == 0) {
		if (want_args(w[0], n - 1, 0, 0, "no arguments", err, errlen) <
		    0)
			return -1;
		cmd->op = w[0][0] == 's'   ? MED_CMD_STATS
			  : w[0][0] == 'r' ? MED_CMD_RESET
					   : MED_CMD_LAG;
	} else {
		return fail(err, errlen,
			    "unknown command '%.32s' (set-atten, get-atten, "
			    "stats, reset, lag)",
			    w[0]);
	}
	return 0;
}

struct out {
	char *buf;
	size_t len, cap;
	int overflow;
};

static void put(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->len) {
		o->overflow = 1;
		o->buf[o->len] = 0;
		return;
	}
	o->len += (size_t)n;
}

static void put_counters(struct out *o, const char *pre,
			 const struct med_counters *k, int queue, bool has_rate,
			 const struct mdl_rate *rate)
{
	char rn[32] = "-";

	if (has_rate)
		mdl_rate_name(rate, rn, sizeof(rn));
	put(o,
	    " %s_frames=%llu %s_bytes=%llu %s_retries=%llu %s_drops=%llu "
	    "%s_airtime_us=%llu %s_queue=%d %s_rate=%s",
	    pre, (unsigned long long)k->frames, pre,
	    (unsigned long long)k->bytes, pre, (unsigned long long)k->retries,
	    pre, (unsigned long long)k->drops, pre,
	    (unsigned long long)k->airtime_us, pre, queue, pre, rn);
}

static void stats(const struct medium *m, int64_t now_ns, struct out *o)
{
	int64_t elapsed_us = (now_ns - m->stats_since_ns) / 1000;

	for (int i = 0; i < m->nchans; i++)
		put(o,
		    "medium freq=%u elapsed_us=%lld busy_us=%lld "
		    "time_scale=%g\n",
		    m->chan[i].freq, (long long)elapsed_us,
		    (long long)m->chan[i].busy_us, m->conf.time_scale);
	put(o, "frames_in=%llu elapsed_us=%lld\n",
	    (unsigned long long)m->frames_in, (long long)elapsed_us);
	for (int r = 0; r < m->radio_end; r++) {
		const struct med_radio *rd = &m->radio[r];
		const struct med_radio_conf *c =
		    r < m->conf.nradios ? &m->conf.radio[r] : NULL;
		const uint8_t *a = rd->hwaddr;
		int to_me = 0;

		if (!rd->known && !c)
			continue;
		/* Frames queued anywhere for this radio. */
		for (int s = 0; s < m->radio_end; s++)
			for (int ac = 0; ac < MDL_NUM_AC; ac++)
				for (const struct med_frame *f =
					 m->radio[s].q[ac].head;
				     f; f = f->next)
					to_me += f->rx == r;
		double loss = med_link_loss_db(m, 0, r);
		put(o,
		    "radio %d name=%s path=%s "
		    "addr=%02x:%02x:%02x:%02x:%02x:%02x"
		    " known=%d loss_db=%.1f signal_dbm=%.1f",
		    r, c ? c->name : "-", c && c->path[0] ? c->path : "-", a[0],
		    a[1], a[2], a[3], a[4], a[5], rd->known, loss,
		    mdl_signal_dbm(m->conf.tx_power_dbm, 0, loss));
		put_counters(o, "tx", &rd->tx, rd->queued, rd->has_tx_rate,
			     &rd->tx_rate);
		put_counters(o, "rx", &rd->rx, to_me, rd->has_rx_rate,
			     &rd->rx_rate);
		put(o, " tx_ppdus=%llu tx_ampdu_subframes=%llu\n",
		    (unsigned long long)rd->tx.ppdus,
		    (unsigned long long)rd->tx.ampdu_subframes);
	}
}

size_t med_ctrl_handle(struct medium *m, const char *line, int64_t now_ns,
		       char *out, size_t outlen)
{
	struct out o = {out, 0, outlen, 0};
	struct med_cmd cmd;
	char err[160];

	out[0] = 0;
	if (med_ctrl_parse(m, line, &cmd, err, sizeof(err)) < 0) {
		put(&o, "error: %s\n", err);
		return o.len;
	}
	switch (cmd.op) {
	case MED_CMD_SET_ATTEN:
		m->path[cmd.path].atten_db = cmd.db;
		break;
	case MED_CMD_GET_ATTEN:
		for (int i = 0; i < m->npaths; i++)
			if (cmd.path < 0 || cmd.path == i)
				put(&o, "%s %.2f\n", m->path[i].name,
				    m->path[i].atten_db);
		break;
	case MED_CMD_STATS:
		stats(m, now_ns, &o);
		break;
	case MED_CMD_RESET:
		med_reset_stats(m, now_ns);
		break;
	case MED_CMD_LAG:
		put(&o,
		    "lag samples=%llu p50_us=%.1f p99_us=%.1f max_us=%.1f\n",
		    (unsigned long long)m->lag.n,
		    med_lag_quantile(&m->lag, 0.50) / 1000.0,
		    med_lag_quantile(&m->lag, 0.99) / 1000.0,
		    m->lag.max_ns / 1000.0);
		break;
	}
	put(&o, "ok\n");
	if (o.overflow) {
		o.len = 0;
		o.overflow = 0;
		put(&o, "error: reply longer than %zu bytes\n", outlen);
	}
	return o.len;
}
