/* airlab report: a static HTML page (index.html plus PNG files, opens from
 * disk) for one or more runs. Per run: Flent's own time-series plot of the
 * .flent.gz (the suite's plot, e.g. all_scaled), the latency CDF under
 * load, per-station goodput and airtime bars (gnuplot), the summary.
 * With two runs or more: latency and goodput box plots side by side and
 * the `airlab compare` table of each run against the first. */
#ifndef AIRLAB_RESULTS_REPORT_H
#define AIRLAB_RESULTS_REPORT_H

#include <stddef.h>

#include "../util/err.h"

/* Writes out_dir/index.html and its images; run_dirs are run
 * directories. Progress lines go to stderr. Returns the number of images
 * written, -1 on an error that leaves no usable page (err says which run
 * or tool). */
int report_write(const char *const *run_dirs, size_t n, const char *out_dir,
		 struct al_err *err);

/* The nightly page: the night's runs (night_dir/summary.json) as above,
 * plus, per suite and variant of the night, its headline figures over the
 * last 30 runs in the store with the regressed ones marked. */
int report_nightly(const char *results_dir, const char *night_dir,
		   const char *out_dir, struct al_err *err);

/* The page of one sweep (sweep_json, as `airlab sweep` writes it):
 * goodput, latency under load (median and p99) and the rate used against
 * the attenuation read back (or the fixed rate), one line per variant and
 * moved station, and every step's figures. Returns the images written
 * (3) or -1. */
int report_sweep(const char *sweep_json, const char *out_dir,
		 struct al_err *err);

#endif
