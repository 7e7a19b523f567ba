/* What the USB relay-board power drivers (ftdi-relay, usb-hid-relay)
 * share: their settings, checked with the lab file's line. */
#ifndef AIRLAB_DRIVERS_POWER_RELAY_H
#define AIRLAB_DRIVERS_POWER_RELAY_H

#include <stddef.h>

#include "../driver.h"

/* Refuses a setting of t's power binding that is none of known[0..n) nor
 * a DUT's own (boot_timeout_s, ready_marker): "file:line: HOST power
 * (DRIVER): unknown setting 'k' (known: ...)". */
int relay_known(const struct drv_target *t, const char *driver,
		const char *const *known, size_t n, struct al_err *err);

/* A whole-number setting (C notation: 3, 0x0403) in min..max, def when
 * absent; -1 with file:line when it is not. */
int relay_int(const struct drv_target *t, const char *driver, const char *key,
	      long def, long min, long max, long *out, struct al_err *err);

/* A yes/no setting (true/false, yes/no, on/off, 1/0). */
int relay_bool(const struct drv_target *t, const char *driver, const char *key,
	       int def, int *out, struct al_err *err);

#endif
