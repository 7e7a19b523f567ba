/* run.json's one owner: what run_doc_write writes, run_doc_read reads back
 * field for field, typed views included; a file cut short, one that is not
 * a run record, and a record of a run from before run.json named its suite
 * are each read as they should be. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../results/run_doc.h"

static char dir[] = "/tmp/airlab-test-run-doc-XXXXXX";

static void put_file(const char *name, const char *text)
{
	char path[4200];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void written_then_read(void **state)
{
	struct run_doc w = {
	    .id = "20261207T100000Z-rrul-stock",
	    .status = "partial",
	    .reasons = "sta2 never associated",
	    .suite = "rrul",
	    .plot = "all_scaled",
	    .variant = "stock",
	    .lab = "virtual",
	    .lab_file = "lab/virtual.yaml",
	    .topology = "two",
	    .topology_file = "topology/two.yaml",
	    .kernel = "6.1.0-28-amd64",
	    .hostapd = "hostapd v2.10",
	    .wpa_supplicant = "wpa_supplicant v2.10",
	    .airlab_commit = "0123456789abcdef0123456789abcdef01234567-dirty",
	    .start = "2026-12-07T10:00:00Z",
	    .end = "2026-12-07T10:01:10Z",
	    .flent_file = "rrul.flent.gz",
	    .length_s = 60,
	    .step_s = NAN,
	};
	struct run_doc r;
	struct al_err err;

	(void)state;
	w.summary = json_pack("{s:f, s:i, s:n}", "latency_median_ms", 41.5,
			      "flows", 8, "up_jain");
	w.station_goodput =
	    json_pack("[{s:s, s:f, s:f}, {s:s, s:f, s:n}]", "name", "sta1",
		      "up_mbps", 10.5, "down_mbps", 20.25, "name", "sta2",
		      "up_mbps", 3.0, "down_mbps");
	w.flows =
	    json_pack("[{s:s, s:s, s:s, s:f}]", "series", "TCP upload sta1",
		      "station", "sta1", "direction", "up", "mean_mbps", 10.5);
	w.stations =
	    json_pack("[{s:s, s:b, s:f, s:n, s:f, s:s}]", "name", "sta1",
		      "associated", 1, "assoc_s", 1.25, "signal_dbm",
		      "txrate_mbps", 54.0, "wpa_state", "COMPLETED");
	w.link = json_pack("[{s:s, s:f, s:f, s:f, s:f, s:f}]", "name", "sta1",
			   "rate_mbps", 30.0, "tx_bitrate_mbps", 54.0,
			   "signal_dbm", -40.0, "retries", 12.0, "failed", 0.0);
	w.airtime = json_pack("{s:{s:[{s:s, s:f}, {s:s, s:f}], s:f}, s:{s:s}}",
			      "medium", "stations", "name", "sta1", "share",
			      0.75, "name", "sta2", "share", 0.25, "jain", 0.8,
			      "nl80211", "error", "no survey");
	w.dut_image = json_pack("{s:s, s:n}", "driver", "uboot-tftp", "image");
	assert_int_equal(run_doc_write(dir, &w, &err), 0);

	assert_int_equal(run_doc_read(dir, &r, &err), 0);
	assert_string_equal(r.id, w.id);
	assert_string_equal(r.status, "partial");
	assert_string_equal(r.reasons, w.reasons);
	assert_string_equal(r.suite, "rrul");
	assert_string_equal(r.plot, "all_scaled");
	assert_string_equal(r.variant, "stock");
	assert_string_equal(r.lab, "virtual");
	assert_string_equal(r.lab_file, w.lab_file);
	assert_string_equal(r.topology, "two");
	assert_string_equal(r.topology_file, w.topology_file);
	assert_string_equal(r.kernel, w.kernel);
	assert_string_equal(r.hostapd, w.hostapd);
	assert_string_equal(r.wpa_supplicant, w.wpa_supplicant);
	assert_string_equal(r.airlab_commit, w.airlab_commit);
	assert_string_equal(r.start, w.start);
	assert_string_equal(r.end, w.end);
	assert_string_equal(r.flent_file, "rrul.flent.gz");
	assert_true(r.length_s == 60);
	assert_true(isnan(r.step_s));
	/* no image: the flash driver names what the DUT ran */
	assert_string_equal(r.dut_image_name, "uboot-tftp");

	assert_int_equal(r.n_figures, 3);
	assert_true(run_doc_figure(&r, "latency_median_ms") == 41.5);
	assert_true(run_doc_figure(&r, "flows") == 8);
	assert_true(isnan(run_doc_figure(&r, "up_jain")));
	assert_true(isnan(run_doc_figure(&r, "no_such_figure")));

	assert_int_equal(r.n_goodput, 2);
	assert_string_equal(r.goodput[1].station, "sta2");
	assert_true(r.goodput[0].down_mbps == 20.25);
	assert_true(isnan(r.goodput[1].down_mbps));

	assert_int_equal(r.n_flow, 1);
	assert_string_equal(r.flow[0].series, "TCP upload sta1");
	assert_string_equal(r.flow[0].direction, "up");
	assert_true(r.flow[0].mean_mbps == 10.5);

	assert_int_equal(r.n_sta, 1);
	assert_true(r.sta[0].associated);
	assert_true(r.sta[0].assoc_s == 1.25);
	assert_true(isnan(r.sta[0].signal_dbm));
	assert_string_equal(r.sta[0].wpa_state, "COMPLETED");

	assert_int_equal(r.n_links, 1);
	assert_true(r.links[0].retries == 12);
	assert_true(r.links[0].signal_dbm == -40);

	assert_int_equal(r.n_air, 2);
	const struct run_doc_airtime *a = run_doc_airtime(&r, "medium");
	assert_non_null(a);
	assert_int_equal(a->n, 2);
	assert_string_equal(a->sta[1].station, "sta2");
	assert_true(a->sta[0].share == 0.75);
	assert_true(a->jain == 0.8);
	/* a source with no stations is not one to plot */
	assert_null(run_doc_airtime(&r, "nl80211"));
	assert_string_equal(r.air[0].source, "medium");
	assert_string_equal(r.air[1].error, "no survey");
	assert_null(r.lava);
	run_doc_free(&r);

	json_decref(w.summary);
	json_decref(w.station_goodput);
	json_decref(w.flows);
	json_decref(w.stations);
	json_decref(w.link);
	json_decref(w.airtime);
	json_decref(w.dut_image);
}

static void record_needs_id_and_status(void **state)
{
	struct run_doc w = {.id = "", .status = "complete"};
	struct run_doc r;
	struct al_err err;

	(void)state;
	assert_int_equal(run_doc_write(dir, &w, &err), -1);
	assert_non_null(strstr(err.msg, "needs an id and a status"));
	put_file("run.json", "{\"id\": \"x\"}");
	assert_int_equal(run_doc_read(dir, &r, &err), -1);
	assert_non_null(strstr(err.msg, "not a run.json"));
	assert_non_null(strstr(err.msg, dir));
	put_file("run.json", "[1, 2]");
	assert_int_equal(run_doc_read(dir, &r, &err), -1);
	assert_non_null(strstr(err.msg, "not a run.json"));
}

static void cut_short_names_its_line(void **state)
{
	struct run_doc r;
	struct al_err err;
	char want[4200];

	(void)state;
	put_file("run.json", "{\n  \"id\": \"x\",\n  \"status\": \"comp");
	assert_int_equal(run_doc_read(dir, &r, &err), -1);
	snprintf(want, sizeof(want), "%s/run.json:3:", dir);
	assert_non_null(strstr(err.msg, want));
}

static void suite_from_an_old_id(void **state)
{
	struct run_doc r;
	struct al_err err;

	(void)state;
	put_file("run.json",
		 "{\"id\": \"20260101T000000Z-tcp_nup-stock-2\", \"status\": "
		 "\"complete\", \"summary\": null, \"airtime\": {\"medium\": "
		 "{\"stations\": [{\"share\": 1}]}}}");
	assert_int_equal(run_doc_read(dir, &r, &err), 0);
	assert_string_equal(r.suite, "tcp_nup");
	assert_null(r.flent_file);
	assert_null(r.summary);
	assert_int_equal(r.n_figures, 0);
	/* a share without its station's name is not one */
	assert_null(run_doc_airtime(&r, "medium"));
	run_doc_free(&r);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[4200];

	(void)state;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(written_then_read),
	    cmocka_unit_test(record_needs_id_and_status),
	    cmocka_unit_test(cut_short_names_its_line),
	    cmocka_unit_test(suite_from_an_old_id),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
