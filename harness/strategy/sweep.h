/* A sweep: one suite run per attenuation step (paths moved from one dB to
 * another) or per fixed rate (mcs:0,3,7 | legacy:6,12,54), on one or more
 * variants. Before each run the link settles: a little ping traffic per
 * cycle until the moved stations' rate estimate holds still (three reads
 * within 15% of their median) or the dwell runs out. Each step records
 * what the attenuators read back, the rate, signal, retries, goodput,
 * latency under load and whether the station stayed associated;
 * RESULTS/sweeps/<id>/sweep.json is rewritten after every step (status
 * "running" until the end) and indexed in the store with its runs. */
#ifndef AIRLAB_STRATEGY_SWEEP_H
#define AIRLAB_STRATEGY_SWEEP_H

#include <jansson.h>
#include <signal.h>
#include <stdio.h>

#include "../cell/cell.h"
#include "../cell/stahost.h"
#include "../suites/suites.h"

#define SWEEP_MAX_PATHS	   16
#define SWEEP_MAX_STEPS	   200
#define SWEEP_MAX_VARIANTS 8

enum sweep_mode { SWEEP_ATTEN, SWEEP_MCS, SWEEP_LEGACY };

/* What the user asked for, as words (the command line's). NULL: not
 * given. */
struct sweep_args {
	const char *paths;	      /* P[,P...]: an attenuation sweep */
	const char *from, *to, *step; /* dB */
	const char *rates;    /* mcs:N,... | legacy:R,...: a rate sweep */
	const char *stations; /* S,...: whose rate is fixed (default all) */
	const char *variants; /* V,...: default the cell's */
	const char *suite;    /* default rtt_fair */
	int dwell_s;	      /* 0: 20 */
	double length_s;      /* 0: the suite's */
};

enum sweep_status {
	SWEEP_COMPLETE,
	SWEEP_PARTIAL,	   /* some runs did not complete */
	SWEEP_INTERRUPTED, /* stopped: the record is incomplete */
	SWEEP_LAB_FAILED,
};

/* A sweep planned, then run. */
struct sweep {
	enum sweep_mode mode;
	char paths[SWEEP_MAX_PATHS][LAB_NAME_MAX];
	int npaths;
	double x[SWEEP_MAX_STEPS]; /* dB, MCS index or legacy Mb/s */
	int nx;
	char variants[SWEEP_MAX_VARIANTS][256];
	int nvariants;
	int watch[TOPO_MAX_STATIONS]; /* topology indexes of the stations */
	int nwatch;
	const char *suite;
	struct suite_params params;
	int dwell_s;
	/* Where: the cell's files (the variant is each of variants in
	 * turn), the airlab tree, the results directory. */
	struct cell_paths cell;
	const char *root, *results;
	FILE *show;		     /* a line per step and station */
	volatile sig_atomic_t *stop; /* set: stop after the current step */
	char id[256], dir[4600], file[4700];
	json_t *root_json;     /* the record (results/series_doc.h) */
	struct stahost_set sh; /* the variant's station hosts, watched */
	struct sweep_scratch *scratch; /* while it runs */
};

/* Fills sw's plan from a, checking everything against the cell of each
 * variant before anything moves: the steps, the paths, the stations.
 * sw->cell, root and results must be set. -1 with err (bad input). */
int sweep_plan(struct sweep *sw, const struct sweep_args *a,
	       struct al_err *err);

/* Runs a planned sweep: its directory and record made, every step of
 * every variant, the bench left as found. Returns 0 with *status, -1
 * when the record could not be made (err). */
int sweep_run(struct sweep *sw, enum sweep_status *status, struct al_err *err);

/* "complete", "partial", "interrupted", "lab-failed". */
const char *sweep_status_name(enum sweep_status s);

#endif
