/* sweep.json's and bisect.json's one owner: a sweep step and a bisect
 * step written with exactly the keys the records have always had, then
 * read back field for field; a whole record built, written and read from
 * its file; a file cut short, one that is not a series record and a
 * string too long for its field each read as they should be. */
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

#include "../results/series_doc.h"

static char dir[] = "/tmp/airlab-test-series-doc-XXXXXX";

static void put_file(const char *name, const char *text, char *path, size_t len)
{
	FILE *fp;

	snprintf(path, len, "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* o has exactly the n keys of want. */
static void keys_are(const json_t *o, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!json_object_get(o, want[i]))
			fail_msg("no key \"%s\"", want[i]);
	assert_int_equal(json_object_size(o), n);
}

/* The same number, NaN being the same as NaN. */
static void same_num(double a, double b)
{
	if (!(a == b || (isnan(a) && isnan(b))))
		fail_msg("%g is not %g", a, b);
}

static void sweep_step_round_trip(void **state)
{
	static const char *const step_keys[] = {
	    "variant",	     "x",     "label",	  "outcome",
	    "run_id",	     "atten", "stations", "latency_median_ms",
	    "latency_p99_ms"};
	static const char *const station_keys[] = {"name",
						   "associated",
						   "settled",
						   "settle_s",
						   "settle_signal_dbm",
						   "settle_txrate_mbps",
						   "settle_expected_mbps",
						   "rate_mbps",
						   "tx_bitrate_mbps",
						   "signal_dbm",
						   "retries",
						   "failed",
						   "goodput_up_mbps",
						   "goodput_down_mbps"};
	struct series_step *w = calloc(1, sizeof(*w)),
			   *r = calloc(1, sizeof(*r));
	struct series_atten *a;
	struct series_station *t;
	json_t *j;

	(void)state;
	series_step_init(w);
	snprintf(w->variant, sizeof(w->variant), "stock-6.1");
	snprintf(w->label, sizeof(w->label), "30 dB");
	snprintf(w->outcome, sizeof(w->outcome), "ok");
	snprintf(w->run_id, sizeof(w->run_id), "20261207T100000Z-rtt_fair");
	w->x = 29.75;
	w->latency_median_ms = 41.5;
	a = series_step_add_atten(w);
	snprintf(a->path, sizeof(a->path), "path1");
	a->set_db = 30;
	a->read_db = 29.75;
	t = series_step_add_station(w);
	snprintf(t->name, sizeof(t->name), "sta1");
	t->associated = true;
	t->settled = true;
	t->settle_s = 4.5;
	t->rate_mbps = 30;
	t->retries = 12;
	t->goodput_down_mbps = 20.25;
	t = series_step_add_station(w);
	snprintf(t->name, sizeof(t->name), "sta2");
	assert_true(isnan(t->signal_dbm)); /* not measured until set */

	j = series_step_json(w, "sweep");
	assert_non_null(j);
	keys_are(j, step_keys, sizeof(step_keys) / sizeof(step_keys[0]));
	keys_are(json_array_get(json_object_get(j, "stations"), 0),
		 station_keys, sizeof(station_keys) / sizeof(station_keys[0]));
	assert_true(json_is_real(json_object_get(j, "x")));
	assert_true(json_is_null(json_object_get(j, "latency_p99_ms")));
	assert_true(json_is_real(json_object_get(
	    json_array_get(json_object_get(j, "stations"), 0), "rate_mbps")));
	assert_true(json_is_false(json_object_get(
	    json_array_get(json_object_get(j, "stations"), 1), "associated")));

	assert_int_equal(series_step_read(j, r), 0);
	assert_string_equal(r->variant, "stock-6.1");
	assert_string_equal(r->label, "30 dB");
	assert_string_equal(r->outcome, "ok");
	assert_string_equal(r->run_id, w->run_id);
	same_num(r->x, 29.75);
	same_num(r->latency_median_ms, 41.5);
	assert_true(isnan(r->latency_p99_ms));
	assert_int_equal(r->n_atten, 1);
	assert_string_equal(r->atten[0].path, "path1");
	same_num(r->atten[0].set_db, 30);
	same_num(r->atten[0].read_db, 29.75);
	assert_int_equal(r->n_sta, 2);
	for (size_t k = 0; k < 2; k++) {
		const struct series_station *x = &w->sta[k], *y = &r->sta[k];

		assert_string_equal(y->name, x->name);
		assert_int_equal(y->associated, x->associated);
		assert_int_equal(y->settled, x->settled);
		same_num(y->settle_s, x->settle_s);
		same_num(y->settle_signal_dbm, x->settle_signal_dbm);
		same_num(y->settle_txrate_mbps, x->settle_txrate_mbps);
		same_num(y->settle_expected_mbps, x->settle_expected_mbps);
		same_num(y->rate_mbps, x->rate_mbps);
		same_num(y->tx_bitrate_mbps, x->tx_bitrate_mbps);
		same_num(y->signal_dbm, x->signal_dbm);
		same_num(y->retries, x->retries);
		same_num(y->failed, x->failed);
		same_num(y->goodput_up_mbps, x->goodput_up_mbps);
		same_num(y->goodput_down_mbps, x->goodput_down_mbps);
	}
	/* none of a bisect's */
	assert_int_equal(r->n_runs, 0);
	assert_string_equal(r->rev, "");
	assert_true(isnan(r->median));
	series_step_free(r);
	json_decref(j);

	/* A step that did not run: its run_id is null, read back as "". */
	w->run_id[0] = 0;
	j = series_step_json(w, "sweep");
	assert_true(json_is_null(json_object_get(j, "run_id")));
	assert_int_equal(series_step_read(j, r), 0);
	assert_string_equal(r->run_id, "");
	json_decref(j);
	assert_null(series_step_json(w, "nightly"));

	series_step_free(w);
	series_step_free(r);
	assert_null(w->sta);
	assert_int_equal(w->n_atten, 0);
	free(w);
	free(r);
}

static void bisect_step_round_trip(void **state)
{
	static const char *const keys[] = {
	    "role",   "rev",	"subject", "label",	  "variant",
	    "runs",   "run_id", "outcome", "good_median", "median",
	    "change", "ci",	"reason",  "x",		  "dir"};
	struct series_step *w = calloc(1, sizeof(*w)),
			   *r = calloc(1, sizeof(*r));
	json_t *j, *ci;

	(void)state;
	series_step_init(w);
	snprintf(w->role, sizeof(w->role), "step");
	snprintf(w->rev, sizeof(w->rev), "0123456789abcdef");
	snprintf(w->subject, sizeof(w->subject), "wifi: a change");
	snprintf(w->label, sizeof(w->label), "wifi: a change");
	snprintf(w->variant, sizeof(w->variant),
		 "/r/bisect/b/02-0123/out/v.yaml");
	snprintf(w->outcome, sizeof(w->outcome), "bad");
	snprintf(w->run_id, sizeof(w->run_id), "run1");
	snprintf(w->dir, sizeof(w->dir), "/r/bisect/b/02-0123");
	w->x = 2;
	w->median = 40.5;
	w->change = 0.25;
	w->ci_lo = 0.125;
	assert_int_equal(series_step_add_run(w, "/r/run1"), 0);
	assert_int_equal(series_step_add_run(w, "/r/run2"), 0);

	j = series_step_json(w, "bisect");
	assert_non_null(j);
	keys_are(j, keys, sizeof(keys) / sizeof(keys[0]));
	assert_true(json_is_integer(json_object_get(j, "x")));
	assert_true(json_is_string(json_object_get(j, "reason")));
	assert_true(json_is_null(json_object_get(j, "good_median")));
	ci = json_object_get(j, "ci");
	assert_int_equal(json_array_size(ci), 2);
	assert_true(json_is_real(json_array_get(ci, 0)));
	assert_true(json_is_null(json_array_get(ci, 1)));

	assert_int_equal(series_step_read(j, r), 0);
	assert_string_equal(r->role, "step");
	assert_string_equal(r->rev, w->rev);
	assert_string_equal(r->subject, w->subject);
	assert_string_equal(r->label, w->label);
	assert_string_equal(r->variant, w->variant);
	assert_string_equal(r->outcome, "bad");
	assert_string_equal(r->run_id, "run1");
	assert_string_equal(r->reason, "");
	assert_string_equal(r->dir, w->dir);
	same_num(r->x, 2);
	assert_true(isnan(r->good_median));
	same_num(r->median, 40.5);
	same_num(r->change, 0.25);
	same_num(r->ci_lo, 0.125);
	assert_true(isnan(r->ci_hi));
	assert_int_equal(r->n_runs, 2);
	assert_string_equal(r->runs[0], "/r/run1");
	assert_string_equal(r->runs[1], "/r/run2");
	/* none of a sweep's */
	assert_int_equal(r->n_sta + r->n_atten, 0);
	assert_true(isnan(r->latency_median_ms));
	json_decref(j);

	series_step_free(w);
	series_step_free(r);
	free(w);
	free(r);
}

/* root written to dir/name (and freed), then read back into d. */
static void write_then_read(json_t *root, const char *name,
			    struct series_doc *d)
{
	char file[4200];
	struct al_err err;

	snprintf(file, sizeof(file), "%s/%s", dir, name);
	if (series_doc_write(root, file, &err) < 0 ||
	    series_doc_read(file, d, &err) < 0)
		fail_msg("%s", err.msg);
	json_decref(root);
}

/* d's head is want's, field for field (NULL: absent). */
static void head_is(const struct series_doc *d, const struct series_doc *want)
{
	const char *const pair[][2] = {
	    {d->id, want->id},	       {d->kind, want->kind},
	    {d->start, want->start},   {d->end, want->end},
	    {d->status, want->status}, {d->suite, want->suite},
	    {d->lab, want->lab},       {d->mode, want->mode},
	    {d->metric, want->metric}, {d->first_bad, want->first_bad},
	    {d->parent, want->parent}, {d->report, want->report},
	};

	for (size_t i = 0; i < sizeof(pair) / sizeof(pair[0]); i++)
		if (!pair[i][0] != !pair[i][1] ||
		    (pair[i][0] && strcmp(pair[i][0], pair[i][1]) != 0))
			fail_msg("head field %zu: '%s', not '%s'", i,
				 pair[i][0] ? pair[i][0] : "(none)",
				 pair[i][1] ? pair[i][1] : "(none)");
}

/* A sweep's record as sweep.c builds it: head, its own keys, steps, then
 * its status; written, read back whole from the file. */
static void doc_written_then_read(void **state)
{
	struct series_step *s = calloc(1, sizeof(*s));
	struct series_doc d, want = {.id = "20261207T100000Z",
				     .kind = "sweep",
				     .start = "20261207T100000Z",
				     .mode = "attenuation",
				     .suite = "rtt_fair",
				     .lab = "lab/virtual.yaml"};
	struct al_err err;
	char file[4200];
	json_t *root;

	(void)state;
	root = series_doc_head_json(&want);
	json_object_set_new(root, "dwell_s", json_integer(20));
	snprintf(file, sizeof(file), "%s/sweep.json", dir);
	/* no status yet: not a record to write */
	assert_int_equal(series_doc_write(root, file, &err), -1);
	assert_non_null(strstr(err.msg, "not a sweep or bisect record"));
	for (int i = 0; i < 3; i++) {
		series_step_init(s);
		snprintf(s->variant, sizeof(s->variant), "stock");
		snprintf(s->label, sizeof(s->label), "%d dB", 10 * i);
		s->x = 10 * i;
		snprintf(s->outcome, sizeof(s->outcome), "%s",
			 i == 2 ? "dropped" : "ok");
		series_step_add_station(s)->associated = i < 2;
		assert_non_null(series_doc_add_step(root, s));
		series_step_free(s);
	}
	assert_int_equal(series_doc_n_steps(root), 3);
	series_doc_head_set(root,
			    &(struct series_doc){.status = "complete",
						 .end = "20261207T101000Z"});
	write_then_read(root, "sweep.json", &d);
	want.status = "complete";
	want.end = "20261207T101000Z";
	head_is(&d, &want);
	assert_int_equal(d.n_steps, 3);
	assert_string_equal(d.steps[2].outcome, "dropped");
	assert_string_equal(d.steps[1].label, "10 dB");
	same_num(d.steps[2].x, 20);
	assert_int_equal(d.steps[2].n_sta, 1);
	assert_false(d.steps[2].sta[0].associated);
	assert_true(json_integer_value(json_object_get(d.root, "dwell_s")) ==
		    20);
	/* series_doc_step reads the same step from the JSON */
	assert_int_equal(series_doc_step(d.root, 1, s), 0);
	assert_string_equal(s->label, "10 dB");
	series_step_free(s);
	assert_int_equal(series_doc_step(d.root, 3, s), -1);
	series_doc_free(&d);
	assert_null(d.root);
	assert_null(d.steps);

	/* A bisect's head once found: first_bad {rev, parent}, report. */
	want = (struct series_doc){.id = "b1",
				   .kind = "bisect",
				   .status = "running",
				   .metric = "latency"};
	root = series_doc_head_json(&want);
	series_doc_head_set(root, &(struct series_doc){.first_bad = "abc",
						       .parent = "def",
						       .report = "/r/report",
						       .status = "complete"});
	write_then_read(root, "bisect.json", &d);
	want.first_bad = "abc";
	want.parent = "def";
	want.report = "/r/report";
	want.status = "complete";
	head_is(&d, &want);
	assert_int_equal(d.n_steps, 0);
	series_doc_free(&d);
	free(s);
}

static void cut_short_names_its_line(void **state)
{
	struct series_doc d;
	struct al_err err;
	char file[4200], want[4300];

	(void)state;
	put_file("cut.json", "{\n  \"id\": \"x\",\n  \"kind\": \"swe", file,
		 sizeof(file));
	assert_int_equal(series_doc_read(file, &d, &err), -1);
	snprintf(want, sizeof(want), "%s:3:", file);
	assert_non_null(strstr(err.msg, want));
	assert_null(d.root);
}

static void not_a_series_is_refused(void **state)
{
	static const char *const bad[] = {
	    "{\"id\": \"x\", \"status\": \"complete\", \"steps\": []}",
	    "{\"id\": \"x\", \"kind\": \"sweep\", \"status\": \"complete\"}",
	    "{\"id\": \"x\", \"kind\": \"sweep\", \"status\": \"complete\", "
	    "\"steps\": {}}",
	    "{\"id\": \"\", \"kind\": \"sweep\", \"status\": \"complete\", "
	    "\"steps\": []}",
	    "[1, 2]",
	};
	struct series_doc d;
	struct al_err err;
	char file[4200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put_file("bad.json", bad[i], file, sizeof(file));
		assert_int_equal(series_doc_read(file, &d, &err), -1);
		assert_non_null(strstr(err.msg, file));
		assert_non_null(
		    strstr(err.msg, ": no \"id\", \"kind\", \"status\" or "
				    "\"steps\": not a sweep or bisect record"));
		assert_null(d.root);
	}
	/* Steps that are not objects read as empty ones, as the store has
	 * always indexed them. */
	put_file(
	    "odd.json",
	    "{\"id\": \"x\", \"kind\": \"sweep\", \"status\": \"running\", "
	    "\"steps\": [3, {\"x\": \"no\", \"stations\": [{}], "
	    "\"runs\": [1, \"/r\"]}]}",
	    file, sizeof(file));
	assert_int_equal(series_doc_read(file, &d, &err), 0);
	assert_int_equal(d.n_steps, 2);
	assert_true(isnan(d.steps[0].x) && isnan(d.steps[1].x));
	assert_int_equal(d.steps[1].n_sta, 1);
	assert_string_equal(d.steps[1].sta[0].name, "");
	assert_int_equal(d.steps[1].n_runs, 1);
	series_doc_free(&d);
}

/* A string longer than its field is cut at a character's start: written
 * again it is still a string. */
static void long_string_cut_whole(void **state)
{
	struct series_step *s = calloc(1, sizeof(*s));
	char label[600];
	json_t *v, *j;
	size_t i;

	(void)state;
	/* "ab" then "\xc3\xa9" over and over: the field's last byte would
	 * be the first of a pair, the cut leaves it out */
	memcpy(label, "ab", 2);
	for (i = 2; i + 2 < sizeof(label); i += 2)
		memcpy(label + i, "\xc3\xa9", 2);
	label[i] = 0;
	v = json_pack("{s:s}", "label", label);
	assert_non_null(v);
	assert_int_equal(series_step_read(v, s), 0);
	assert_int_equal(strlen(s->label), 254);
	j = series_step_json(s, "sweep");
	assert_true(json_is_string(json_object_get(j, "label")));
	json_decref(j);
	json_decref(v);
	series_step_free(s);
	free(s);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	static const char *const files[] = {"sweep.json", "bisect.json",
					    "cut.json", "bad.json", "odd.json"};
	char path[4200];

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sweep_step_round_trip),
	    cmocka_unit_test(bisect_step_round_trip),
	    cmocka_unit_test(doc_written_then_read),
	    cmocka_unit_test(cut_short_names_its_line),
	    cmocka_unit_test(not_a_series_is_refused),
	    cmocka_unit_test(long_string_cut_whole),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
