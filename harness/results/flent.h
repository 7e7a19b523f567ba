/* Flent data files (*.flent.gz, file format version 4, as Flent 2.1
 * writes them): gzip'd JSON with sorted keys `metadata`, `version`,
 * `x_values`, `results`, `raw_values`.
 *
 * Use: flent_new() with the Flent test name (so Flent finds its plots),
 * flent_series() per data series (names as Flent's tests/<name>.conf uses
 * them), flent_raw() per measurement, flent_computed() for avg / sum /
 * fairness series, then flent_write(). `results` is built like Flent's
 * TimeseriesAggregator: every series is linearly interpolated onto the
 * step grid from its raw values, no further than 5 steps from a sample. */
#ifndef AIRLAB_FLENT_H
#define AIRLAB_FLENT_H

#include <jansson.h>
#include <stddef.h>

#include "../util/err.h"

#define FLENT_FORMAT_VERSION 4
#define FLENT_VERSION_STRING "2.1.1" /* the Flent whose format we write */

struct flent_file;

enum flent_op {
	FLENT_SUM,	/* Flent's SumRunner */
	FLENT_AVG,	/* AverageRunner */
	FLENT_FAIRNESS, /* FairnessRunner: Jain's index */
};

/* t0_unix: start of the run (x = 0); step_s: STEP_SIZE; length_s: LENGTH
 * (bulk flow length); total_s: TOTAL_LENGTH (the x axis spans it).
 * Fills the metadata Flent records (NAME, TIME, T0, LENGTH, TOTAL_LENGTH,
 * STEP_SIZE, FLENT_VERSION, KERNEL_NAME/RELEASE of this host, ...); the
 * caller overrides with flent_meta_*(). */
struct flent_file *flent_new(const char *test_name, double t0_unix,
			     double step_s, double length_s, double total_s,
			     struct al_err *err);
void flent_free(struct flent_file *f);

int flent_meta_str(struct flent_file *f, const char *key, const char *val);
int flent_meta_num(struct flent_file *f, const char *key, double val);
/* Steals val (a jansson reference). */
int flent_meta_json(struct flent_file *f, const char *key, json_t *val);
int flent_test_param(struct flent_file *f, const char *key, const char *val);
/* The metadata object itself (borrowed), e.g. for REMOTE_METADATA. */
json_t *flent_metadata(struct flent_file *f);

/* Adds a series; returns its index (>= 0) or -1 if the name is taken. */
int flent_series(struct flent_file *f, const char *name, const char *units);
int flent_series_find(const struct flent_file *f, const char *name);
/* Sets SERIES_META[name][key]. */
int flent_series_meta_num(struct flent_file *f, int idx, const char *key,
			  double val);
int flent_series_meta_str(struct flent_file *f, int idx, const char *key,
			  const char *val);

/* One raw measurement at unix time t. val NAN = no value (a lost probe, a
 * TCP_INFO-only record). extra: NULL or an object whose members are added
 * to the record (stolen), e.g. {"seq": 3} or {"tcp_cwnd": 10}. */
int flent_raw(struct flent_file *f, int idx, double t, double val,
	      json_t *extra);
size_t flent_raw_count(const struct flent_file *f, int idx);
/* The raw records of a series so far, in insertion order (new ref). */
json_t *flent_raw_json(const struct flent_file *f, int idx);
/* Moves the run start (x = 0; TIME and T0) to t0_unix. */
void flent_set_t0(struct flent_file *f, double t0_unix);

/* A series computed per step from srcs (Flent's apply_to runners). */
int flent_computed(struct flent_file *f, const char *name, const char *units,
		   enum flent_op op, const int *srcs, size_t n_srcs);

/* Builds x_values/results and writes gzip'd JSON to path (via a temporary
 * file and rename, so a crash never leaves a truncated file there). */
int flent_write(struct flent_file *f, const char *path, struct al_err *err);
/* Flent's own file name: <NAME>-<ISO time, no colons>[.<title>].flent.gz */
int flent_filename(const struct flent_file *f, char *buf, size_t len);

/* Reads a .flent.gz (or plain JSON) file and checks its shape; returns the
 * JSON root (caller json_decref()s) or NULL with a message saying why:
 * truncated gzip stream, bad JSON, unsupported version, missing keys,
 * results not parallel to x_values. */
json_t *flent_read(const char *path, struct al_err *err);

#endif
