/* The page of one sweep (its sweep.json): goodput, latency under load
 * and the rate used against the swept attenuation or rate, one line per
 * variant and moved station, and the table of every step. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/markup.h"
#include "plot.h"
#include "series_doc.h"

#define MAX_LINES 32

struct line {
	const char *variant, *station;
	struct plot_buf data; /* x goodput lat_median lat_p99 rate */
};

static struct line *line_of(struct line *lines, int *n, const char *variant,
			    const char *station)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(lines[i].variant, variant) &&
		    !strcmp(lines[i].station, station))
			return &lines[i];
	if (*n == MAX_LINES)
		return NULL;
	lines[*n] = (struct line){variant, station, {0}};
	return &lines[(*n)++];
}

/* gnuplot reads "NaN" as a missing point. */
static void put(struct plot_buf *b, double v)
{
	if (isfinite(v))
		plot_printf(b, " %.4f", v);
	else
		plot_printf(b, " NaN");
}

static int plot(const char *out, struct line *lines, int n, const char *xlabel,
		const char *title, const char *ylabel, const char *cols,
		const char *png, struct al_err *err)
{
	struct plot_buf b = {0};
	int rc;

	for (int i = 0; i < n; i++)
		plot_printf(&b, "$d%d << EOD\n%sEOD\n", i,
			    lines[i].data.s ? lines[i].data.s : "");
	plot_printf(&b,
		    "set title '%s'\nset xlabel '%s'\nset ylabel '%s'\n"
		    "set yrange [0:*]\nset key outside bottom center "
		    "horizontal\nset datafile missing 'NaN'\nplot",
		    title, xlabel, ylabel);
	for (int i = 0; i < n; i++) {
		const char *c = cols;

		/* cols: "2" or "3,4" (a solid line, then a dashed one). */
		for (int k = 0; *c; k++) {
			int col = atoi(c);

			plot_printf(&b,
				    "%s $d%d using 1:%d with linespoints lw 2 "
				    "dt %d lc %d title '%s %s%s'",
				    i || k ? "," : "", i, col, k ? 2 : 1, i + 1,
				    lines[i].variant, lines[i].station,
				    k ? " p99" : (cols[1] ? " median" : ""));
			c += strcspn(c, ",");
			if (*c)
				c++;
		}
	}
	plot_printf(&b, "\n");
	rc = plot_gnuplot(out, b.s, png, err);
	free(b.s);
	return rc;
}

static void cell(FILE *f, double v, const char *fmt)
{
	fputs("<td>", f);
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("&ndash;", f);
	fputs("</td>", f);
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static void station_row(FILE *f, const struct series_step *st,
			const struct series_station *s)
{
	fputs("<tr><td>", f);
	markup_text(f, st->variant);
	fputs("</td><td>", f);
	markup_text(f, st->label);
	fputs("</td>", f);
	cell(f, st->x, "%.2f");
	fputs("<td>", f);
	markup_text(f, s->name);
	fprintf(f, "</td><td>%s</td><td>%s</td>",
		s->associated ? "yes" : "<b>no</b>", s->settled ? "yes" : "no");
	cell(f, s->settle_s, "%.1f");
	cell(f, s->signal_dbm, "%.0f");
	cell(f, s->rate_mbps, "%.1f");
	cell(f, s->tx_bitrate_mbps, "%.1f");
	cell(f, s->retries, "%.0f");
	cell(f, s->goodput_up_mbps, "%.2f");
	cell(f, s->goodput_down_mbps, "%.2f");
	cell(f, st->latency_median_ms, "%.1f");
	cell(f, st->latency_p99_ms, "%.1f");
	fputs("<td>", f);
	markup_text(f, st->outcome);
	fputs("</td><td>", f);
	markup_text(f, st->run_id);
	fputs("</td></tr>\n", f);
}

static int write_page(const char *out, const struct series_doc *d,
		      const char *file, struct al_err *err)
{
	static const char *const head[] = {
	    "variant", "step",	    "read dB",	   "station",	 "assoc",
	    "settled", "settle s",  "signal dBm",  "rate Mb/s",	 "tx bitrate",
	    "retries", "up Mbit/s", "down Mbit/s", "latency ms", "p99 ms",
	    "outcome", "run"};
	char path[4200], tmp[4300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/index.html", out);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "w")))
		return al_errf(err, "cannot write %s: %s", tmp,
			       strerror(errno));
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>"
	      "airlab sweep ",
	      f);
	markup_text(f, d->id);
	fputs("</title></head><body>\n<h1>Sweep ", f);
	markup_text(f, d->id);
	fputs("</h1>\n<p>", f);
	markup_text(f, or_empty(d->mode));
	fputs(" sweep, suite ", f);
	markup_text(f, or_empty(d->suite));
	fputs(", status ", f);
	markup_text(f, d->status);
	fputs(", record ", f);
	markup_text(f, file);
	fputs("</p>\n<img src=\"goodput.png\" alt=\"goodput\"><br>\n"
	      "<img src=\"latency.png\" alt=\"latency under load\"><br>\n"
	      "<img src=\"rate.png\" alt=\"rate used\">\n<table border=1>"
	      "<tr>",
	      f);
	for (size_t k = 0; k < sizeof(head) / sizeof(head[0]); k++)
		fprintf(f, "<th>%s</th>", head[k]);
	fputs("</tr>\n", f);
	for (size_t i = 0; i < d->n_steps; i++)
		for (size_t j = 0; j < d->steps[i].n_sta; j++)
			station_row(f, &d->steps[i], &d->steps[i].sta[j]);
	fputs("</table>\n</body></html>\n", f);
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		return al_errf(err, "cannot write %s: %s", path,
			       strerror(errno));
	}
	return 0;
}

/* One point of the station's line: x, goodput, latency, rate. */
static void plot_point(struct line *l, const struct series_step *st,
		       const struct series_station *s)
{
	double up = s->goodput_up_mbps, dn = s->goodput_down_mbps;

	plot_printf(&l->data, "%.4f", st->x);
	/* A station that dropped moved nothing. */
	put(&l->data, !s->associated ? 0
		      : isfinite(up) || isfinite(dn)
			  ? (isfinite(up) ? up : 0) + (isfinite(dn) ? dn : 0)
			  : NAN);
	put(&l->data, st->latency_median_ms);
	put(&l->data, st->latency_p99_ms);
	put(&l->data, s->rate_mbps);
	plot_printf(&l->data, "\n");
}

int report_sweep(const char *sweep_json, const char *out_dir,
		 struct al_err *err)
{
	struct line lines[MAX_LINES];
	struct series_doc d;
	const char *xlabel;
	int n = 0, rc = -1;

	if (series_doc_read(sweep_json, &d, err) < 0)
		return -1;
	if (strcmp(d.kind, "sweep") != 0) {
		al_errf(err, "%s: a %s record, not a sweep's", sweep_json,
			d.kind);
		goto out;
	}
	if (d.n_steps == 0) {
		al_errf(err, "%s: no \"steps\": the sweep recorded none",
			sweep_json);
		goto out;
	}
	xlabel = !strcmp(or_empty(d.mode), "mcs") ? "MCS index"
		 : !strcmp(or_empty(d.mode), "legacy")
		     ? "legacy rate (Mb/s)"
		     : "attenuation read back (dB)";
	if (mkdir(out_dir, 0755) < 0 && errno != EEXIST) {
		al_errf(err, "cannot create %s: %s", out_dir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < d.n_steps; i++) {
		const struct series_step *st = &d.steps[i];

		for (size_t j = 0; j < st->n_sta; j++) {
			struct line *l =
			    line_of(lines, &n, st->variant, st->sta[j].name);

			if (l)
				plot_point(l, st, &st->sta[j]);
		}
	}
	if (plot(out_dir, lines, n, xlabel, "goodput (up + down)", "Mbit/s",
		 "2", "goodput.png", err) < 0 ||
	    plot(out_dir, lines, n, xlabel, "latency under load", "ms", "3,4",
		 "latency.png", err) < 0 ||
	    plot(out_dir, lines, n, xlabel,
		 "rate used (bytes x 8 over airtime)", "Mb/s", "5", "rate.png",
		 err) < 0 ||
	    write_page(out_dir, &d, sweep_json, err) < 0)
		goto out;
	rc = 3;
out:
	for (int i = 0; i < n; i++)
		free(lines[i].data.s);
	series_doc_free(&d);
	return rc;
}
