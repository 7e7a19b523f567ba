/* The HTML report of runs, drawn by the real gnuplot and flent from run
 * directories written here: the header and its links to the raw files,
 * the CDF overlay, per-station series over time, and a cut Flent file
 * said on the page with the report failing. Also path_relative, which the
 * links use. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../results/flent.h"
#include "../results/report.h"
#include "../util/path.h"

static char root[64];

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void assert_has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' is not in the page", needle);
}

static int exists(const char *dir, const char *name)
{
	char path[600];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &sb) == 0 && sb.st_size > 0;
}

/* A 20-s rtt_fair-like run of two stations: a download and a ping each,
 * sta2's latency 4x sta1's. */
static void make_run(const char *id, double lat_ms)
{
	char dir[300], path[700], text[1500];
	struct flent_file *f;
	struct al_err err;
	double t0 = 1.7e9;
	int d1, d2, p1, p2, srcs[2];
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s/%s", root, id);
	assert_int_equal(mkdir(dir, 0755), 0);
	f = flent_new("rtt_fair", t0, 0.2, 20, 25, &err);
	assert_non_null(f);
	flent_meta_num(f, "DELAY", 2);
	d1 = flent_series(f, "TCP download::1", "Mbits/s");
	d2 = flent_series(f, "TCP download::2", "Mbits/s");
	p1 = flent_series(f, "Ping (ms)::1", "ms");
	p2 = flent_series(f, "Ping (ms)::2", "ms");
	flent_series_meta_str(f, d1, "STATION", "sta1");
	flent_series_meta_str(f, d2, "STATION", "sta2");
	flent_series_meta_str(f, p1, "STATION", "sta1");
	flent_series_meta_str(f, p2, "STATION", "sta2");
	for (int k = 0; k < 100; k++) {
		double t = t0 + 2 + k * 0.2;

		flent_raw(f, d1, t, 30 + k % 5, NULL);
		flent_raw(f, d2, t, 10 + k % 3, NULL);
		flent_raw(f, p1, t, lat_ms + k % 7, NULL);
		flent_raw(f, p2, t, 4 * lat_ms + k % 7, NULL);
	}
	srcs[0] = d1;
	srcs[1] = d2;
	flent_computed(f, "TCP download sum", "Mbits/s", FLENT_SUM, srcs, 2);
	snprintf(path, sizeof(path), "%s/run.flent.gz", dir);
	assert_int_equal(flent_write(f, path, &err), 0);
	flent_free(f);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	snprintf(text, sizeof(text),
		 "{\"id\": \"%s\", \"status\": \"complete\", \"suite\": "
		 "\"rtt_fair\", \"variant\": \"stock-6.1\", \"lab\": "
		 "\"virtual\", \"topology\": \"cell-4sta\", \"kernel\": "
		 "\"6.1.0-57-amd64\", \"hostapd\": \"hostapd v2.10\", "
		 "\"airlab_commit\": "
		 "\"0123456789abcdef0123456789abcdef01234567-dirty\", "
		 "\"start\": "
		 "\"2026-12-07T03:21:10Z\", \"flent_file\": "
		 "\"run.flent.gz\", \"dut_image\": {\"driver\": "
		 "\"sysupgrade\", \"image\": \"/srv/openwrt-ath79.bin\"}}\n",
		 id);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/console.log", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("U-Boot 2023.01\n", fp);
	fclose(fp);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/airlab-test-report.XXXXXX");
	assert_non_null(mkdtemp(root));
	make_run("run-a", 5);
	make_run("run-b", 20);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void two_runs_page(void **state)
{
	char a[300], b[300], out[300], page_path[400];
	const char *dirs[2] = {a, b};
	struct al_err err;
	char *page;
	int images;

	(void)state;
	snprintf(a, sizeof(a), "%s/run-a", root);
	snprintf(b, sizeof(b), "%s/run-b", root);
	snprintf(out, sizeof(out), "%s/reports/one", root);
	assert_int_equal(path_mkdirs(out), 0);
	images = report_write(dirs, 2, out, &err);
	if (images < 0)
		fail_msg("report: %s", err.msg);
	/* per run: Flent's series, CDF, station series; the overlay and
	 * both boxes (no per-station bars: the run.json has none) */
	assert_int_equal(images, 2 * 3 + 3);
	assert_true(exists(out, "cdf-overlay.png"));
	assert_true(exists(out, "r0-station-time.png"));
	assert_true(exists(out, "r1-series.png"));
	snprintf(page_path, sizeof(page_path), "%s/index.html", out);
	page = slurp(page_path);
	/* the header: what ran where, and the raw files beside it */
	assert_has(page, "<th>DUT image</th>");
	assert_has(page, "<td>/srv/openwrt-ath79.bin</td>");
	assert_has(page, "<td>0123456789ab-dirty</td>");
	assert_has(page, "<td>hostapd v2.10</td>");
	assert_has(page, "<a href=\"../../run-a/run.json\">run.json</a>");
	assert_has(page, "<a href=\"../../run-b/run.flent.gz\">");
	assert_has(page, "<a href=\"../../run-a/console.log\">");
	assert_has(page, "<img src=\"cdf-overlay.png\"");
	assert_has(page, "<img src=\"r1-station-time.png\"");
	free(page);
}

static void cut_flent_file_fails_the_page(void **state)
{
	char a[300], c[300], out[300], page_path[400], cmd[800];
	const char *dirs[2] = {a, c};
	struct al_err err;
	char *page;

	(void)state;
	make_run("run-c", 9);
	snprintf(a, sizeof(a), "%s/run-a", root);
	snprintf(c, sizeof(c), "%s/run-c", root);
	snprintf(cmd, sizeof(cmd), "truncate -s 40 '%s/run.flent.gz'", c);
	assert_int_equal(system(cmd), 0);
	snprintf(out, sizeof(out), "%s/reports/cut", root);
	assert_int_equal(path_mkdirs(out), 0);
	assert_int_equal(report_write(dirs, 2, out, &err), -1);
	assert_non_null(strstr(err.msg, "run.flent.gz"));
	/* the healthy run keeps its plots, the cut one is said */
	assert_true(exists(out, "r0-series.png"));
	assert_true(exists(out, "r0-station-time.png"));
	assert_false(exists(out, "r1-station-time.png"));
	snprintf(page_path, sizeof(page_path), "%s/index.html", out);
	page = slurp(page_path);
	assert_has(page, "No time series, CDF or comparison for this run");
	free(page);
}

static void relative_paths(void **state)
{
	char from[300], to[300], buf[600];

	(void)state;
	snprintf(from, sizeof(from), "%s/reports/one", root);
	snprintf(to, sizeof(to), "%s/run-a/run.json", root);
	path_relative(from, to, buf, sizeof(buf));
	assert_string_equal(buf, "../../run-a/run.json");
	path_relative(root, to, buf, sizeof(buf));
	assert_string_equal(buf, "run-a/run.json");
	path_relative(to, to, buf, sizeof(buf));
	assert_string_equal(buf, ".");
	/* a prefix that is not a whole component: run-a vs run-ab */
	snprintf(from, sizeof(from), "%s/run-a", root);
	snprintf(to, sizeof(to), "%s/run-ab", root);
	assert_int_equal(mkdir(to, 0755), 0);
	path_relative(from, to, buf, sizeof(buf));
	assert_string_equal(buf, "../run-ab");
	/* what does not resolve is given as it is */
	path_relative(from, "/no/such/file", buf, sizeof(buf));
	assert_string_equal(buf, "/no/such/file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(two_runs_page),
	    cmocka_unit_test(cut_flent_file_fails_the_page),
	    cmocka_unit_test(relative_paths),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
