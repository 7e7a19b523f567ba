/* An attenuator of the lab opened by its driver (drivers/atten/), under
 * its lock. Which channel carries which RF path is the lab's model
 * (lab/rfpath.h). */
#ifndef AIRLAB_ATTEN_H
#define AIRLAB_ATTEN_H

#include "../drivers/driver.h"
#include "../lab/rfpath.h"

/* An attenuator with its driver opened. */
struct atten_handle {
	struct drv_target t; /* host: NULL, binding: the attenuator's */
	const struct lab_atten *atten;
	const struct atten_ops *ops;
	struct atten_dev *dev;
	char lock[LAB_NAME_MAX + 8]; /* "atten-NAME" while held */
};

/* Checks the lab's paths, takes the attenuator's lock (util/lock.h),
 * looks the driver up in the registry and opens it. On failure h is
 * closed (atten_close is still safe). */
int atten_open(struct atten_handle *h, const struct lab *lab,
	       const struct lab_atten *a, struct al_err *err);
void atten_close(struct atten_handle *h);

#endif
