/* Finding the commit that made a metric worse: `git bisect run` over a
 * clone of a repository that builds the DUT's stack variant, each step a
 * build, a bring-up and suite runs (run.h) held against the good
 * revision's with compare.h's statistics.
 *
 * A revision is built with `sh -c BUILD` in the clone, AIRLAB_OUT naming
 * an empty directory where the build leaves exactly one stack-variant
 * file (NAME.yaml); the DUT is flashed with it and booted afresh, the
 * suite runs N times and its samples of the metric are pooled: clearly
 * worse than good is bad, clearly not worse is good, in between runs
 * again up to max_runs and is then skipped, as is a build or boot failure
 * (with the reason). The good and bad revisions are measured first; bad
 * must be worse than good. Every step is kept (step.json, its runs,
 * build.log) and listed in RESULTS/bisect/<id>/bisect.json, the record,
 * which the store indexes as a series. */
#ifndef AIRLAB_STRATEGY_BISECT_H
#define AIRLAB_STRATEGY_BISECT_H

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "../results/compare.h"
#include "../results/series_doc.h"
#include "../util/err.h"

/* A step's verdict, as `git bisect run` takes a command's exit status. */
enum { BISECT_GOOD = 0, BISECT_BAD = 1, BISECT_SKIP = 125 };

/* Runs a revision may get (--runs, --max-runs). */
#define BISECT_MAX_RUNS 16

/* A bisect's directory and its record. */
struct bisect {
	char dir[PATH_MAX + 64], src[PATH_MAX + 80], file[PATH_MAX + 80];
	char results[PATH_MAX]; /* where the runs go and the store is */
	json_t *root;		/* bisect.json (results/series_doc.h) */
};

/* Reads DIR/bisect.json into b (dir may be b->dir); -1 with err naming
 * the file and line. */
int bisect_load(struct bisect *b, const char *dir, struct al_err *err);

/* Writes b->root to b->file and indexes it in b->results' store; an
 * index that cannot be updated is said on stderr, not fatal. -1 with
 * err when the record itself could not be written. */
int bisect_save(struct bisect *b, struct al_err *err);

/* The samples of metric m pooled over step's runs (run directories); a
 * run that cannot be read is said on stderr and left out. -1 when out of
 * memory. */
int bisect_pool(const struct series_step *step, const struct cmp_metric *m,
		struct cmp_samples *out);

/* A comparison's verdict: worse beyond the threshold is BISECT_BAD, a
 * whole interval within it BISECT_GOOD, else undecided (-1). */
int bisect_decide(const struct cmp_metric *m, const struct cmp_result *r,
		  double threshold);

/* step's pooled samples against base's (the good revision's step), the
 * comparison in r: bisect_decide's verdict. base NULL: step is a
 * baseline, compared with itself for its median; -1. */
int bisect_verdict(const struct series_step *base,
		   const struct series_step *step, const struct cmp_metric *m,
		   double threshold, struct cmp_result *r);

/* Where the steps run. */
struct bisect_env {
	/* The lab and topology files; NULL (bisect_step): the record's. */
	const char *lab, *topology;
	const char *root;	 /* the airlab tree, for its git commit */
	const char *variant_dir; /* kernel/ */
	FILE *show;		 /* station tables and run lines; NULL: quiet */
	/* Set (by a signal handler): the bisect ends after the step that
	 * runs, recorded as interrupted. NULL: never. */
	volatile sig_atomic_t *stop;
};

struct bisect_request {
	struct bisect_env env;	       /* its lab and topology given */
	const char *repo, *good, *bad; /* a git repository, two revisions */
	const char *build;	       /* sh -c BUILD in the clone */
	const char *metric;	       /* by name (compare.h) */
	double threshold;	       /* NaN: the metric's own */
	int runs, max_runs;	       /* a revision's; max_runs 0: 2 x runs */
	const char *suite;	       /* by name */
	int length_s;		       /* of each run; 0: the suite's */
	const char *out_dir;	       /* the results directory */
	/* The airlab binary `git bisect run` calls as `EXE bisect-step
	 * DIR`; NULL: this process's own. */
	const char *exe;
};

/* The record a bisect starts with, every part of rq checked first (the
 * metric, the runs, the suite, the repository and both revisions being
 * commits in it, the results directory, made when absent, the lab and
 * topology files): paths made absolute, as the steps run in the clone.
 * NULL with err (bad input) when rq is refused. */
json_t *bisect_spec(const struct bisect_request *rq, struct al_err *err);

enum bisect_status {
	BISECT_COMPLETE,     /* git bisect named the first bad commit */
	BISECT_INCONCLUSIVE, /* git bisect run ended otherwise (skips) */
	BISECT_INTERRUPTED,  /* *stop was set; the steps so far are kept */
	BISECT_NOT_WORSE,    /* bad is not worse than good (why says) */
};

/* One side of the first bad commit, as its step measured it. */
struct bisect_side {
	int found; /* a step measured this revision */
	char outcome[16];
	double median, change; /* 0 where not measured */
};

struct bisect_result {
	enum bisect_status status;
	char id[64], dir[PATH_MAX + 64], file[PATH_MAX + 80];
	char why[AL_ERR_MAX];
	/* When git bisect ran: the first bad commit (the refs/bisect/bad
	 * it left), its parent and both sides' figures. */
	char first_bad[64], parent[64], subject[256], metric[32];
	struct bisect_side before, at;
	char report[PATH_MAX + 100]; /* the report of the two; "" none */
	char report_err[AL_ERR_MAX]; /* why it could not be written */
	size_t steps;		     /* steps recorded, the two ends too */
	double wall_s;
};

/* The whole bisect: rq checked (bisect_spec), the record made in
 * out_dir/bisect/<id>/ and the repository cloned into its src/, the good
 * then the bad revision measured, `git bisect run` over the rest, the
 * first bad commit and a report of it and its parent. Progress goes to
 * stderr. 0 with out->status, or -1 with err (err->bad_input: refused,
 * nothing made; otherwise the lab, a build of an end or the disk
 * failed). */
int bisect_run(const struct bisect_request *rq, struct bisect_result *out,
	       struct al_err *err);

/* One step of the bisect in dir, on the revision checked out in its
 * clone (what `git bisect run` calls): built, measured against the good
 * revision, recorded. Returns BISECT_GOOD, BISECT_BAD or BISECT_SKIP, or
 * -1 with err (no record, no step directory). */
int bisect_step(const char *dir, const struct bisect_env *env,
		struct al_err *err);

#endif
