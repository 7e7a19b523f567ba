/* A finished LAVA job brought home: its test cases checked one by one,
 * the run's record and Flent file taken from its log, stored in the
 * results directory and airlab.db like a local run, with the job's id
 * and URL, so runs, compare, report and the nightly's baseline treat it
 * like any other. */
#ifndef AIRLAB_LAVA_RESULTS_H
#define AIRLAB_LAVA_RESULTS_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "../util/err.h"
#include "rest.h"

struct lava_job {
	long id;
	char state[32], health[32], device[128];
	char start_time[40], end_time[40];
	char failure[512]; /* LAVA's failure_comment */
	/* airlab's metadata in the job definition (lava/job.h). */
	char suite[64], variant[128], plan[128], lab[128], topology[128];
	double length_s;
};

/* GET the job and read airlab's metadata out of its definition; a job
 * airlab did not submit (no airlab.suite) is an error naming it. */
int lava_job_get(const struct lava_server *s, long id, struct lava_job *j,
		 struct al_err *err);
/* The job has finished (state Finished): complete or not. */
bool lava_job_finished(const struct lava_job *j);

/* What storing a job gave. */
struct lava_stored {
	char run_id[256], dir[4600];
	char status[16]; /* complete, partial, failed, lab-failed */
	char reasons[1024];
	bool already; /* stored before: nothing written */
};

/* Stores finished job j under results_dir (run.json, the Flent file, the
 * job's log as lava.log) and indexes it; airlab_commit is the host's.
 * A job stored before is found by its run id and left as it is. */
int lava_job_store(const struct lava_server *s, const struct lava_job *j,
		   const char *results_dir, const char *airlab_commit,
		   struct lava_stored *out, struct al_err *err);

/* The worst of a set of stored jobs. */
enum lava_worst { LAVA_ALL_COMPLETE, LAVA_SOME_PARTIAL, LAVA_SOME_FAILED };

/* Stores each finished job of ids (lava_job_get, lava_job_store), one
 * line a job on out and a job that cannot be stored on stderr (the
 * others are still stored). */
enum lava_worst lava_jobs_store(const struct lava_server *s, const long *ids,
				size_t n, const char *results_dir,
				const char *airlab_commit, FILE *out);

#endif
