/* A LAVA job definition for one suite run. On the virtual DUT (a qemu
 * device): deploy the variant's kernel and a ramdisk holding the cell (to
 * tmpfs, with LAVA's overlay), boot QEMU under TCG, run `airlab-lava-run`
 * in the DUT. On a bench (an airlab-bench device): one user command on the
 * worker, `airlab lava bench-run`, which brings the cell up with airlab's
 * drivers and runs the suite as `airlab run` does. airlab's own keys in
 * `metadata:` (airlab.suite, airlab.variant, ...) are what `airlab lava
 * results` stores the run under. */
#ifndef AIRLAB_LAVA_JOB_H
#define AIRLAB_LAVA_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

/* The device type of a bench DUT (lava/export.h): its jobs run airlab on
 * the worker through a user command instead of booting images. */
#define LAVA_BENCH_TYPE "airlab-bench"

struct lava_job_spec {
	const char *device_type; /* "qemu", or LAVA_BENCH_TYPE */
	const char *kernel_url, *ramdisk_url;
	const char *suite, *variant, *plan, *lab, *topology;
	double length_s;
	int wait_s; /* for the stations to associate */
};

/* The job's YAML, malloc'd; names that are not plain words are refused
 * (they go into YAML and a shell line unquoted). */
char *lava_job_yaml(const struct lava_job_spec *j, struct al_err *err);

/* A name that can go into a job, a device dictionary or a shell line
 * unquoted: letters, digits and . _ - +. */
bool lava_plain_name(const char *s);

/* The user command a bench job runs for (suite, variant): each bench
 * device's dictionary defines it (lava/export.h). Written to buf (len
 * bytes, LAVA_BENCH_CMD_MAX holds any); returns buf. */
#define LAVA_BENCH_CMD_MAX 320
const char *lava_bench_command(const char *suite, const char *variant,
			       char *buf, size_t len);

#endif
