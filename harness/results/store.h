/* The results store: RESULTS/airlab.db (SQLite, WAL) indexes every run
 * directory under RESULTS. The run directories (run.json, *.flent.gz)
 * stay the truth; the database is an index that store_reindex rebuilds
 * from them. Each run goes in with one transaction, so a process killed
 * at any point leaves the database as it was before that run or after
 * it, never between. */
#ifndef AIRLAB_RESULTS_STORE_H
#define AIRLAB_RESULTS_STORE_H

#include <jansson.h>
#include <stddef.h>

#include "../util/err.h"

struct store;

/* Opens (creating when absent) results_dir/airlab.db. */
int store_open(struct store **s, const char *results_dir, struct al_err *err);
void store_close(struct store *s);

/* Indexes the run in run_dir (its run.json). A run id already in the
 * store is replaced: the directory is the truth. Errors name the file. */
int store_add_run(struct store *s, const char *run_dir, struct al_err *err);

/* Indexes a series of runs from its record file (a sweep's sweep.json, a
 * bisect's bisect.json, read by series_doc_read): its head and each step's
 * run_id, variant, x, label and outcome. A series already in the store
 * under that id is replaced. */
int store_add_series(struct store *s, const char *file, struct al_err *err);

/* A sweep's or bisect's record: root written to file atomically
 * (series_doc_write: the record), then indexed as a series in results_dir's
 * store. -1 with err when the record could not be written; 1 with err when only
 * the index could not be updated (the record stands, reindex rebuilds it); 0.
 */
int store_series_write(json_t *root, const char *file, const char *results_dir,
		       struct al_err *err);

/* Rebuilds results_dir/airlab.db from every results_dir/ * /run.json (and the
 * series in sweeps/ * /sweep.json and bisect/ * /bisect.json): into
 * a new file that then replaces the old one, so readers never see a half
 * index. A run.json that cannot be read is skipped and reported on
 * stderr (one line, file name first); *skipped counts them. A run indexed
 * whose Flent file is missing or unreadable is reported the same way and
 * counted in *damaged (when not NULL). */
int store_reindex(const char *results_dir, size_t *indexed, size_t *skipped,
		  size_t *damaged, struct al_err *err);

struct store_run {
	char id[256], dir[512], start[32], end[32];
	char lab[64], topology[64], suite[64], variant[64];
	char kernel[128], commit[64], status[16], reasons[512];
	double lat_median_ms, lat_p90_ms, lat_p99_ms, up_mbps, down_mbps;
};

struct store_query {
	const char *suite, *variant, *status; /* NULL: any */
	size_t last;			      /* 0: all */
};

/* Runs matching q, oldest first (the last q->last of them); cb returning
 * non-zero stops. Returns the number of runs passed to cb. */
int store_runs(struct store *s, const struct store_query *q,
	       int (*cb)(void *ctx, const struct store_run *r), void *ctx,
	       struct al_err *err);

/* The newest complete run of the same suite and variant as run_id that
 * started before it; 0 with its id in out, 1 when there is none, -1 on
 * an error (run_id unknown). */
int store_last_good(struct store *s, const char *run_id, char *out, size_t len,
		    struct al_err *err);

/* One metric of one run (names as in the metrics table: summary keys,
 * "airtime.SOURCE.STATION.share", "goodput.STATION.up|down"...); NaN when
 * absent. */
double store_metric(struct store *s, const char *run_id, const char *name);

#endif
