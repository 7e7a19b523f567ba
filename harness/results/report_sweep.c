/* The page of one sweep (its sweep.json): goodput, latency under load
 * and the rate used against the swept attenuation or rate, one line per
 * variant and moved station, and the table of every step. */
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/json_file.h"
#include "../util/markup.h"
#include "plot.h"

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

static int write_page(const char *out, const json_t *root, const char *file,
		      struct al_err *err)
{
	static const char *const head[] = {
	    "variant", "step",	    "read dB",	   "station",	 "assoc",
	    "settled", "settle s",  "signal dBm",  "rate Mb/s",	 "tx bitrate",
	    "retries", "up Mbit/s", "down Mbit/s", "latency ms", "p99 ms",
	    "outcome", "run"};
	json_t *steps = json_object_get(root, "steps");
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
	markup_text(f, json_str_at(root, "id", ""));
	fputs("</title></head><body>\n<h1>Sweep ", f);
	markup_text(f, json_str_at(root, "id", ""));
	fputs("</h1>\n<p>", f);
	markup_text(f, json_str_at(root, "mode", ""));
	fputs(" sweep, suite ", f);
	markup_text(f, json_str_at(root, "suite", ""));
	fputs(", status ", f);
	markup_text(f, json_str_at(root, "status", ""));
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
	for (size_t i = 0; i < json_array_size(steps); i++) {
		json_t *st = json_array_get(steps, i);
		json_t *sts = json_object_get(st, "stations");

		for (size_t j = 0; j < json_array_size(sts); j++) {
			json_t *s = json_array_get(sts, j);

			fputs("<tr><td>", f);
			markup_text(f, json_str_at(st, "variant", ""));
			fputs("</td><td>", f);
			markup_text(f, json_str_at(st, "label", ""));
			fputs("</td>", f);
			cell(f, json_num_at(st, "x"), "%.2f");
			fputs("<td>", f);
			markup_text(f, json_str_at(s, "name", ""));
			fprintf(f, "</td><td>%s</td><td>%s</td>",
				json_is_true(json_object_get(s, "associated"))
				    ? "yes"
				    : "<b>no</b>",
				json_is_true(json_object_get(s, "settled"))
				    ? "yes"
				    : "no");
			cell(f, json_num_at(s, "settle_s"), "%.1f");
			cell(f, json_num_at(s, "signal_dbm"), "%.0f");
			cell(f, json_num_at(s, "rate_mbps"), "%.1f");
			cell(f, json_num_at(s, "tx_bitrate_mbps"), "%.1f");
			cell(f, json_num_at(s, "retries"), "%.0f");
			cell(f, json_num_at(s, "goodput_up_mbps"), "%.2f");
			cell(f, json_num_at(s, "goodput_down_mbps"), "%.2f");
			cell(f, json_num_at(st, "latency_median_ms"), "%.1f");
			cell(f, json_num_at(st, "latency_p99_ms"), "%.1f");
			fputs("<td>", f);
			markup_text(f, json_str_at(st, "outcome", ""));
			fputs("</td><td>", f);
			markup_text(f, json_str_at(st, "run_id", ""));
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</table>\n</body></html>\n", f);
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		return al_errf(err, "cannot write %s: %s", path,
			       strerror(errno));
	}
	return 0;
}

int report_sweep(const char *sweep_json, const char *out_dir,
		 struct al_err *err)
{
	static struct line lines[MAX_LINES];
	json_error_t jerr;
	json_t *root = json_load_file(sweep_json, 0, &jerr), *steps;
	const char *mode, *xlabel;
	int n = 0, rc = -1;

	if (!root)
		return al_errf(err, "%s:%d: %s", sweep_json, jerr.line,
			       jerr.text);
	steps = json_object_get(root, "steps");
	mode = json_str_at(root, "mode", "");
	if (!json_is_array(steps) || json_array_size(steps) == 0) {
		al_errf(err, "%s: no \"steps\": the sweep recorded none",
			sweep_json);
		goto out;
	}
	xlabel = !strcmp(mode, "mcs")	   ? "MCS index"
		 : !strcmp(mode, "legacy") ? "legacy rate (Mb/s)"
					   : "attenuation read back (dB)";
	if (mkdir(out_dir, 0755) < 0 && errno != EEXIST) {
		al_errf(err, "cannot create %s: %s", out_dir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < json_array_size(steps); i++) {
		json_t *st = json_array_get(steps, i);
		json_t *sts = json_object_get(st, "stations");

		for (size_t j = 0; j < json_array_size(sts); j++) {
			json_t *s = json_array_get(sts, j);
			struct line *l =
			    line_of(lines, &n, json_str_at(st, "variant", ""),
				    json_str_at(s, "name", ""));
			double up = json_num_at(s, "goodput_up_mbps");
			double dn = json_num_at(s, "goodput_down_mbps");
			bool assoc =
			    json_is_true(json_object_get(s, "associated"));

			if (!l)
				continue;
			plot_printf(&l->data, "%.4f", json_num_at(st, "x"));
			/* A station that dropped moved nothing. */
			put(&l->data, !assoc ? 0
				      : isfinite(up) || isfinite(dn)
					  ? (isfinite(up) ? up : 0) +
						(isfinite(dn) ? dn : 0)
					  : NAN);
			put(&l->data, json_num_at(st, "latency_median_ms"));
			put(&l->data, json_num_at(st, "latency_p99_ms"));
			put(&l->data, json_num_at(s, "rate_mbps"));
			plot_printf(&l->data, "\n");
		}
	}
	if (plot(out_dir, lines, n, xlabel, "goodput (up + down)", "Mbit/s",
		 "2", "goodput.png", err) < 0 ||
	    plot(out_dir, lines, n, xlabel, "latency under load", "ms", "3,4",
		 "latency.png", err) < 0 ||
	    plot(out_dir, lines, n, xlabel,
		 "rate used (bytes x 8 over airtime)", "Mb/s", "5", "rate.png",
		 err) < 0 ||
	    write_page(out_dir, root, sweep_json, err) < 0)
		goto out;
	rc = 3;
out:
	for (int i = 0; i < n; i++)
		free(lines[i].data.s);
	json_decref(root);
	return rc;
}
