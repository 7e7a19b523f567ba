#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/json_file.h"
#include "../util/stats.h"
#include "../util/markup.h"
#include "../util/path.h"
#include "compare.h"
#include "flent.h"
#include "plot.h"
#include "run_doc.h"
#include "store.h"

struct rrun {
	char dir[4096];
	struct run_doc d; /* d.plot: Flent's plot for the suite; NULL: totals */
	struct cmp_samples lat, gp;
	/* Why the run's Flent file could not be read ("" if it could):
	 * said on the page, and the report fails. */
	char unreadable[AL_ERR_MAX];
};

/* Latency CDF under load from the run's own samples. */
static int plot_cdf(const char *out, int i, struct rrun *r, struct al_err *err)
{
	struct plot_buf b = {0};
	char png[64];
	double *v;
	int rc;

	if (r->lat.n == 0)
		return 1;
	v = malloc(r->lat.n * sizeof(double));
	if (!v)
		return al_errf(err, "out of memory");
	memcpy(v, r->lat.v, r->lat.n * sizeof(double));
	qsort(v, r->lat.n, sizeof(double), stats_cmp_double);
	plot_printf(&b, "$d << EOD\n");
	for (size_t k = 0; k < r->lat.n; k++)
		plot_printf(&b, "%.6g %.6g\n", v[k],
			    (double)(k + 1) / (double)r->lat.n);
	plot_printf(&b, "EOD\nset title 'Latency under load, CDF'\n"
			"set xlabel 'RTT (ms)'\nset ylabel 'fraction'\n"
			"set logscale x\nset key off\n"
			"plot $d using 1:2 with steps lw 2\n");
	free(v);
	snprintf(png, sizeof(png), "r%d-cdf.png", i);
	rc = plot_gnuplot(out, b.s, png, err);
	free(b.s);
	return rc;
}

static int same_str(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* The letter of run i on the page and in the plots' keys. */
static char run_letter(size_t i)
{
	return (char)('A' + i % 26);
}

/* The latency CDFs of all runs on one plot: the overlay Flent users read
 * runs against each other with. */
static int plot_cdf_overlay(const char *out, struct rrun *runs, size_t n,
			    struct al_err *err)
{
	struct plot_buf b = {0};
	int rc, any = 0;

	for (size_t i = 0; i < n; i++) {
		struct cmp_samples *s = &runs[i].lat;
		double *v = s->n ? malloc(s->n * sizeof(double)) : NULL;

		plot_printf(&b, "$d%zu << EOD\n", i);
		if (v) {
			memcpy(v, s->v, s->n * sizeof(double));
			qsort(v, s->n, sizeof(double), stats_cmp_double);
			for (size_t k = 0; k < s->n; k++)
				plot_printf(&b, "%.6g %.6g\n", v[k],
					    (double)(k + 1) / (double)s->n);
			free(v);
			any = 1;
		} else {
			plot_printf(&b, "NaN NaN\n");
		}
		plot_printf(&b, "EOD\n");
	}
	if (!any) {
		free(b.s);
		return 1;
	}
	plot_printf(&b, "set title 'Latency under load, CDF of each run'\n"
			"set xlabel 'RTT (ms)'\nset ylabel 'fraction'\n"
			"set logscale x\nset key bottom right\nplot ");
	for (size_t i = 0; i < n; i++)
		plot_printf(&b,
			    "%s$d%zu using 1:2 with steps lw 2 title '%c: "
			    "%s %s'",
			    i ? ", " : "", i, run_letter(i),
			    runs[i].d.suite ? runs[i].d.suite : "?",
			    runs[i].d.variant ? runs[i].d.variant : "?");
	plot_printf(&b, "\n");
	rc = plot_gnuplot(out, b.s, "cdf-overlay.png", err);
	free(b.s);
	return rc;
}

#define MAX_PLOT_STATIONS 128

static bool computed_series(json_t *meta)
{
	const char *runner = json_str_at(meta, "RUNNER", NULL);

	return runner && (!strcmp(runner, "AverageRunner") ||
			  !strcmp(runner, "SumRunner") ||
			  !strcmp(runner, "FairnessRunner"));
}

/* Each station's goodput (its TCP series summed) and latency (its
 * probes averaged) over the run, from the Flent file: the series carry
 * their station in SERIES_META. */
static int plot_station_time(const char *out, int i, struct rrun *r,
			     struct al_err *err)
{
	/* A station's series of one kind: goodput (0) or latency (1). */
	struct station_series {
		size_t k;
		int lat;
		json_t *vals;
	} * ser;
	const char *name[MAX_PLOT_STATIONS];
	bool has[2][MAX_PLOT_STATIONS] = {{false}};
	size_t shown[2] = {0, 0}, ns = 0, nser = 0, nx;
	json_t *root, *x, *res, *meta, *m;
	struct plot_buf b = {0};
	char path[4400], png[64];
	const char *key;
	int rc;

	if (!r->d.flent_file || r->unreadable[0])
		return 1;
	snprintf(path, sizeof(path), "%s/%s", r->dir, r->d.flent_file);
	if (!(root = flent_read(path, err)))
		return -1;
	x = json_object_get(root, "x_values");
	res = json_object_get(root, "results");
	meta =
	    json_object_get(json_object_get(root, "metadata"), "SERIES_META");
	nx = json_array_size(x);
	ser = calloc(json_object_size(meta) + 1, sizeof(*ser));
	if (!ser) {
		json_decref(root);
		return al_errf(err, "out of memory");
	}
	/* The stations, and each one's series, read once. */
	json_object_foreach(meta, key, m)
	{
		const char *st = json_str_at(m, "STATION", NULL),
			   *u = json_str_at(m, "UNITS", NULL);
		size_t k = 0;

		if (!st || computed_series(m))
			continue;
		while (k < ns && strcmp(name[k], st))
			k++;
		if (k == ns && ns < MAX_PLOT_STATIONS)
			name[ns++] = st;
		if (k < ns && (same_str(u, "ms") || same_str(u, "Mbits/s")))
			ser[nser++] = (struct station_series){
			    k, same_str(u, "ms"), json_object_get(res, key)};
	}
	/* $g: goodput (summed), $l: latency (averaged); a column per
	 * station after t. */
	for (int lat = 0; lat < 2 && ns && nx; lat++) {
		plot_printf(&b, "$%c << EOD\n", lat ? 'l' : 'g');
		for (size_t t = 0; t < nx; t++) {
			plot_printf(&b, "%.3f",
				    json_number_value(json_array_get(x, t)));
			for (size_t k = 0; k < ns; k++) {
				double sum = 0;
				int got = 0;

				for (size_t j = 0; j < nser; j++) {
					json_t *v =
					    json_array_get(ser[j].vals, t);

					if (ser[j].k == k &&
					    ser[j].lat == lat &&
					    json_is_number(v)) {
						sum += json_number_value(v);
						got++;
					}
				}
				has[lat][k] |= got > 0;
				if (!got)
					plot_printf(&b, " NaN");
				else
					plot_printf(&b, " %.6g",
						    lat ? sum / got : sum);
			}
			plot_printf(&b, "\n");
		}
		plot_printf(&b, "EOD\n");
	}
	free(ser);
	for (size_t k = 0; k < ns; k++) {
		shown[0] += has[0][k];
		shown[1] += has[1][k];
	}
	/* A panel for each kind some station has (rrul's probes are the
	 * AP's, an airtime run pings from one station). */
	if (!shown[0] && !shown[1]) {
		json_decref(root);
		free(b.s);
		return 1;
	}
	plot_printf(&b, "set multiplot layout %d,1\nset xlabel 's'\n%s",
		    (shown[0] > 0) + (shown[1] > 0),
		    ns > 12 ? "set key off\n" : "set key outside right top\n");
	for (int lat = 0; lat < 2; lat++) {
		size_t n = 0;

		if (!shown[lat])
			continue;
		plot_printf(&b,
			    "set title '%s per station over time%s'\n"
			    "set ylabel '%s'\n%s\nplot ",
			    lat ? "Latency" : "Goodput",
			    shown[lat] > 12 ? " (one line a station)" : "",
			    lat ? "ms" : "Mbit/s",
			    lat ? "set logscale y" : "unset logscale y");
		for (size_t k = 0; k < ns; k++)
			if (has[lat][k])
				plot_printf(&b,
					    "%s$%c using 1:%zu with lines "
					    "title '%s'",
					    n++ ? ", " : "", lat ? 'l' : 'g',
					    k + 2, name[k]);
		plot_printf(&b, "\n");
	}
	plot_printf(&b, "unset multiplot\n");
	json_decref(root); /* name[] points into it */
	snprintf(png, sizeof(png), "r%d-station-time.png", i);
	rc = plot_gnuplot_size(out, b.s, png, 1000, 700, err);
	free(b.s);
	return rc;
}

/* Per-station goodput (up, down) and airtime share, side by side. */
static int plot_stations(const char *out, int i, struct rrun *r,
			 struct al_err *err)
{
	const struct run_doc_airtime *src = run_doc_airtime(&r->d, "medium");
	struct plot_buf b = {0};
	char png[64];
	int rc;

	if (!src)
		src = run_doc_airtime(&r->d, "nl80211");
	if (!r->d.n_goodput && !src)
		return 1;
	plot_printf(&b, "$g << EOD\n");
	for (size_t k = 0; k < r->d.n_goodput; k++) {
		const struct run_doc_goodput *g = &r->d.goodput[k];

		/* gnuplot draws no bar for a figure not measured */
		plot_printf(&b, "%s %.6g %.6g\n", g->station,
			    isfinite(g->up_mbps) ? g->up_mbps : 0.0,
			    isfinite(g->down_mbps) ? g->down_mbps : 0.0);
	}
	plot_printf(&b, "EOD\n$a << EOD\n");
	for (size_t k = 0; src && k < src->n; k++)
		plot_printf(&b, "%s %.6g\n", src->sta[k].station,
			    isfinite(src->sta[k].share) ? src->sta[k].share
							: 0.0);
	plot_printf(&b, "EOD\nset multiplot layout 1,2\n"
			"set style data histograms\n"
			"set style histogram clustered gap 1\n"
			"set style fill solid 0.8 border -1\n"
			"set yrange [0:*]\n");
	if (r->d.n_goodput)
		plot_printf(&b, "set title 'Goodput per station (Mbit/s)'\n"
				"plot $g using 2:xtic(1) title 'up', "
				"'' using 3 title 'down'\n");
	if (src)
		plot_printf(&b, "set title 'Airtime share per station'\n"
				"set yrange [0:1]\n"
				"plot $a using 2:xtic(1) title 'share'\n");
	plot_printf(&b, "unset multiplot\n");
	snprintf(png, sizeof(png), "r%d-stations.png", i);
	rc = plot_gnuplot(out, b.s, png, err);
	free(b.s);
	return rc;
}

/* Flent's own plot of its file: the suite's default view, as the run
 * recorded it (runs before that get Flent's totals). */
static int plot_flent(const char *out, int i, struct rrun *r,
		      struct al_err *err)
{
	char in[4400], png[4200], log[4200];
	int rc;

	if (!r->d.flent_file)
		return 1;
	snprintf(in, sizeof(in), "%s/%s", r->dir, r->d.flent_file);
	snprintf(png, sizeof(png), "%s/r%d-series.png", out, i);
	snprintf(log, sizeof(log), "%s/report.log", out);
	/* Its title overlaps the top panel at any size: the page says what
	 * the run is. 12x8 inches at 100 dpi: readable at full width. */
	rc = plot_run_tool(
	    (char *const[]){"flent", "-i", in, "-p",
			    (char *)(r->d.plot ? r->d.plot : "totals"),
			    "--no-title", "--figure-width", "12",
			    "--figure-height", "8", "--figure-dpi", "100", "-o",
			    png, NULL},
	    log);
	if (rc)
		return al_errf(err, "flent could not plot %s (exit %d, see %s)",
			       in, rc, log);
	return 0;
}

/* Box plots of one metric's samples, one box per run. */
static int plot_boxes(const char *out, struct rrun *runs, size_t n, int lat,
		      struct al_err *err)
{
	struct plot_buf b = {0};
	int rc, any = 0;

	for (size_t i = 0; i < n; i++) {
		struct cmp_samples *s = lat ? &runs[i].lat : &runs[i].gp;

		plot_printf(&b, "$d%zu << EOD\n", i);
		for (size_t k = 0; k < s->n; k++)
			plot_printf(&b, "%.6g\n", s->v[k]);
		if (!s->n)
			plot_printf(&b, "NaN\n");
		any |= s->n > 0;
		plot_printf(&b, "EOD\n");
	}
	if (!any) {
		free(b.s);
		return 1;
	}
	plot_printf(&b,
		    "set title '%s'\nset style data boxplot\n"
		    "set style fill solid 0.4 border -1\nset key off\n"
		    "set xtics (",
		    lat ? "Latency under load (ms)" : "Total goodput (Mbit/s)");
	for (size_t i = 0; i < n; i++)
		plot_printf(&b, "%s\"%c: %s %s\" %zu", i ? ", " : "",
			    run_letter(i),
			    runs[i].d.suite ? runs[i].d.suite : "?",
			    runs[i].d.variant ? runs[i].d.variant : "?", i + 1);
	plot_printf(&b, ")\nset xrange [0.5:%zu.5]\n%splot ", n,
		    lat ? "set logscale y\n" : "");
	for (size_t i = 0; i < n; i++)
		plot_printf(&b, "%s$d%zu using (%zu):1", i ? ", " : "", i,
			    i + 1);
	plot_printf(&b, "\n");
	rc = plot_gnuplot(out, b.s, lat ? "box-latency.png" : "box-goodput.png",
			  err);
	free(b.s);
	return rc;
}

static void summary_table(FILE *f, const struct run_doc *d)
{
	static const struct {
		const char *key, *label, *fmt;
	} rows[] = {
	    {"latency_median_ms", "latency under load, median (ms)", "%.2f"},
	    {"latency_p90_ms", "latency under load, p90 (ms)", "%.2f"},
	    {"latency_p99_ms", "latency under load, p99 (ms)", "%.2f"},
	    {"up_mbps", "goodput up (Mbit/s)", "%.2f"},
	    {"down_mbps", "goodput down (Mbit/s)", "%.2f"},
	    {"up_jain", "Jain's index up", "%.3f"},
	    {"down_jain", "Jain's index down", "%.3f"},
	    {"flows", "bulk flows", "%.0f"},
	    {"flows_started_2s", "flows going within 2 s", "%.0f"},
	};

	fputs("<table><tr><th>figure</th><th>value</th></tr>\n", f);
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		double v = run_doc_figure(d, rows[k].key);

		if (!isfinite(v))
			continue;
		fprintf(f, "<tr><td>%s</td><td>", rows[k].label);
		fprintf(f, rows[k].fmt, v);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Each run against the first run of the page with the same suite: runs
 * of different suites measure different things and are never compared. */
static void compare_table(FILE *f, struct rrun *runs, size_t n)
{
	size_t nm;
	const struct cmp_metric *ms = cmp_metrics(&nm);

	fputs("<table><tr><th>run</th><th>against</th><th>metric</th>"
	      "<th>its median</th><th>median</th><th>change</th><th>95% "
	      "CI</th><th>p (Mann-Whitney)</th><th>verdict</th></tr>\n",
	      f);
	for (size_t i = 1; i < n; i++) {
		size_t a = 0;

		while (a < i && !same_str(runs[a].d.suite, runs[i].d.suite))
			a++;
		if (a == i)
			continue; /* the first of its suite: the reference */
		for (size_t k = 0; k < nm; k++) {
			int lat = !strcmp(ms[k].name, "latency");
			struct cmp_result r;

			if (!lat && strcmp(ms[k].name, "goodput"))
				continue;
			/* The samples write_page loaded for the plots. */
			cmp_compare(lat ? &runs[a].lat : &runs[a].gp,
				    lat ? &runs[i].lat : &runs[i].gp, &ms[k],
				    ms[k].threshold, 1, &r);
			fprintf(f, "<tr><td>%c</td><td>%c</td><td>%s (%s)</td>",
				run_letter(i), run_letter(a), ms[k].name,
				ms[k].units);
			if (r.verdict == CMP_NODATA) {
				fputs("<td colspan=5>too few samples</td>"
				      "<td>no data</td></tr>\n",
				      f);
				continue;
			}
			fprintf(f,
				"<td>%.2f</td><td>%.2f</td><td>%+.1f%%</td>"
				"<td>%+.1f%% .. %+.1f%%</td><td>%.3g</td>"
				"<td class=%s>%s</td></tr>\n",
				r.a_median, r.b_median, 100 * r.change,
				100 * r.ci_lo, 100 * r.ci_hi, r.p_mann_whitney,
				r.verdict == CMP_WORSE	  ? "worse"
				: r.verdict == CMP_BETTER ? "better"
							  : "same",
				cmp_verdict_name(r.verdict));
		}
	}
	fputs("</table>\n", f);
}

static void img(FILE *f, const char *out, const char *name, const char *alt)
{
	char path[4200];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", out, name);
	if (stat(path, &sb) == 0)
		fprintf(f, "<img src=\"%s\" alt=\"%s\">\n", name, alt);
}

/* Links to a run's raw files that exist, relative to the page. */
static void run_links(FILE *f, const char *out, const struct rrun *r)
{
	const char *files[] = {"run.json", r->d.flent_file, "console.log",
			       "lava.log", "agent.log"};
	char path[4600], rel[4600];
	struct stat sb;
	int shown = 0;

	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		if (!files[k])
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->dir, files[k]);
		if (stat(path, &sb) < 0)
			continue;
		path_relative(out, path, rel, sizeof(rel));
		fputs(shown++ ? ", " : "", f);
		fputs("<a href=\"", f);
		markup_text(f, rel);
		fputs("\">", f);
		markup_text(f, files[k]);
		fputs("</a>", f);
	}
	if (!shown)
		fputs("-", f);
}

/* What the page shows: when it was made and, per run, where and on
 * what it ran, with its raw files. */
static void page_header(FILE *f, const char *out, struct rrun *runs, size_t n)
{
	static const char *const cols[] = {
	    "suite",   "variant", "lab",	 "topology",  "DUT kernel",
	    "hostapd", "airlab",  "start (UTC)", "DUT image",
	};
	char stamp[32];

	path_utc_stamp(stamp, sizeof(stamp));
	fprintf(f, "<p>made %s</p>\n<table><tr><th>run</th><th>id</th>", stamp);
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		fprintf(f, "<th>%s</th>", cols[c]);
	fputs("<th>files</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct run_doc *d = &runs[i].d;
		char commit[32];
		const char *vals[] = {
		    d->suite,	      d->variant, d->lab,
		    d->topology,      d->kernel,  d->hostapd,
		    d->airlab_commit, d->start,	  d->dut_image_name};

		/* a commit: its first 12 digits, "-dirty" kept */
		if (d->airlab_commit && strlen(d->airlab_commit) >= 40) {
			snprintf(commit, sizeof(commit), "%.12s%s",
				 d->airlab_commit, d->airlab_commit + 40);
			vals[6] = commit;
		}
		fprintf(f, "<tr><td>%c</td><td>", run_letter(i));
		markup_text(f, runs[i].d.id ? runs[i].d.id : runs[i].dir);
		fputs("</td>", f);
		for (size_t c = 0; c < sizeof(vals) / sizeof(vals[0]); c++) {
			fputs("<td>", f);
			markup_text(f, vals[c] ? vals[c] : "-");
			fputs("</td>", f);
		}
		fputs("<td>", f);
		run_links(f, out, &runs[i]);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void free_runs(struct rrun *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		run_doc_free(&runs[i].d);
		cmp_samples_free(&runs[i].lat);
		cmp_samples_free(&runs[i].gp);
	}
	free(runs);
}

/* The page; extra (may be NULL) goes before the comparison. */
static int write_page(const char *const *run_dirs, size_t n,
		      const char *out_dir, const char *extra, int extra_images,
		      struct al_err *err)
{
	struct rrun *runs = calloc(n ? n : 1, sizeof(*runs));
	char path[4200], tmp[4300];
	int images = extra_images, failed = 0;
	struct al_err first = {0};
	FILE *f;

	if (!runs)
		return al_errf(err, "out of memory");
	if (mkdir(out_dir, 0755) < 0 && errno != EEXIST) {
		free(runs);
		return al_errf(err, "cannot create %s: %s", out_dir,
			       strerror(errno));
	}
	for (size_t i = 0; i < n; i++) {
		struct rrun *r = &runs[i];
		struct al_err e;

		snprintf(r->dir, sizeof(r->dir), "%s", run_dirs[i]);
		if (run_doc_read(r->dir, &r->d, err) < 0) {
			free_runs(runs, n);
			return -1;
		}
		/* A run without samples (failed) still gets its section; a
		 * run whose Flent file is cut short or missing gets one
		 * that says so, and the report fails. */
		if (r->d.flent_file &&
		    (cmp_load(r->dir, cmp_metric_find("latency"), &r->lat, &e) <
			 0 ||
		     cmp_load(r->dir, cmp_metric_find("goodput"), &r->gp, &e) <
			 0)) {
			snprintf(r->unreadable, sizeof(r->unreadable), "%s",
				 e.msg);
			fprintf(stderr, "report: %s: %s\n",
				r->d.id ? r->d.id : r->dir, e.msg);
			if (!failed++)
				first = e;
		}
	}
	for (size_t i = 0; i < n; i++) {
		int (*plots[])(const char *, int, struct rrun *,
			       struct al_err *) = {
		    plot_flent, plot_cdf, plot_stations, plot_station_time};

		fprintf(stderr, "report: %s (%zu of %zu)\n",
			runs[i].d.id ? runs[i].d.id : runs[i].dir, i + 1, n);
		for (size_t k = 0; k < sizeof(plots) / sizeof(plots[0]); k++) {
			struct al_err e;
			int rc = plots[k](out_dir, (int)i, &runs[i], &e);

			if (rc == 0)
				images++;
			else if (rc < 0 && !failed++)
				first = e;
		}
	}
	if (n > 1)
		for (int k = 0; k < 3; k++) {
			struct al_err e;
			int rc = k < 2
				     ? plot_boxes(out_dir, runs, n, k == 0, &e)
				     : plot_cdf_overlay(out_dir, runs, n, &e);

			if (rc == 0)
				images++;
			else if (rc < 0 && !failed++)
				first = e;
		}

	/* Written aside and renamed: a reader never sees half a page. */
	snprintf(path, sizeof(path), "%s/index.html", out_dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "w"))) {
		free_runs(runs, n);
		return al_errf(err, "cannot write %s: %s", tmp,
			       strerror(errno));
	}
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
	      "<title>airlab report</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:2em;max-width:1700px}\n"
	      "table{border-collapse:collapse;margin:1em 0}\n"
	      "td,th{border:1px solid #bbb;padding:.25em .6em;"
	      "text-align:right}\n"
	      "img{max-width:100%;margin:.3em;border:1px solid #ddd}\n"
	      ".worse{background:#f6c5c5}.better{background:#c9efc9}\n"
	      "</style></head><body>\n<h1>airlab report</h1>\n",
	      f);
	page_header(f, out_dir, runs, n);
	if (extra)
		fputs(extra, f);
	if (n > 1) {
		fputs("<h2>Comparison (each run against the first run of "
		      "its suite)</h2>\n",
		      f);
		compare_table(f, runs, n);
		img(f, out_dir, "cdf-overlay.png", "latency CDFs, all runs");
		img(f, out_dir, "box-latency.png", "latency box plot");
		img(f, out_dir, "box-goodput.png", "goodput box plot");
		/* The boxes' labels, spelled out. */
		fputs("<p>", f);
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%s%c: ", i ? ", " : "", run_letter(i));
			markup_text(f, runs[i].d.suite ? runs[i].d.suite : "?");
			fputc(' ', f);
			markup_text(f, runs[i].d.variant ? runs[i].d.variant
							 : "?");
		}
		fputs("</p>\n", f);
	}
	for (size_t i = 0; i < n; i++) {
		struct rrun *r = &runs[i];
		char name[64];

		fprintf(f, "<h2>%c: ", run_letter(i));
		markup_text(f, r->d.id);
		fputs("</h2>\n<p>suite ", f);
		markup_text(f, r->d.suite);
		fputs(", variant ", f);
		markup_text(f, r->d.variant);
		fputs(", kernel ", f);
		markup_text(f, r->d.kernel);
		fputs(", status <b>", f);
		markup_text(f, r->d.status);
		fputs("</b>", f);
		if (r->d.reasons && *r->d.reasons) {
			fputs(": ", f);
			markup_text(f, r->d.reasons);
		}
		fputs("</p>\n", f);
		if (r->unreadable[0]) {
			fputs("<p class=\"worse\">No time series, CDF or "
			      "comparison for this run: ",
			      f);
			markup_text(f, r->unreadable);
			fputs("</p>\n", f);
		}
		summary_table(f, &r->d);
		snprintf(name, sizeof(name), "r%zu-series.png", i);
		img(f, out_dir, name, "time series (Flent)");
		snprintf(name, sizeof(name), "r%zu-cdf.png", i);
		img(f, out_dir, name, "latency CDF");
		snprintf(name, sizeof(name), "r%zu-stations.png", i);
		img(f, out_dir, name, "per-station goodput and airtime");
		snprintf(name, sizeof(name), "r%zu-station-time.png", i);
		img(f, out_dir, name,
		    "per-station goodput and latency over time");
		fputs("<p>files: ", f);
		run_links(f, out_dir, r);
		fputs("</p>\n", f);
	}
	fputs("</body></html>\n", f);
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		free_runs(runs, n);
		return al_errf(err, "cannot write %s: %s", path,
			       strerror(errno));
	}
	free_runs(runs, n);
	if (failed) {
		*err = first;
		return -1;
	}
	return images;
}

int report_write(const char *const *run_dirs, size_t n, const char *out_dir,
		 struct al_err *err)
{
	return write_page(run_dirs, n, out_dir, NULL, 0, err);
}

/* ---- nightly: trends over the last nights --------------------------- */

#define TREND_NIGHTS 30

struct trend_ctx {
	struct plot_buf *data;
	const struct regressed *reg;
	int n;
	char labels[TREND_NIGHTS][16];
};

/* Run ids a night's summary.json marked regressed, over all nights. */
struct regressed {
	char (*id)[256];
	size_t n, cap;
};

static void collect_regressed(const char *results, struct regressed *r)
{
	char pat[4200], path[4600];
	DIR *d;
	struct dirent *e;

	snprintf(pat, sizeof(pat), "%s/nightly", results);
	if (!(d = opendir(pat)))
		return;
	while ((e = readdir(d))) {
		json_t *root, *runs;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/summary.json", pat,
			 e->d_name);
		if (!(root = json_load_file(path, 0, NULL)))
			continue;
		runs = json_object_get(root, "runs");
		for (size_t i = 0; i < json_array_size(runs); i++) {
			json_t *x = json_array_get(runs, i);
			const char *id = json_str_at(x, "id", NULL);

			if (!id ||
			    !json_is_true(json_object_get(x, "regressed")))
				continue;
			if (r->n == r->cap) {
				size_t nc = r->cap ? r->cap * 2 : 16;
				void *ni = realloc(r->id, nc * sizeof(*r->id));

				if (!ni)
					break;
				r->id = ni;
				r->cap = nc;
			}
			snprintf(r->id[r->n++], sizeof(r->id[0]), "%s", id);
		}
		json_decref(root);
	}
	closedir(d);
}

static int is_regressed(const struct regressed *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->id[i], id))
			return 1;
	return 0;
}

static int trend_point(void *ctx, const struct store_run *run)
{
	struct trend_ctx *t = ctx;

	if (t->n >= TREND_NIGHTS)
		return 1;
	/* x: the night's index; its date (MM-DD) labels it */
	snprintf(t->labels[t->n], sizeof(t->labels[0]), "%.5s",
		 strlen(run->start) >= 10 ? run->start + 5 : "?");
	plot_printf(t->data, "%d %.6g %.6g %.6g %d\n", t->n, run->lat_median_ms,
		    run->lat_p99_ms,
		    (isnan(run->up_mbps) ? 0 : run->up_mbps) +
			(isnan(run->down_mbps) ? 0 : run->down_mbps),
		    is_regressed(t->reg, run->id));
	t->n++;
	return 0;
}

static int plot_trend(const char *out, int k, struct store *db,
		      const char *suite, const char *variant,
		      const struct regressed *reg, struct al_err *err)
{
	struct plot_buf data = {0}, b = {0};
	struct trend_ctx t = {&data, reg, 0, {{0}}};
	struct store_query q = {
	    .suite = suite, .variant = variant, .last = TREND_NIGHTS};
	char png[64];
	int rc;

	if (store_runs(db, &q, trend_point, &t, err) < 0)
		return -1;
	if (t.n == 0) {
		free(data.s);
		return 1;
	}
	plot_printf(&b, "$d << EOD\n%sEOD\n", data.s);
	plot_printf(&b,
		    "set title '%s on %s: the last %d runs (red: regressed)'\n"
		    "set ylabel 'latency under load (ms)'\n"
		    "set y2label 'goodput (Mbit/s)'\nset ytics nomirror\n"
		    "set y2tics\nset yrange [0:*]\nset y2range [0:*]\n"
		    "set key outside bottom center horizontal\nset xtics (",
		    suite, variant, t.n);
	for (int i = 0; i < t.n; i++)
		plot_printf(&b, "%s\"%s\" %d", i ? ", " : "", t.labels[i], i);
	plot_printf(&b,
		    ") rotate by -45\nset xrange [-0.5:%d.5]\n"
		    "plot $d using 1:2 with linespoints lw 2 title 'median',"
		    " $d using 1:3 with linespoints dt 2 title 'p99',"
		    " $d using 1:4 axes x1y2 with linespoints title "
		    "'goodput',"
		    " $d using 1:($5 > 0 ? $2 : 1/0) with points pt 7 ps 2 "
		    "lc rgb 'red' title 'regressed'\n",
		    t.n - 1);
	snprintf(png, sizeof(png), "trend-%d.png", k);
	rc = plot_gnuplot(out, b.s, png, err);
	free(data.s);
	free(b.s);
	return rc;
}

int report_nightly(const char *results_dir, const char *night_dir,
		   const char *out_dir, struct al_err *err)
{
	char path[4400];
	json_t *root, *runs;
	const char **dirs;
	char(*dbuf)[4600];
	struct regressed reg = {0};
	struct plot_buf html = {0};
	struct store *db;
	int trends = 0, rc;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/summary.json", night_dir);
	{
		json_error_t jerr;

		if (!(root = json_load_file(path, 0, &jerr)))
			return al_errf(err, "%s:%d: %s", path, jerr.line,
				       jerr.text);
	}
	runs = json_object_get(root, "runs");
	dirs = calloc(json_array_size(runs) + 1, sizeof(*dirs));
	dbuf = calloc(json_array_size(runs) + 1, sizeof(*dbuf));
	if (!dirs || !dbuf || (mkdir(out_dir, 0755) < 0 && errno != EEXIST)) {
		free(dirs);
		free(dbuf);
		json_decref(root);
		return al_errf(err, "cannot create %s: %s", out_dir,
			       strerror(errno));
	}
	for (size_t i = 0; i < json_array_size(runs); i++) {
		const char *id =
		    json_str_at(json_array_get(runs, i), "id", NULL);

		if (!id || !id[0])
			continue;
		snprintf(dbuf[n], sizeof(dbuf[0]), "%s/%s", results_dir, id);
		dirs[n] = dbuf[n];
		n++;
	}
	collect_regressed(results_dir, &reg);
	plot_printf(&html, "<h2>Nightly ");
	if (store_open(&db, results_dir, err) == 0) {
		plot_printf(&html, "trends</h2>\n");
		for (size_t i = 0; i < json_array_size(runs); i++) {
			json_t *x = json_array_get(runs, i);
			const char *suite = json_str_at(x, "suite", NULL);
			const char *variant = json_str_at(x, "variant", NULL);
			int seen = 0;

			/* One trend per suite and variant of the night. */
			for (size_t j = 0; j < i; j++) {
				json_t *y = json_array_get(runs, j);

				seen |=
				    suite && variant &&
				    json_str_at(y, "suite", NULL) &&
				    json_str_at(y, "variant", NULL) &&
				    !strcmp(suite,
					    json_str_at(y, "suite", NULL)) &&
				    !strcmp(variant,
					    json_str_at(y, "variant", NULL));
			}
			if (seen || !suite || !variant)
				continue;
			if (plot_trend(out_dir, trends, db, suite, variant,
				       &reg, err) == 0) {
				plot_printf(&html,
					    "<img src=\"trend-%d.png\" "
					    "alt=\"trend\">\n",
					    trends);
				trends++;
			}
		}
		store_close(db);
	} else {
		plot_printf(&html, "trends: none (%s)</h2>\n", err->msg);
	}
	rc = write_page(dirs, n, out_dir, html.s, trends, err);
	free(html.s);
	free(reg.id);
	free(dirs);
	free(dbuf);
	json_decref(root);
	return rc;
}
