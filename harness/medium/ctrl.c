/* Control protocol (see ctrl.h). */
#include "ctrl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
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

/* " key=VO/VI/BE/BK" */
static void put_per_ac(struct out *o, const char *key,
		       const uint64_t v[MDL_NUM_AC])
{
	put(o, " %s=%llu/%llu/%llu/%llu", key, (unsigned long long)v[0],
	    (unsigned long long)v[1], (unsigned long long)v[2],
	    (unsigned long long)v[3]);
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
		put(o, " tx_ppdus=%llu tx_ampdu_subframes=%llu",
		    (unsigned long long)rd->tx.ppdus,
		    (unsigned long long)rd->tx.ampdu_subframes);
		/* Per access category, VO VI BE BK: where the air goes when
		 * markings compete (rrul). */
		put_per_ac(o, "tx_ac_ppdus", rd->tx.ac_ppdus);
		put_per_ac(o, "tx_ac_airtime_us", rd->tx.ac_airtime_us);
		put(o, " tx_ac_queue=%d/%d/%d/%d\n", rd->q[0].len, rd->q[1].len,
		    rd->q[2].len, rd->q[3].len);
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

const char *med_reply_field(const char *line, size_t len, const char *key,
			    size_t *vlen)
{
	size_t klen = strlen(key);

	for (const char *p = line; p + klen < line + len; p++) {
		size_t n;

		if ((p != line && p[-1] != ' ') || strncmp(p, key, klen) != 0 ||
		    p[klen] != '=')
			continue;
		p += klen + 1;
		n = strcspn(p, " \n");
		if (p + n > line + len)
			n = (size_t)(line + len - p);
		if (vlen)
			*vlen = n;
		return p;
	}
	return NULL;
}

/* The field as text in out ("?" when absent). */
static const char *field(const char *line, size_t len, const char *key,
			 char *out, size_t outlen)
{
	size_t n;
	const char *v = med_reply_field(line, len, key, &n);

	snprintf(out, outlen, "%.*s", v ? (int)n : 1, v ? v : "?");
	return out;
}

void med_stats_print(FILE *f, const char *reply)
{
	static const char *const cols[] = {
	    "name",	"path",		 "tx_frames",	"tx_retries",
	    "tx_drops", "tx_airtime_us", "rx_frames",	"rx_airtime_us",
	    "tx_rate",	"signal_dbm",	 "tx_ac_ppdus",
	};
	static const int width[] = {8, 8, 10, 10, 8, 13, 10, 13, 12, 10, 24};
	char v[64], e[64], b[64];
	bool header = false;

	for (const char *s = reply; *s;) {
		size_t len = strcspn(s, "\n");

		if (!strncmp(s, "medium ", 7)) {
			double el =
			    atof(field(s, len, "elapsed_us", e, sizeof(e)));
			double busy =
			    atof(field(s, len, "busy_us", b, sizeof(b)));

			char ts[32];

			/* Medium time: what the air did, at its own pace. */
			field(s, len, "time_scale", ts, sizeof(ts));
			fprintf(f,
				"medium %s MHz: busy %.0f of %.0f us (%.1f%%), "
				"time scale %s\n",
				field(s, len, "freq", v, sizeof(v)), busy, el,
				el > 0 ? 100.0 * busy / el : 0.0,
				strcmp(ts, "?") ? ts : "1");
		} else if (!strncmp(s, "frames_in=", 10)) {
			fprintf(f, "frames in: %s in %s us\n",
				field(s, len, "frames_in", v, sizeof(v)),
				field(s, len, "elapsed_us", e, sizeof(e)));
		} else if (!strncmp(s, "radio ", 6)) {
			if (!header) {
				fprintf(f, "%-5s", "radio");
				for (size_t c = 0;
				     c < sizeof(width) / sizeof(width[0]); c++)
					fprintf(f, " %*s",
						c < 2 ? -width[c] : width[c],
						cols[c]);
				fputc('\n', f);
				header = true;
			}
			fprintf(f, "%-5d", atoi(s + 6));
			for (size_t c = 0; c < sizeof(width) / sizeof(width[0]);
			     c++)
				fprintf(f, " %*s", c < 2 ? -width[c] : width[c],
					field(s, len, cols[c], v, sizeof(v)));
			fputc('\n', f);
		} else if (!(len == 2 && !strncmp(s, "ok", 2))) {
			fprintf(f, "%.*s\n", (int)len, s);
		}
		s += len + (s[len] == '\n');
	}
}
