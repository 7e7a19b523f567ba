/* A bench job's run on the LAVA worker (`airlab lava bench-run PLAN SUITE
 * VARIANT`, the job's user command): the plan's suite on one of its
 * variants, made by the run strategy as `airlab run` makes it, then its
 * record and Flent file sent to the job's log, from which `airlab lava
 * results` stores the run on the controller. */
#ifndef AIRLAB_LAVA_BENCH_H
#define AIRLAB_LAVA_BENCH_H

#include <stdio.h>

#include "../strategy/run.h"

struct lava_bench {
	const char *plan_file, *suite, *variant;
	struct cell_paths cell; /* the plan's lab: and topology: win */
	const char *root;	/* the airlab tree */
	const char *out_dir;	/* where the run is kept on the worker */
	FILE *log;		/* the job's log (stdout) */
};

/* Runs b. 0 when the record went to the log: the run's verdict is in
 * r->status, the job itself went as it should. -1 with err otherwise
 * (err->bad_input: the plan, suite or variant). */
int lava_bench_run(const struct lava_bench *b, struct run_result *r,
		   struct al_err *err);

#endif
