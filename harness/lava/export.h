/* A lab file as LAVA devices: one device dictionary per DUT host (a host
 * with a power binding). The virtual DUT is a `qemu` device (TCG, its
 * memory and CPUs from the lab); a real one is an `airlab-bench` device
 * whose power and console are airlab's own commands on the worker, so
 * LAVA drives the same drivers airlab does. */
#ifndef AIRLAB_LAVA_EXPORT_H
#define AIRLAB_LAVA_EXPORT_H

#include <stdbool.h>

#include "../lab/lab.h"
#include "../strategy/plan.h"
#include "../util/err.h"

/* The device name of host h of lab: "<lab>-<host>". */
void lava_device_name(const struct lab *lab, const struct lab_host *h,
		      char *out, size_t len);

/* Writes out_dir/devices/<lab>-<host>.jinja2 per DUT and
 * out_dir/device-types/airlab-bench.jinja2 (when a bench device needs it),
 * printing each path. bench_all makes every DUT a bench device (the
 * virtual one too: a bench job then drives it through airlab); a plan
 * adds a user command per (suite, variant) to each bench device (what
 * its jobs run). With apply, also installs them on this machine's
 * lava-server (lava-server manage, as root) on worker `worker`. */
int lava_export_lab(const struct lab *lab, const char *airlab_bin,
		    const char *out_dir, const char *worker, bool apply,
		    bool bench_all, const struct plan *plan,
		    struct al_err *err);

#endif
