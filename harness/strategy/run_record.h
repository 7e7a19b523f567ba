/* What one run leaves in its run.json, as the run strategy (run.c) gathers
 * it, and its writer (run_record.c). Private to strategy/. */
#ifndef AIRLAB_STRATEGY_RUN_RECORD_H
#define AIRLAB_STRATEGY_RUN_RECORD_H

#include <stdio.h>

#include "../cell/airtime.h"
#include "../cell/link.h"
#include "../suites/run.h"
#include "bringup.h"

/* Per-station airtime of one source over the run, or why there is none. */
struct run_airtime {
	const char *source; /* "medium", "nl80211" */
	bool ok;
	struct airtime_snap delta;
	double share[TOPO_MAX_STATIONS], jain;
	char why[1100];
	/* The channel between the load's start and end (medium only). */
	bool load_ok;
	struct airtime_snap load;
};

struct run_record {
	const char *id, *status, *reasons, *flent_file;
	double start, end;
	const struct suite_outcome *res;
	const struct suite_plan *plan;
	char kernel[128], hostapd[128], wpa[128], commit[64];
	struct run_airtime air[2];
	struct link_snap link; /* the load's counters; n = 0: none */
};

/* r's airtime from two snapshots of one source (why_*: why a snapshot
 * has none). */
void run_airtime_set(struct run_airtime *r, const char *source,
		     const struct airtime_snap *before,
		     const struct airtime_snap *after, const char *why_before,
		     const char *why_after);
/* The airtime table of the run's summary. */
void run_airtime_print(FILE *fp, const struct cell *c,
		       const struct run_airtime *r);
/* DIR/run.json, written aside and renamed. */
int run_record_write(const char *dir, const struct cell *c,
		     const struct cell_state *st, const struct run_record *r,
		     struct al_err *err);

#endif
