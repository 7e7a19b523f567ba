/* The Flent writer and reader: a written file reads back with Flent's
 * shape (version 4, sorted keys, results parallel to x_values, computed
 * series), and damaged files are refused with a reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../results/flent.h"

#define T0 1700000000.0

static char dir[] = "/tmp/test_flent.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* Two flows at 10 and 30 Mbit/s from t=1 s, a probe with one lost seq. */
static struct flent_file *sample_file(void)
{
	struct al_err err;
	struct flent_file *f = flent_new("tcp_nup", T0, 0.2, 2, 3, &err);
	int a, b, p, src[2];

	assert_non_null(f);
	a = flent_series(f, "TCP upload::1", "Mbits/s");
	b = flent_series(f, "TCP upload::2", "Mbits/s");
	p = flent_series(f, "Ping (ms) ICMP", "ms");
	assert_true(a >= 0 && b >= 0 && p >= 0);
	assert_int_equal(flent_series(f, "TCP upload::1", "x"), -1);
	for (int k = 5; k <= 10; k++) {
		json_t *x = json_object();

		json_object_set_new(x, "tcp_cwnd", json_integer(10 + k));
		assert_int_equal(flent_raw(f, a, T0 + 0.2 * k, 10, x), 0);
		assert_int_equal(flent_raw(f, b, T0 + 0.2 * k, 30, NULL), 0);
	}
	for (int k = 0; k <= 15; k++) {
		json_t *x = json_object();

		json_object_set_new(x, "seq", json_integer(k));
		if (k == 7)
			json_object_set_new(x, "lost", json_true());
		flent_raw(f, p, T0 + 0.2 * k + 0.01, k == 7 ? NAN : 1.0 + k, x);
	}
	src[0] = a;
	src[1] = b;
	assert_true(flent_computed(f, "TCP upload sum", "Mbits/s", FLENT_SUM,
				   src, 2) >= 0);
	assert_true(flent_computed(f, "TCP upload fairness", "Idx",
				   FLENT_FAIRNESS, src, 2) >= 0);
	flent_test_param(f, "upload_streams", "2");
	flent_meta_str(f, "TITLE", "unit test");
	return f;
}

static json_t *write_and_read(struct flent_file *f, const char *name)
{
	char path[256];
	struct al_err err;
	json_t *root;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(flent_write(f, path, &err), 0);
	root = flent_read(path, &err);
	if (!root)
		fail_msg("%s", err.msg);
	return root;
}

static void writes_flent_shape(void **state)
{
	(void)state;
	struct flent_file *f = sample_file();
	json_t *root = write_and_read(f, "a.flent.gz");
	json_t *md = json_object_get(root, "metadata");
	json_t *x = json_object_get(root, "x_values");
	json_t *res = json_object_get(root, "results");
	json_t *raw = json_object_get(root, "raw_values");

	assert_int_equal(json_integer_value(json_object_get(root, "version")),
			 4);
	assert_string_equal(json_string_value(json_object_get(md, "NAME")),
			    "tcp_nup");
	assert_string_equal(json_string_value(json_object_get(md, "T0")),
			    "2023-11-14T22:13:20.000000Z");
	assert_true(json_number_value(json_object_get(md, "STEP_SIZE")) == 0.2);
	assert_true(json_number_value(json_object_get(md, "TOTAL_LENGTH")) ==
		    3);
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(md, "TEST_PARAMETERS"), "upload_streams")),
	    "2");
	/* 0, 0.2, ... 3.0 */
	assert_int_equal(json_array_size(x), 16);
	assert_true(fabs(json_real_value(json_array_get(x, 15)) - 3.0) < 1e-9);

	json_t *u1 = json_object_get(res, "TCP upload::1");
	json_t *sum = json_object_get(res, "TCP upload sum");
	json_t *fair = json_object_get(res, "TCP upload fairness");

	assert_int_equal(json_array_size(u1), 16);
	/* Before the first sample: null; on the samples: the value. */
	assert_true(json_is_null(json_array_get(u1, 0)));
	assert_true(json_real_value(json_array_get(u1, 6)) == 10);
	assert_true(json_real_value(json_array_get(sum, 6)) == 40);
	assert_true(fabs(json_real_value(json_array_get(fair, 6)) - 0.8) <
		    1e-9);
	assert_true(json_is_null(json_array_get(sum, 0)));

	/* Raw records keep their extra keys; the lost probe has no val. */
	json_t *r1 = json_object_get(raw, "TCP upload::1");
	json_t *rp = json_object_get(raw, "Ping (ms) ICMP");

	assert_int_equal(json_array_size(r1), 6);
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(r1, 0), "tcp_cwnd")),
			 15);
	assert_int_equal(json_array_size(rp), 16);
	assert_null(json_object_get(json_array_get(rp, 7), "val"));
	assert_true(
	    json_is_true(json_object_get(json_array_get(rp, 7), "lost")));
	assert_int_equal(
	    json_array_size(json_object_get(raw, "TCP upload sum")), 0);
	json_t *sm = json_object_get(json_object_get(md, "SERIES_META"),
				     "TCP upload sum");
	assert_true(json_number_value(json_object_get(sm, "MEAN_VALUE")) == 40);
	assert_string_equal(json_string_value(json_object_get(sm, "RUNNER")),
			    "SumRunner");
	json_decref(root);
	flent_free(f);
}

static void file_name_like_flent(void **state)
{
	(void)state;
	struct flent_file *f = sample_file();
	char name[256];

	assert_int_equal(flent_filename(f, name, sizeof(name)), 0);
	assert_string_equal(
	    name, "tcp_nup-2023-11-14T221320.000000.unit_test.flent.gz");
	flent_free(f);
}

static void keys_are_sorted_in_the_file(void **state)
{
	(void)state;
	struct flent_file *f = sample_file();
	char path[256], buf[1 << 16];
	struct al_err err;
	gzFile gz;
	int n;

	snprintf(path, sizeof(path), "%s/sorted.flent.gz", dir);
	assert_int_equal(flent_write(f, path, &err), 0);
	gz = gzopen(path, "rb");
	n = gzread(gz, buf, sizeof(buf) - 1);
	gzclose(gz);
	assert_true(n > 0);
	buf[n] = '\0';
	char *m = strstr(buf, "\"metadata\""), *v = strstr(buf, "\"version\""),
	     *x = strstr(buf, "\"x_values\""), *r = strstr(buf, "\"results\""),
	     *rv = strstr(buf, "\"raw_values\"");
	assert_true(m && v && x && r && rv);
	assert_true(m < rv && rv < r && r < v && v < x);
	flent_free(f);
}

static void refuses_truncated_file(void **state)
{
	(void)state;
	struct flent_file *f = sample_file();
	char path[256];
	struct al_err err;
	struct stat st;

	snprintf(path, sizeof(path), "%s/cut.flent.gz", dir);
	assert_int_equal(flent_write(f, path, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size / 2), 0);
	assert_null(flent_read(path, &err));
	assert_non_null(strstr(err.msg, "truncated"));
	assert_non_null(strstr(err.msg, path));
	/* Only the 8-byte gzip trailer missing: still refused. */
	assert_int_equal(flent_write(f, path, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 4), 0);
	assert_null(flent_read(path, &err));
	assert_non_null(strstr(err.msg, "truncated"));
	flent_free(f);
}

static void write_gz(const char *path, const char *text)
{
	gzFile gz = gzopen(path, "wb");

	gzwrite(gz, text, (unsigned)strlen(text));
	gzclose(gz);
}

static void refuses_bad_json_version_and_shape(void **state)
{
	(void)state;
	char path[256];
	struct al_err err;

	snprintf(path, sizeof(path), "%s/bad.flent.gz", dir);
	write_gz(path, "{\"version\": 4, \"metadata\": ");
	assert_null(flent_read(path, &err));
	assert_non_null(strstr(err.msg, "bad JSON"));
	write_gz(path,
		 "{\"version\": 5, \"metadata\": {\"NAME\": \"x\"}, "
		 "\"x_values\": [], \"results\": {}, \"raw_values\": {}}");
	assert_null(flent_read(path, &err));
	assert_non_null(strstr(err.msg, "version"));
	write_gz(path, "{\"version\": 4, \"metadata\": {\"NAME\": \"x\"}, "
		       "\"x_values\": [0, 0.2], \"results\": {\"a\": [1]}, "
		       "\"raw_values\": {}}");
	assert_null(flent_read(path, &err));
	assert_non_null(strstr(err.msg, "'a' has 1 values for 2"));
	write_gz(path, "{\"version\": 4, \"x_values\": []}");
	assert_null(flent_read(path, &err));
	assert_non_null(strstr(err.msg, "missing"));
	snprintf(path, sizeof(path), "%s/none.flent.gz", dir);
	assert_null(flent_read(path, &err));
	assert_non_null(strstr(err.msg, "none.flent.gz"));
}

static void refuses_bad_parameters(void **state)
{
	(void)state;
	struct al_err err;

	assert_null(flent_new("rrul", T0, 0, 60, 70, &err));
	assert_non_null(strstr(err.msg, "step"));
	assert_null(flent_new("", T0, 0.2, 60, 70, &err));
	assert_null(flent_new("rrul", T0, 1e-6, 60, 70, &err));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(writes_flent_shape),
	    cmocka_unit_test(file_name_like_flent),
	    cmocka_unit_test(keys_are_sorted_in_the_file),
	    cmocka_unit_test(refuses_truncated_file),
	    cmocka_unit_test(refuses_bad_json_version_and_shape),
	    cmocka_unit_test(refuses_bad_parameters),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
