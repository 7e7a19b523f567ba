/* A nightly plan (lab/nightly-*.yaml): which cell, which stack variants,
 * which suites at which lengths, how many repeats, and the thresholds a
 * change must pass to count as a regression. */
#ifndef AIRLAB_PLAN_H
#define AIRLAB_PLAN_H

#include <stddef.h>

#include "../util/err.h"

#define PLAN_MAX_VARIANTS 16
#define PLAN_MAX_SUITES	  32
#define PLAN_MAX_METRICS  8

struct plan_suite {
	char name[32];
	double length_s;  /* 0: the suite's default */
	unsigned streams; /* 0: the suite's default */
	int line;
};

struct plan {
	char path[4096];
	char name[64];
	/* Resolved against the plan file's directory; "" = the default. */
	char lab[4096], topology[4096];
	char variants[PLAN_MAX_VARIANTS][256];
	int variant_line[PLAN_MAX_VARIANTS]; /* where each is named */
	int nvariants;
	struct plan_suite suites[PLAN_MAX_SUITES];
	int nsuites;
	int repeat;
	struct {
		char metric[32];
		double value;
	} thresholds[PLAN_MAX_METRICS];
	int nthresholds;
};

/* Errors: "path:line: message", one line. */
int plan_load(struct plan *p, const char *path, struct al_err *err);
int plan_load_buf(struct plan *p, const char *name, const void *buf, size_t len,
		  struct al_err *err);
/* The plan's threshold for metric, else dflt. */
double plan_threshold(const struct plan *p, const char *metric, double dflt);

#endif
