/* One suite run on a cell, the workflow every command that measures shares
 * (run, sweep steps, nightly, bisect, lava): the cell loaded and checked,
 * brought up (reused when it already runs the variant), one airlab-agent on
 * the traffic server and one per station, the suite run, and
 * OUT/<run-id>/ written (the Flent file, run.json, the console log) and
 * indexed. A run that loses a station or a flow is kept and marked
 * partial; a lab that fails is kept as a lab-failed record. */
#ifndef AIRLAB_STRATEGY_RUN_H
#define AIRLAB_STRATEGY_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "../cell/cell.h"
#include "../suites/suites.h"
#include "../util/err.h"

struct run_request {
	struct cell_paths cell;
	const char *root;	    /* the airlab tree, for its git commit */
	const char *suite;	    /* by name */
	struct suite_params params; /* stations are the topology's */
	const char *out_dir;	    /* results directory, created if need be */
	int wait_s;		    /* for the stations to associate */
	FILE *show; /* the station table and the summary; NULL: quiet */
};

enum run_status {
	RUN_REFUSED,	/* bad input or no DUT: nothing was recorded */
	RUN_LAB_FAILED, /* the lab failed: a lab-failed record */
	RUN_FAILED,	/* the run itself failed: a failed record */
	RUN_PARTIAL,	/* a station or flow was lost */
	RUN_COMPLETE,
};

struct run_result {
	enum run_status status;
	char id[256], dir[4600];  /* "" when nothing was recorded */
	int stations, associated; /* when the cell came up */
	char failure[1024];	  /* why the lab or run failed */
};

/* Runs rq. Returns 0 when the run took place (complete or partial, see
 * out->status), -1 otherwise with err (err->bad_input when the request
 * was refused before the lab was touched); a lab-failed or failed run is
 * still recorded (out->dir). Progress goes to stderr. */
int run_suite(const struct run_request *rq, struct run_result *out,
	      struct al_err *err);

/* "complete", "partial", "failed", "lab-failed" or "refused". */
const char *run_status_name(enum run_status s);

#endif
