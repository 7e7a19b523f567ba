/* The records of a series of runs, sweep.json (strategy/sweep.c) and
 * bisect.json (strategy/bisect.c), in one place: the head every series
 * has, its steps' keys, their writer and their reader. The sweep and the
 * bisect build their record's JSON through the functions below and write
 * it with store_series_write (store.h); the store, the sweep's report and
 * the bisect itself read it back into a series_doc or a series_step.
 *
 * Each strategy also keeps keys of its own in the record, read by nobody
 * else, and spells them itself: a sweep's plan (paths, variants, x,
 * dwell_s, length_s), a bisect's request and tally (repo, good, bad,
 * build, threshold, runs, max_runs, length_s, topology, results,
 * bisect_steps, wall_s). */
#ifndef AIRLAB_RESULTS_SERIES_DOC_H
#define AIRLAB_RESULTS_SERIES_DOC_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

/* A number not measured is NaN in these structs and null in the record. */

struct series_atten { /* "atten": a path the sweep step moved */
	char path[64];
	double set_db, read_db; /* asked for, read back */
};

struct series_station { /* "stations": a station the sweep step watched */
	char name[64];
	bool associated, settled;
	/* What settling saw (settle_*), then the run's link and goodput. */
	double settle_s, settle_signal_dbm, settle_txrate_mbps,
	    settle_expected_mbps;
	double rate_mbps, tx_bitrate_mbps, signal_dbm, retries, failed;
	double goodput_up_mbps, goodput_down_mbps;
};

/* One step: a sweep's attenuation or rate on one variant, a bisect's
 * revision. Strings are owned ("" stands for absent: a run_id of "" is
 * written null); the arrays are on the heap (series_step_free). Sizes fit
 * what a bisect step builds in them: a path below its directory. */
struct series_step {
	char variant[PATH_MAX + 600]; /* a bisect's: the built variant file */
	char label[256], outcome[16], run_id[256];
	double x; /* a sweep's dB, MCS or Mb/s read back; a bisect's index */

	/* A sweep's. */
	double latency_median_ms, latency_p99_ms;
	struct series_atten *atten;
	size_t n_atten;
	struct series_station *sta;
	size_t n_sta;

	/* A bisect's. */
	char role[16]; /* good, bad, step */
	char rev[64], subject[256];
	char reason[PATH_MAX + 900]; /* why it was skipped; "" */
	char dir[PATH_MAX + 200];    /* the step's own directory */
	char **runs;		     /* the run directories */
	size_t n_runs;
	double good_median, median, change, ci_lo, ci_hi;
};

/* An empty step: no strings, no arrays, every number NaN. */
void series_step_init(struct series_step *s);
/* Frees s's arrays; s is left empty (series_step_init). */
void series_step_free(struct series_step *s);
/* A new entry at the end of s's array, its numbers NaN; NULL when memory
 * is short. */
struct series_atten *series_step_add_atten(struct series_step *s);
struct series_station *series_step_add_station(struct series_step *s);
/* dir appended to s's runs; -1 when memory is short. */
int series_step_add_run(struct series_step *s, const char *dir);

/* s as a step of a series of kind "sweep" or "bisect": exactly that
 * kind's keys. NULL for another kind. */
json_t *series_step_json(const struct series_step *s, const char *kind);
/* v into s (initialised first): every key of either kind that v has. A v
 * that is not an object reads as an empty step. -1 when memory is short
 * (s is then freed). */
int series_step_read(const json_t *v, struct series_step *s);

/* A record: its head (NULL where absent) and its steps. */
struct series_doc {
	const char *id, *kind; /* kind: "sweep" or "bisect" */
	const char *start, *end, *status, *suite, *lab;
	const char *mode;   /* a sweep's: attenuation, mcs, legacy */
	const char *metric; /* a bisect's: what it follows (compare.h) */
	/* A bisect's, once found: first_bad {rev, parent}, the report of
	 * the two. */
	const char *first_bad, *parent, *report;

	/* Read back by series_doc_read (series_doc_free frees them). */
	struct series_step *steps;
	size_t n_steps;
	json_t *root;
};

/* ---- writing: a record's JSON, built in steps -------------------------- */

/* A new record: d's head (the fields that are not NULL) and no steps.
 * The strategy adds its own keys. */
json_t *series_doc_head_json(const struct series_doc *d);
/* d's head fields that are not NULL set in root (a status and its end, a
 * bisect's id once its directory is made, its first bad commit...). */
void series_doc_head_set(json_t *root, const struct series_doc *d);
/* s appended to root's steps as a step of root's kind; its entry (root
 * holds it), NULL when root is no series. */
json_t *series_doc_add_step(json_t *root, const struct series_step *s);
/* root to file, written aside and renamed; -1 with err when root is not a
 * record series_doc_read would take (no id, kind, status or steps) or
 * the file cannot be written. */
int series_doc_write(json_t *root, const char *file, struct al_err *err);

/* ---- reading ----------------------------------------------------------- */

/* d's head from root (pointers into it); d's steps left empty. */
void series_doc_head_get(const json_t *root, struct series_doc *d);
/* How many steps root has. */
size_t series_doc_n_steps(const json_t *root);
/* root's step i into s; -1 when there is no step i or memory is short. */
int series_doc_step(const json_t *root, size_t i, struct series_step *s);

/* file into d, steps and all. A file that does not parse is an error
 * with its line; one without "id", "kind", "status" or a "steps" array is
 * not a series record. */
int series_doc_read(const char *file, struct series_doc *d, struct al_err *err);
/* The same from text (a fuzzer's input); name stands for the file. */
int series_doc_parse(const char *text, size_t len, const char *name,
		     struct series_doc *d, struct al_err *err);
void series_doc_free(struct series_doc *d);

#endif
