/* A night (what `airlab nightly` runs): every suite of a plan on every
 * variant (repeat times), each run made by run_suite() and stored; then
 * each run against the last good run of its suite and variant from before
 * the night, with the plan's thresholds; summary.json, junit.xml and a
 * report in RESULTS/nightly/<date>[-N]/. progress.json there says what
 * the night is and which runs it has stored, written when it starts and
 * after each run, so that a night stopped at any moment is finished by
 * resuming it. One process a night: a lock held with flock(2) in the
 * night's directory (a killed one leaves none). Progress lines go to
 * stderr. */
#ifndef AIRLAB_STRATEGY_NIGHTLY_H
#define AIRLAB_STRATEGY_NIGHTLY_H

#include <stdbool.h>
#include <stdio.h>

#include "../cell/cell.h"
#include "plan.h"
#include "../results/compare.h"
#include "../util/err.h"

#define NIGHT_MAX_RUNS 256

/* What a run of the night came to, as progress.json keeps it
 * ("exit_code"): the status `airlab run` exits with for it. */
enum night_code {
	NIGHT_CODE_OK = 0,
	NIGHT_CODE_REFUSED = 2, /* bad input: nothing ran */
	NIGHT_CODE_PARTIAL = 3,
	NIGHT_CODE_FAILED = 4, /* the run or the lab failed */
};

struct night_run {
	char suite[32], variant[256], id[256], dir[4600];
	char base[256]; /* the run it was compared with, "" for none */
	int exit_code;	/* enum night_code */
	int lab_failed; /* recorded as lab-failed: nothing to compare */
	struct cmp_result r[CMP_MAX_METRICS];
	const char *metric[CMP_MAX_METRICS];
	int nr, worse;
	double seconds; /* the run's wall time, bring-up included */
	/* Its figures in the store once the night is finished (NaN: the
	 * run has none). */
	double lat_ms, p99_ms, goodput_mbps;
};

/* Where a night that did not start stopped (the CLI words its error by
 * it). */
enum night_stage {
	NIGHT_AT_REQUEST,  /* neither or both of a plan and a night to resume */
	NIGHT_AT_PLAN,	   /* the plan, the night to resume, its directory */
	NIGHT_AT_CELL,	   /* a variant's cell does not load or check */
	NIGHT_AT_LOCK,	   /* another process has the night */
	NIGHT_AT_PROGRESS, /* progress.json cannot be written */
};

struct night_request {
	const char *plan_file; /* a new night; NULL when resuming */
	const char *resume;    /* the night (its DATE[-N]) to finish */
	/* The cell: lab, topology (a plan's own win) and variant_dir; the
	 * variant is the plan's. A resumed night runs on the cell it began
	 * on. */
	struct cell_paths cell;
	const char *root;    /* the airlab tree, for its git commit */
	const char *results; /* the results directory */
	int wait_s;	     /* for the stations to associate; 0: 120 */
	FILE *show; /* each run's station table, summary and result line */
};

/* One night: the plan, the cell it runs on, where it goes, its runs so
 * far. On the heap (night_new): its runs are too big for a stack. */
struct night {
	struct plan p;
	char lab[4096], topology[4096], variant_dir[4096], root[4096];
	char results[4200], dir[4500];
	char stamp[32]; /* UTC start, as run ids begin: no baseline after */
	struct night_run runs[NIGHT_MAX_RUNS];
	int n, total;	 /* runs stored, runs of the plan */
	int done_before; /* stored by an earlier process (resumed) */
	bool resumed, locked;
	int wait_s;
	FILE *show;
	int lab_failed; /* the lab failed: the night stopped */
	char why[1200]; /* why it failed */
	enum night_stage failed_at;
};

enum night_status {
	NIGHT_OK,
	NIGHT_REGRESSED,  /* a metric got worse than its baseline */
	NIGHT_PARTIAL,	  /* a run lost part of its flows or stations */
	NIGHT_FAILED,	  /* a run failed or was refused */
	NIGHT_LAB_FAILED, /* the lab failed: the night stopped there */
};

/* A night to start (zeroed); NULL when out of memory. */
struct night *night_new(void);
/* Frees it, giving its lock back when it still holds it. */
void night_free(struct night *nt);

/* Starts the night rq asks for (RESULTS/nightly/<today>[-N]/) or resumes
 * the one it names: its plan loaded and every variant's cell checked
 * before anything runs, the night's lock taken and progress.json written.
 * -1 with err and nt->failed_at otherwise (err->bad_input for a refusal:
 * a bad plan or cell, no such night, a night that has ended). */
int night_start(struct night *nt, const struct night_request *rq,
		struct al_err *err);
/* The night's runs from the first one not stored, progress.json written
 * after each; a lab that fails (or stations that do not associate) stops
 * the night. */
void night_run_all(struct night *nt);
/* Each run compared with its baseline; summary.json, the report and
 * junit.xml written, the runs' figures read from the store, progress.json
 * said done and the lock given back. Failures to write are said on
 * stderr. */
enum night_status night_finish(struct night *nt);
/* The three: the night's status, or -1 when it did not start. */
int nightly(struct night *nt, const struct night_request *rq,
	    struct al_err *err);

/* The parts of night_finish. */
void night_compare(struct night *nt);
int night_write_summary(const struct night *nt, const char *report,
			struct al_err *err);
int night_write_junit(const struct night *nt, struct al_err *err);
enum night_status night_status(const struct night *nt);

/* progress.json with the night's status ("running", "done"). */
int night_progress_write(const struct night *nt, const char *status,
			 struct al_err *err);

/* "complete", "partial", "failed" or "lab-failed". */
const char *night_run_status(const struct night_run *r);

#endif
