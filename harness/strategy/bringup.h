/* Bringing a cell to the state a run needs, the sequence every workflow
 * (up, run, sweep, nightly, bisect) shares: power, flash, ready, the AP
 * (its driver, drivers/ap/), the variant's knobs read back, stations,
 * the station table. What labgrid calls a strategy: drivers know how to
 * talk to one device, this knows in which order to bring them up. */
#ifndef AIRLAB_STRATEGY_BRINGUP_H
#define AIRLAB_STRATEGY_BRINGUP_H

#include <stdbool.h>
#include <stdio.h>

#include "../cell/cell.h"
#include "../cell/dut.h"
#include "../cell/stahost.h"

/* One knob as the DUT took it. */
struct knob_result {
	char name[80];
	int line;	  /* in the variant file */
	char target[256]; /* the file, or the interface of a qdisc */
	char set[256];	  /* what was written */
	char read[512];	  /* what the DUT reads back (first line) */
};

/* What bringing a cell up found. */
struct cell_state {
	double t0; /* CLOCK_MONOTONIC at the start */
	char release[128];
	struct station_row rows[TOPO_MAX_STATIONS];
	int n, nassoc;
	/* The AP as its driver found it, and the driver's name. */
	struct ap_info ap;
	char ap_driver[LAB_NAME_MAX];
	struct knob_result knobs[VARIANT_MAX_KNOBS];
	int nknobs;
	/* Boots it took (more than one: the earlier ones panicked; the
	 * first panic's line is kept, the traces are in the console log). */
	int boots;
	char boot_panic[256];
	/* Why bringing the cell up failed, for the record. */
	char failure[1024];
};

struct bringup_opts {
	int wait_s; /* for the stations to associate */
	/* A DUT already up with this variant is used as it is (a run);
	 * otherwise it is flashed and booted anew (airlab up). */
	bool reuse;
	FILE *show; /* the station table goes here; NULL: quiet */
};

/* The AP driver of the cell's AP host, its binding checked, and what
 * the variant and stations need of it: every station of a cell whose AP
 * is not the virtual DUT's own is on a station host, every knob's field
 * ({wired}) is configured. Touches nothing. */
int bringup_check(const struct cell *c, const struct ap_ops **ops,
		  struct al_err *err);

/* Power on (or cycle) and flash when needed, wait for boot, check the
 * kernel, bring the AP up, apply and read back the variant's knobs,
 * start the station-host stations and wait up to wait_s for the station
 * table. Progress goes to stderr. -1 with err (also kept in
 * st->failure); a station-host station that did not start fails it
 * too, after the table. An AP that came up but whose knobs failed is
 * stopped again. */
int bringup_cell(struct cell *c, struct dut *d, const struct bringup_opts *o,
		 struct cell_state *st, struct al_err *err);

/* The AP's configuration from the cell (topology ap:, variant name). */
void bringup_ap_config(const struct cell *c, struct ap_config *cfg);

/* How an AP driver reaches d (struct ap_env over dut_run_io). */
void bringup_ap_env(struct dut *d, struct ap_env *env);

/* The station table of a running cell (ap: its AP driver, from
 * bringup_check): the AP host's own stations (the virtual DUT's), the station
 * hosts' in sh (NULL: none), each station-host station checked against the AP's
 * station dump; waits up to wait_s for all to associate. Returns the row count
 * or -1. */
int bringup_stations(struct dut *d, const struct cell *c,
		     const struct ap_ops *ap, struct stahost_set *sh,
		     int wait_s, struct cell_state *st, FILE *show,
		     struct al_err *err);

/* The variant's knobs on the running AP (info: its interface, phy,
 * wired side), each read back into st->knobs. A path the DUT does not
 * have is an error naming the variant file:line and the path. */
int bringup_knobs(struct dut *d, const struct cell *c,
		  const struct ap_info *info, struct cell_state *st,
		  struct al_err *err);

/* Takes the cell down: the station-host stations stopped, the AP
 * stopped by its driver, then (unless stations_only) the AP host
 * powered off. Each failure is printed and the rest still done; -1 when
 * any failed (err: the first). */
int bringup_down(struct cell *c, struct dut *d, bool stations_only,
		 struct al_err *err);

/* Whether the DUT's kernel release is of the variant's series ("6.1"
 * matches "6.1.0-40-amd64", not "6.12.1"). */
bool bringup_kernel_matches(const char *series, const char *release);

#endif
