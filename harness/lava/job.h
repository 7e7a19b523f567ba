/* A LAVA job definition for one suite run on the virtual DUT: deploy the
 * variant's kernel and a ramdisk holding the cell (to tmpfs, with LAVA's
 * overlay), boot QEMU under TCG, run `airlab-lava-run` in the DUT. airlab's
 * own keys in `metadata:` (airlab.suite, airlab.variant, ...) are what
 * `airlab lava results` stores the run under. */
#ifndef AIRLAB_LAVA_JOB_H
#define AIRLAB_LAVA_JOB_H

#include "../util/err.h"

struct lava_job_spec {
	const char *device_type; /* "qemu" */
	const char *kernel_url, *ramdisk_url;
	const char *suite, *variant, *plan, *lab, *topology;
	double length_s;
	int wait_s; /* for the stations to associate */
};

/* The job's YAML, malloc'd; names that are not plain words are refused
 * (they go into YAML and a shell line unquoted). */
char *lava_job_yaml(const struct lava_job_spec *j, struct al_err *err);

#endif
