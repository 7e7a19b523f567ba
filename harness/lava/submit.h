/* A nightly plan as LAVA jobs: one job per (suite, variant, repeat) on the
 * virtual DUT, its images prepared where the worker reads them. */
#ifndef AIRLAB_LAVA_SUBMIT_H
#define AIRLAB_LAVA_SUBMIT_H

#include <stddef.h>

#include "../cell/cell.h"
#include "../strategy/plan.h"
#include "../util/err.h"
#include "rest.h"

#define LAVA_MAX_JOBS 256

struct lava_submit_opts {
	const char *device_type; /* NULL: "qemu" */
	const char *variant_dir; /* kernel/ */
	/* Images go to artifacts/<topology>-<variant>/; the worker fetches
	 * them at url_base/<topology>-<variant>/ (NULL: file://artifacts). */
	const char *artifacts, *url_base;
	int wait_s; /* station association, in the job */
};

struct lava_submitted {
	long id;
	char suite[32], variant[256];
};

/* The variant's kernel and a ramdisk holding c's cell.conf (one gzip'd
 * newc archive: LAVA keeps only the first of concatenated ones) in
 * artifacts/<topology>-<variant>/, and the URLs the worker uses. */
int lava_artifacts(const struct cell *c, const struct lava_submit_opts *o,
		   char *kernel_url, char *ramdisk_url, size_t len,
		   struct al_err *err);

/* Loads every variant's cell first (nothing is submitted for a plan with
 * a bad variant), prepares the images, then submits each job, printing
 * "job N: SUITE on VARIANT URL" to stdout. On an error after some jobs
 * went in, *n says how many (they run; the error says so). */
int lava_submit_plan(const struct lava_server *s, const struct plan *p,
		     const struct lava_submit_opts *o,
		     struct lava_submitted *jobs, size_t max, size_t *n,
		     struct al_err *err);

/* Polls until every job has finished (or timeout_s passes), printing
 * each change of state to stderr. */
int lava_wait(const struct lava_server *s, const long *ids, size_t n,
	      int timeout_s, struct al_err *err);

#endif
