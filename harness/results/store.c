#include "store.h"
#include "flent.h"
#include "run_doc.h"
#include "series_doc.h"
#include "../util/json_file.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct store {
	sqlite3 *db;
	char path[4096];
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS runs("
    " id TEXT PRIMARY KEY, dir TEXT NOT NULL, start TEXT, end TEXT,"
    " lab TEXT, topology TEXT, suite TEXT, variant TEXT, kernel TEXT,"
    " hostapd TEXT, wpa_supplicant TEXT, airlab_commit TEXT,"
    " status TEXT NOT NULL, reasons TEXT, flent_file TEXT);"
    "CREATE TABLE IF NOT EXISTS metrics("
    " run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " name TEXT NOT NULL, value REAL, PRIMARY KEY(run_id, name));"
    "CREATE TABLE IF NOT EXISTS stations("
    " run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " name TEXT NOT NULL, associated INTEGER, assoc_s REAL,"
    " signal_dbm REAL, txrate_mbps REAL, PRIMARY KEY(run_id, name));"
    "CREATE INDEX IF NOT EXISTS runs_by_suite ON runs(suite, variant, start);"
    /* Sweeps and bisects: ordered steps, each a run (or none: a step that
     * could not run, e.g. every station dropped, a build that failed). */
    "CREATE TABLE IF NOT EXISTS series("
    " id TEXT PRIMARY KEY, kind TEXT NOT NULL, file TEXT NOT NULL,"
    " start TEXT, status TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS series_steps("
    " series_id TEXT NOT NULL REFERENCES series(id) ON DELETE CASCADE,"
    " idx INTEGER NOT NULL, run_id TEXT, variant TEXT, x REAL, label TEXT,"
    " outcome TEXT, PRIMARY KEY(series_id, idx));";

static int db_err(struct store *s, struct al_err *err, const char *what)
{
	return al_errf(err, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

static int exec(struct store *s, const char *sql, struct al_err *err)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		al_errf(err, "%s: %s", s->path, msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int store_open(struct store **out, const char *results_dir, struct al_err *err)
{
	struct store *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return al_errf(err, "store: out of memory");
	snprintf(s->path, sizeof(s->path), "%s/airlab.db", results_dir);
	if (mkdir(results_dir, 0755) < 0 && errno != EEXIST) {
		al_errf(err, "cannot create %s: %s", results_dir,
			strerror(errno));
		free(s);
		return -1;
	}
	if (sqlite3_open_v2(s->path, &s->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			    NULL) != SQLITE_OK) {
		db_err(s, err, "cannot open");
		store_close(s);
		return -1;
	}
	/* Another airlab writing at the same moment waits, not fails. */
	sqlite3_busy_timeout(s->db, 10000);
	if (exec(s, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;", err) <
		0 ||
	    exec(s, schema, err) < 0) {
		store_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}

struct ins {
	struct store *s;
	sqlite3_stmt *metric;
	const char *id;
	int rc;
};

static void put_metric(struct ins *in, const char *name, double v)
{
	if (in->rc || !isfinite(v))
		return;
	sqlite3_reset(in->metric);
	sqlite3_bind_text(in->metric, 1, in->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(in->metric, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(in->metric, 3, v);
	if (sqlite3_step(in->metric) != SQLITE_DONE)
		in->rc = -1;
}

/* Every figure of run.json worth comparing, under one flat name. */
static void put_metrics(struct ins *in, const struct run_doc *d)
{
	char name[512];

	for (size_t i = 0; i < d->n_figures; i++)
		put_metric(in, d->figures[i].name, d->figures[i].value);
	for (size_t i = 0; i < d->n_goodput; i++) {
		const struct run_doc_goodput *g = &d->goodput[i];

		snprintf(name, sizeof(name), "goodput.%s.up", g->station);
		put_metric(in, name, g->up_mbps);
		snprintf(name, sizeof(name), "goodput.%s.down", g->station);
		put_metric(in, name, g->down_mbps);
	}
	for (size_t i = 0; i < d->n_flow; i++) {
		snprintf(name, sizeof(name), "flow.%s", d->flow[i].series);
		put_metric(in, name, d->flow[i].mean_mbps);
	}
	for (size_t i = 0; i < d->n_links; i++) {
		const struct run_doc_link *l = &d->links[i];
		const struct {
			const char *key;
			double v;
		} figs[] = {{"rate_mbps", l->rate_mbps},
			    {"tx_bitrate_mbps", l->tx_bitrate_mbps},
			    {"signal_dbm", l->signal_dbm},
			    {"retries", l->retries},
			    {"failed", l->failed}};

		for (size_t k = 0; k < sizeof(figs) / sizeof(*figs); k++) {
			snprintf(name, sizeof(name), "link.%s.%s", l->station,
				 figs[k].key);
			put_metric(in, name, figs[k].v);
		}
	}
	for (size_t i = 0; i < d->n_air; i++) {
		const struct run_doc_airtime *a = &d->air[i];

		snprintf(name, sizeof(name), "airtime.%s.jain", a->source);
		put_metric(in, name, a->jain);
		for (size_t k = 0; k < a->n; k++) {
			snprintf(name, sizeof(name), "airtime.%s.%s.share",
				 a->source, a->sta[k].station);
			put_metric(in, name, a->sta[k].share);
		}
	}
}

static void bind_num(sqlite3_stmt *st, int col, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

static int put_stations(struct store *s, const struct run_doc *d)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(s->db,
			       "INSERT OR REPLACE INTO stations VALUES"
			       "(?, ?, ?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (size_t i = 0; i < d->n_sta; i++) {
		const struct run_doc_station *v = &d->sta[i];

		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, d->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, v->name, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, v->associated);
		bind_num(st, 4, v->assoc_s);
		bind_num(st, 5, v->signal_dbm);
		bind_num(st, 6, v->txrate_mbps);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

/* One statement whose parameters are all text (NULL binds NULL). */
static int exec_texts(struct store *s, const char *sql, const char *const *vals,
		      int n)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (int k = 0; k < n; k++)
		if (vals[k])
			sqlite3_bind_text(st, k + 1, vals[k], -1,
					  SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

/* Inside a transaction the caller owns. */
static int add_run(struct store *s, const char *run_dir, struct al_err *err)
{
	char path[4200];
	struct run_doc d;
	struct ins in = {s, NULL, NULL, 0};
	int rc = -1;

	if (run_doc_read(run_dir, &d, err) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/run.json", run_dir);
	in.id = d.id;
	{
		const char *vals[] = {
		    d.id,     run_dir,	  d.start,	    d.end,
		    d.lab,    d.topology, d.suite,	    d.variant,
		    d.kernel, d.hostapd,  d.wpa_supplicant, d.airlab_commit,
		    d.status, d.reasons,  d.flent_file};

		if (exec_texts(s, "DELETE FROM runs WHERE id = ?", vals, 1) <
			0 ||
		    exec_texts(s,
			       "INSERT INTO runs VALUES(?, ?, ?, ?, ?, ?, ?, "
			       "?, ?, ?, ?, ?, ?, ?, ?)",
			       vals, 15) < 0)
			goto db;
	}
	if (sqlite3_prepare_v2(s->db,
			       "INSERT OR REPLACE INTO metrics VALUES(?, ?, ?)",
			       -1, &in.metric, NULL) != SQLITE_OK)
		goto db;
	put_metrics(&in, &d);
	if (in.rc || put_stations(s, &d) < 0)
		goto db;
	rc = 0;
	goto out;
db:
	db_err(s, err, path);
out:
	sqlite3_finalize(in.metric);
	run_doc_free(&d);
	return rc;
}

/* add (one run, one series) in a transaction of its own. */
static int in_transaction(struct store *s,
			  int (*add)(struct store *, const char *,
				     struct al_err *),
			  const char *what, struct al_err *err)
{
	if (exec(s, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	if (add(s, what, err) < 0) {
		exec(s, "ROLLBACK", NULL);
		return -1;
	}
	return exec(s, "COMMIT", err);
}

int store_add_run(struct store *s, const char *run_dir, struct al_err *err)
{
	return in_transaction(s, add_run, run_dir, err);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* A text column: NULL where the record has nothing. */
static void bind_text(sqlite3_stmt *st, int col, const char *v)
{
	if (v && v[0])
		sqlite3_bind_text(st, col, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, col);
}

/* Inside a transaction the caller owns. */
static int add_series(struct store *s, const char *file, struct al_err *err)
{
	struct series_doc d;
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (series_doc_read(file, &d, err) < 0)
		return -1;
	{
		const char *vals[] = {d.id, d.kind, file, d.start, d.status};

		if (exec_texts(s, "DELETE FROM series WHERE id = ?", vals, 1) <
			0 ||
		    exec_texts(s, "INSERT INTO series VALUES(?, ?, ?, ?, ?)",
			       vals, 5) < 0)
			goto db;
	}
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO series_steps VALUES"
			       "(?, ?, ?, ?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		goto db;
	for (size_t i = 0; i < d.n_steps; i++) {
		const struct series_step *v = &d.steps[i];

		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, d.id, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, (int)i);
		bind_text(st, 3, v->run_id);
		bind_text(st, 4, v->variant);
		bind_num(st, 5, v->x);
		bind_text(st, 6, v->label);
		bind_text(st, 7, v->outcome);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto db;
	}
	rc = 0;
	goto out;
db:
	db_err(s, err, file);
out:
	sqlite3_finalize(st);
	series_doc_free(&d);
	return rc;
}

int store_add_series(struct store *s, const char *file, struct al_err *err)
{
	return in_transaction(s, add_series, file, err);
}

int store_series_write(json_t *root, const char *file, const char *results_dir,
		       struct al_err *err)
{
	struct store *s = NULL;
	int rc = 0;

	if (series_doc_write(root, file, err) < 0)
		return -1;
	if (store_open(&s, results_dir, err) < 0 ||
	    store_add_series(s, file, err) < 0)
		rc = 1;
	store_close(s);
	return rc;
}

/* Every results_dir/SUB/ * /NAME (sweeps/ * /sweep.json...). */
static void reindex_series(struct store *s, const char *results_dir,
			   const char *sub, const char *name, size_t *indexed,
			   size_t *skipped)
{
	char dir[4200];
	struct dirent **ents;
	int n;

	snprintf(dir, sizeof(dir), "%s/%s", results_dir, sub);
	n = scandir(dir, &ents, NULL, by_name);
	for (int i = 0; i < n; i++) {
		char f[4600];
		struct stat sb;
		struct al_err e;

		snprintf(f, sizeof(f), "%s/%s/%s", dir, ents[i]->d_name, name);
		if (ents[i]->d_name[0] != '.' && stat(f, &sb) == 0) {
			if (add_series(s, f, &e) < 0) {
				fprintf(stderr, "%s\n", e.msg);
				(*skipped)++;
			} else {
				(*indexed)++;
			}
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* 0 when the run in dir names no Flent file or one that reads whole;
 * -1 with the reason otherwise. */
static int flent_check(const char *dir, struct al_err *err)
{
	char path[8400];
	struct run_doc d;
	struct al_err e2;
	json_t *f;

	if (run_doc_read(dir, &d, &e2) < 0)
		return 0; /* add_run said what is wrong with it */
	if (!d.flent_file || !*d.flent_file) {
		run_doc_free(&d);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, d.flent_file);
	run_doc_free(&d);
	if (!(f = flent_read(path, err)))
		return -1;
	json_decref(f);
	return 0;
}

int store_reindex(const char *results_dir, size_t *indexed, size_t *skipped,
		  size_t *damaged, struct al_err *err)
{
	struct store *s;
	struct dirent **ents;
	int n;

	*indexed = *skipped = 0;
	if (damaged)
		*damaged = 0;
	if (store_open(&s, results_dir, err) < 0) {
		/* An index that does not open is set aside, never deleted,
		 * and built anew from the run directories. */
		char db[4200], bad[4300];
		static const char *const sfx[] = {"", "-wal", "-shm"};
		long now = (long)time(NULL);

		fprintf(stderr, "%s; moving it aside\n", err->msg);
		for (int k = 0; k < 3; k++) {
			snprintf(db, sizeof(db), "%s/airlab.db%s", results_dir,
				 sfx[k]);
			snprintf(bad, sizeof(bad), "%s/airlab.db.bad-%ld%s",
				 results_dir, now, sfx[k]);
			if (rename(db, bad) < 0 && errno != ENOENT)
				return al_errf(err, "cannot move %s aside: %s",
					       db, strerror(errno));
		}
		if (store_open(&s, results_dir, err) < 0)
			return -1;
	}
	n = scandir(results_dir, &ents, NULL, by_name);
	if (n < 0) {
		al_errf(err, "cannot read %s: %s", results_dir,
			strerror(errno));
		store_close(s);
		return -1;
	}
	/* One transaction: readers see the old index or the new one. */
	if (exec(s, "BEGIN IMMEDIATE; DELETE FROM runs; DELETE FROM series;",
		 err) < 0)
		goto fail;
	for (int i = 0; i < n; i++) {
		char dir[4200], rj[4300];
		struct stat sb;
		struct al_err e;

		if (ents[i]->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", results_dir,
			 ents[i]->d_name);
		snprintf(rj, sizeof(rj), "%s/run.json", dir);
		if (stat(rj, &sb) < 0)
			continue;
		if (add_run(s, dir, &e) < 0) {
			fprintf(stderr, "%s\n", e.msg);
			(*skipped)++;
		} else {
			(*indexed)++;
			if (damaged && flent_check(dir, &e) < 0) {
				fprintf(stderr,
					"%s: indexed from its run.json, but "
					"its samples are lost: %s\n",
					dir, e.msg);
				(*damaged)++;
			}
		}
	}
	reindex_series(s, results_dir, "sweeps", "sweep.json", indexed,
		       skipped);
	reindex_series(s, results_dir, "bisect", "bisect.json", indexed,
		       skipped);
	if (exec(s, "COMMIT", err) < 0)
		goto fail;
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	store_close(s);
	return 0;
fail:
	exec(s, "ROLLBACK", NULL);
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	store_close(s);
	return -1;
}

static void col(sqlite3_stmt *st, int i, char *out, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	snprintf(out, len, "%s", t ? (const char *)t : "");
}

static double metric_col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL
		   ? NAN
		   : sqlite3_column_double(st, i);
}

int store_runs(struct store *s, const struct store_query *q,
	       int (*cb)(void *ctx, const struct store_run *r), void *ctx,
	       struct al_err *err)
{
	/* The last N by start, then shown oldest first. */
	static const char sql[] =
	    "SELECT * FROM (SELECT r.id, r.dir, r.start, r.end, r.lab,"
	    " r.topology, r.suite, r.variant, r.kernel, r.airlab_commit,"
	    " r.status, r.reasons,"
	    " (SELECT value FROM metrics WHERE run_id = r.id AND"
	    "  name = 'latency_median_ms'),"
	    " (SELECT value FROM metrics WHERE run_id = r.id AND"
	    "  name = 'latency_p90_ms'),"
	    " (SELECT value FROM metrics WHERE run_id = r.id AND"
	    "  name = 'latency_p99_ms'),"
	    " (SELECT value FROM metrics WHERE run_id = r.id AND"
	    "  name = 'up_mbps'),"
	    " (SELECT value FROM metrics WHERE run_id = r.id AND"
	    "  name = 'down_mbps')"
	    " FROM runs r WHERE (?1 IS NULL OR r.suite = ?1) AND"
	    " (?2 IS NULL OR r.variant = ?2) AND (?3 IS NULL OR r.status = ?3)"
	    " ORDER BY r.start DESC, r.id DESC LIMIT ?4)"
	    " ORDER BY 3, 1";
	sqlite3_stmt *st;
	int n = 0, rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "query");
	if (q->suite)
		sqlite3_bind_text(st, 1, q->suite, -1, SQLITE_STATIC);
	if (q->variant)
		sqlite3_bind_text(st, 2, q->variant, -1, SQLITE_STATIC);
	if (q->status)
		sqlite3_bind_text(st, 3, q->status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, q->last ? (sqlite3_int64)q->last : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_run r;

		col(st, 0, r.id, sizeof(r.id));
		col(st, 1, r.dir, sizeof(r.dir));
		col(st, 2, r.start, sizeof(r.start));
		col(st, 3, r.end, sizeof(r.end));
		col(st, 4, r.lab, sizeof(r.lab));
		col(st, 5, r.topology, sizeof(r.topology));
		col(st, 6, r.suite, sizeof(r.suite));
		col(st, 7, r.variant, sizeof(r.variant));
		col(st, 8, r.kernel, sizeof(r.kernel));
		col(st, 9, r.commit, sizeof(r.commit));
		col(st, 10, r.status, sizeof(r.status));
		col(st, 11, r.reasons, sizeof(r.reasons));
		r.lat_median_ms = metric_col(st, 12);
		r.lat_p90_ms = metric_col(st, 13);
		r.lat_p99_ms = metric_col(st, 14);
		r.up_mbps = metric_col(st, 15);
		r.down_mbps = metric_col(st, 16);
		n++;
		if (cb(ctx, &r))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		db_err(s, err, "query");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return n;
}

int store_last_good(struct store *s, const char *run_id, char *out, size_t len,
		    struct al_err *err)
{
	static const char sql[] =
	    "SELECT o.id FROM runs o, runs r WHERE r.id = ?1 AND"
	    " o.suite IS r.suite AND o.variant IS r.variant AND"
	    " o.status = 'complete' AND o.id != r.id AND"
	    " (o.start < r.start OR (o.start = r.start AND o.id < r.id))"
	    " ORDER BY o.start DESC, o.id DESC LIMIT 1";
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM runs WHERE id = ?", -1,
			       &st, NULL) != SQLITE_OK)
		return db_err(s, err, "query");
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return al_errf(err, "%s: no run '%s' in the index", s->path,
			       run_id);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "query");
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		col(st, 0, out, len);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return db_err(s, err, "query");
}

double store_metric(struct store *s, const char *run_id, const char *name)
{
	sqlite3_stmt *st;
	double v = NAN;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT value FROM metrics WHERE run_id = ? AND "
			       "name = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return NAN;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = metric_col(st, 0);
	sqlite3_finalize(st);
	return v;
}
