/* The results store: indexing run directories, queries, reindex, and a
 * writer killed with SIGKILL mid-way leaving the index consistent with
 * every earlier run intact. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../results/flent.h"
#include "../results/store.h"

static char root[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A run directory with a run.json as airlab run writes it (trimmed). */
static void make_run(const char *id, const char *suite, const char *variant,
		     const char *start, double lat, const char *status)
{
	char dir[256], path[300], text[2048];

	snprintf(dir, sizeof(dir), "%s/%s", root, id);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	snprintf(
	    text, sizeof(text),
	    "{\"id\": \"%s\", \"status\": \"%s\", \"reasons\": \"\","
	    " \"suite\": \"%s\", \"variant\": \"%s\", \"lab\": "
	    "\"virtual\", \"topology\": \"cell-4sta\", \"kernel\": "
	    "\"6.12.1\", \"airlab_commit\": \"abc\", \"start\": \"%s\","
	    " \"end\": \"%s\", \"flent_file\": \"x.flent.gz\","
	    " \"summary\": {\"latency_median_ms\": %g, "
	    "\"latency_p90_ms\": %g, \"latency_p99_ms\": %g, "
	    "\"up_mbps\": 1.5, \"down_mbps\": 20.25, \"down_jain\": null},"
	    " \"stations\": [{\"name\": \"sta1\", \"associated\": true,"
	    " \"assoc_s\": 0.9, \"signal_dbm\": -30, \"txrate_mbps\": 130}],"
	    " \"station_goodput\": [{\"name\": \"sta1\", \"up_mbps\": 1.5,"
	    " \"down_mbps\": 20.25}],"
	    " \"flows\": [{\"series\": \"TCP download BE\", \"station\": "
	    "\"sta1\", \"direction\": \"down\", \"mean_mbps\": 20.25}],"
	    " \"airtime\": {\"medium\": {\"stations\": [{\"name\": \"sta1\","
	    " \"tx_us\": 10, \"rx_us\": 30, \"share\": 1}], \"jain\": 1},"
	    " \"nl80211\": {\"error\": \"not reported\"}}}",
	    id, status, suite, variant, start, start, lat, lat * 1.5, lat * 2);
	write_file(path, text);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/airlab-test-store.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

struct seen {
	int n;
	char ids[16][256];
	double lat[16];
};

static int collect(void *ctx, const struct store_run *r)
{
	struct seen *s = ctx;

	if (s->n < 16) {
		snprintf(s->ids[s->n], sizeof(s->ids[0]), "%s", r->id);
		s->lat[s->n] = r->lat_median_ms;
	}
	s->n++;
	return 0;
}

static void add_query_replace(void **state)
{
	struct store *s;
	struct al_err err;
	struct seen seen = {0};
	char dir[256];

	(void)state;
	make_run("t2-rrul-stock-6.1", "rrul", "stock-6.1",
		 "2026-12-01T02:00:00Z", 900, "complete");
	make_run("t1-rrul-mac80211-6.12", "rrul", "mac80211-6.12",
		 "2026-12-01T01:00:00Z", 40, "complete");
	make_run("t3-ping-mac80211-6.12", "ping", "mac80211-6.12",
		 "2026-12-01T03:00:00Z", 1, "partial");
	assert_int_equal(store_open(&s, root, &err), 0);
	for (const char *const *id =
		 (const char *const[]){"t2-rrul-stock-6.1",
				       "t1-rrul-mac80211-6.12",
				       "t3-ping-mac80211-6.12", NULL};
	     *id; id++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, *id);
		if (store_add_run(s, dir, &err) < 0)
			fail_msg("%s", err.msg);
	}
	/* All, oldest first. */
	assert_int_equal(
	    store_runs(s, &(struct store_query){0}, collect, &seen, &err), 3);
	assert_string_equal(seen.ids[0], "t1-rrul-mac80211-6.12");
	assert_string_equal(seen.ids[2], "t3-ping-mac80211-6.12");
	/* Filters and --last. */
	seen.n = 0;
	assert_int_equal(store_runs(s, &(struct store_query){.suite = "rrul"},
				    collect, &seen, &err),
			 2);
	seen.n = 0;
	assert_int_equal(store_runs(s, &(struct store_query){.last = 1},
				    collect, &seen, &err),
			 1);
	assert_string_equal(seen.ids[0], "t3-ping-mac80211-6.12");
	seen.n = 0;
	assert_int_equal(
	    store_runs(s,
		       &(struct store_query){.status = "partial",
					     .variant = "mac80211-6.12"},
		       collect, &seen, &err),
	    1);
	/* Metrics under their flat names; null and absent are NaN. */
	assert_true(
	    store_metric(s, "t1-rrul-mac80211-6.12", "latency_p99_ms") == 80);
	assert_true(store_metric(s, "t1-rrul-mac80211-6.12",
				 "goodput.sta1.down") == 20.25);
	assert_true(store_metric(s, "t1-rrul-mac80211-6.12",
				 "flow.TCP download BE") == 20.25);
	assert_true(store_metric(s, "t1-rrul-mac80211-6.12",
				 "airtime.medium.sta1.share") == 1);
	assert_true(
	    isnan(store_metric(s, "t1-rrul-mac80211-6.12", "down_jain")));
	assert_true(isnan(store_metric(s, "nope", "up_mbps")));
	/* The directory is the truth: adding a run again replaces it. */
	make_run("t1-rrul-mac80211-6.12", "rrul", "mac80211-6.12",
		 "2026-12-01T01:00:00Z", 41, "complete");
	snprintf(dir, sizeof(dir), "%s/t1-rrul-mac80211-6.12", root);
	assert_int_equal(store_add_run(s, dir, &err), 0);
	seen.n = 0;
	assert_int_equal(
	    store_runs(s, &(struct store_query){0}, collect, &seen, &err), 3);
	assert_true(seen.lat[0] == 41);
	/* A broken run.json: an error naming it, nothing changed. */
	snprintf(dir, sizeof(dir), "%s/broken", root);
	mkdir(dir, 0755);
	{
		char p[300];

		snprintf(p, sizeof(p), "%s/run.json", dir);
		write_file(p, "{\"id\": \"broken\", \"status\": ");
	}
	assert_int_equal(store_add_run(s, dir, &err), -1);
	assert_non_null(strstr(err.msg, "broken/run.json:1:"));
	seen.n = 0;
	assert_int_equal(
	    store_runs(s, &(struct store_query){0}, collect, &seen, &err), 3);
	store_close(s);
}

static void reindex_rebuilds(void **state)
{
	char db[256], cmd[1024];
	size_t indexed, skipped;
	struct store *s;
	struct al_err err;
	struct seen seen = {0};

	(void)state;
	/* From scratch, with the broken run.json of the test before. */
	snprintf(db, sizeof(db), "%s/airlab.db", root);
	snprintf(cmd, sizeof(cmd), "rm -f '%s' '%s-wal' '%s-shm'", db, db, db);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(store_reindex(root, &indexed, &skipped, NULL, &err),
			 0);
	assert_int_equal(indexed, 3);
	assert_int_equal(skipped, 1);
	/* A run written before run.json named its suite: from its id. */
	{
		char d[256], p[300];

		snprintf(d, sizeof(d), "%s/20261130T000000Z-tcp_nup-stock-6.1",
			 root);
		mkdir(d, 0755);
		snprintf(p, sizeof(p), "%s/run.json", d);
		write_file(p, "{\"id\": \"20261130T000000Z-tcp_nup-stock-6.1\","
			      " \"status\": \"failed\", \"start\": "
			      "\"2026-11-30T00:00:00Z\"}");
	}
	/* A database that is not one is moved aside, then rebuilt. */
	write_file(db, "this is not an SQLite database, not even close......"
		       "................................................");
	snprintf(cmd, sizeof(cmd), "rm -f '%s-wal' '%s-shm'", db, db);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(store_reindex(root, &indexed, &skipped, NULL, &err),
			 0);
	assert_int_equal(indexed, 4);
	assert_int_equal(store_open(&s, root, &err), 0);
	assert_int_equal(store_runs(s,
				    &(struct store_query){.suite = "tcp_nup"},
				    collect, &seen, &err),
			 1);
	store_close(s);
	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -q '^airlab.db.bad-'", root);
	assert_int_equal(system(cmd), 0);
}

static int integrity_ok(const char *dbpath)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int ok = 0;

	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK)
		return 0;
	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) ==
	    SQLITE_OK) {
		ok = sqlite3_step(st) == SQLITE_ROW &&
		     !strcmp((const char *)sqlite3_column_text(st, 0), "ok");
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return ok;
}

/* A child re-adds 40 runs in a loop; it is SIGKILLed after a random
 * moment, 20 times. After each kill the index passes integrity_check and
 * the runs stored before the child started are all there with their
 * figures. */
static void sigkill_leaves_index_consistent(void **state)
{
	struct al_err err;
	struct store *s;
	char dbpath[256];

	(void)state;
	for (int i = 0; i < 40; i++) {
		char id[64], start[32];

		snprintf(id, sizeof(id), "k%02d-tcp_nup-mac80211-6.12", i);
		snprintf(start, sizeof(start), "2026-12-02T00:%02d:00Z", i);
		make_run(id, "tcp_nup", "mac80211-6.12", start, 10 + i,
			 "complete");
	}
	snprintf(dbpath, sizeof(dbpath), "%s/airlab.db", root);
	srand(7);
	for (int round = 0; round < 20; round++) {
		struct seen seen = {0};
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			struct store *c;
			struct al_err e;

			if (store_open(&c, root, &e) < 0)
				_exit(1);
			for (;;)
				for (int i = 0; i < 40; i++) {
					char dir[256];

					snprintf(dir, sizeof(dir),
						 "%s/k%02d-tcp_nup-mac80211-"
						 "6.12",
						 root, i);
					store_add_run(c, dir, &e);
				}
		}
		usleep((useconds_t)(rand() % 30000));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		assert_true(integrity_ok(dbpath));
		assert_int_equal(store_open(&s, root, &err), 0);
		assert_int_equal(
		    store_runs(s, &(struct store_query){.suite = "rrul"},
			       collect, &seen, &err),
		    2);
		assert_true(store_metric(s, "t2-rrul-stock-6.1",
					 "latency_median_ms") == 900);
		assert_true(store_metric(s, "t1-rrul-mac80211-6.12",
					 "latency_median_ms") == 41);
		store_close(s);
	}
}

static int count_rows(const char *sql)
{
	char dbpath[128];
	sqlite3 *db;
	sqlite3_stmt *st;
	int n = -1;

	snprintf(dbpath, sizeof(dbpath), "%s/airlab.db", root);
	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* A sweep's record goes in as a series of steps; reindex finds it again;
 * a record that is not one is refused with its file name. */
static void series_indexed(void **state)
{
	struct store *s;
	struct al_err err;
	char dir[256], file[300], bad[300];
	size_t indexed, skipped;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/sweeps", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/sweeps/S1", root);
	mkdir(dir, 0755);
	snprintf(file, sizeof(file), "%s/sweep.json", dir);
	write_file(file,
		   "{\"id\": \"S1\", \"kind\": \"sweep\", \"status\": "
		   "\"complete\", \"start\": \"20261204T000000Z\", \"steps\": ["
		   "{\"variant\": \"v\", \"x\": 0, \"label\": \"0 dB\", "
		   "\"outcome\": \"ok\", \"run_id\": \"r1\"},"
		   "{\"variant\": \"v\", \"x\": 30, \"label\": \"30 dB\", "
		   "\"outcome\": \"dropped\", \"run_id\": null}]}");
	assert_int_equal(store_open(&s, root, &err), 0);
	assert_int_equal(store_add_series(s, file, &err), 0);
	/* Again: replaced, not doubled. */
	assert_int_equal(store_add_series(s, file, &err), 0);
	snprintf(bad, sizeof(bad), "%s/notasweep.json", root);
	write_file(bad, "{\"id\": \"S2\"}");
	assert_int_equal(store_add_series(s, bad, &err), -1);
	assert_non_null(strstr(err.msg, bad));
	write_file(bad, "{\"id\": ");
	assert_int_equal(store_add_series(s, bad, &err), -1);
	assert_non_null(strstr(err.msg, bad));
	store_close(s);
	assert_int_equal(count_rows("SELECT count(*) FROM series_steps WHERE "
				    "series_id = 'S1'"),
			 2);
	assert_int_equal(count_rows("SELECT count(*) FROM series_steps WHERE "
				    "outcome = 'dropped' AND x = 30 AND "
				    "run_id IS NULL"),
			 1);
	assert_int_equal(store_reindex(root, &indexed, &skipped, NULL, &err),
			 0);
	assert_int_equal(count_rows("SELECT count(*) FROM series WHERE id = "
				    "'S1' AND status = 'complete'"),
			 1);
	assert_int_equal(count_rows("SELECT count(*) FROM series_steps"), 2);
}

/* reindex says which runs lost their samples: a run.json whose Flent file
 * is missing or cut short is indexed, and counted and named. */
static void reindex_says_lost_samples(void **state)
{
	const char *id = "20261202T000000Z-ping-lost";
	size_t indexed, skipped, damaged, missing;
	char path[300], cmd[700];
	struct flent_file *f;
	struct al_err err;

	(void)state;
	make_run(id, "ping", "stock-6.1", "2026-12-02T00:00:00Z", 5,
		 "complete");
	assert_int_equal(
	    store_reindex(root, &indexed, &skipped, &missing, &err), 0);
	assert_true(missing >= 1 && missing <= indexed);
	/* The file it names, whole: one fewer lost. */
	f = flent_new("ping", 1.7e9, 0.2, 2, 3, &err);
	assert_non_null(f);
	snprintf(path, sizeof(path), "%s/%s/x.flent.gz", root, id);
	assert_int_equal(flent_write(f, path, &err), 0);
	flent_free(f);
	assert_int_equal(
	    store_reindex(root, &indexed, &skipped, &damaged, &err), 0);
	assert_int_equal(damaged, missing - 1);
	/* Cut short: lost again. */
	snprintf(cmd, sizeof(cmd), "truncate -s 20 '%s'", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(
	    store_reindex(root, &indexed, &skipped, &damaged, &err), 0);
	assert_int_equal(damaged, missing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(add_query_replace),
	    cmocka_unit_test(reindex_rebuilds),
	    cmocka_unit_test(series_indexed),
	    cmocka_unit_test(sigkill_leaves_index_consistent),
	    cmocka_unit_test(reindex_says_lost_samples),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
