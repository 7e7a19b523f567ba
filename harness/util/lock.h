/* Devices one airlab process drives at a time: a lock file per DUT or
 * attenuator in <lab state_dir>/locks/, held with flock(2) for as long as
 * the device is open. The kernel drops the lock when its process dies, so
 * a lock file left by a killed run is taken over (and said so); a live
 * holder is named in the error (pid, host, since when, its command).
 * Locks nest within a process: a sweep that holds the DUT can run a
 * suite that opens it again. */
#ifndef AIRLAB_UTIL_LOCK_H
#define AIRLAB_UTIL_LOCK_H

#include "err.h"

/* Takes the lock of `what` (e.g. "dut-dut1", [A-Za-z0-9_.-]) under
 * state_dir/locks; what_human names the device in errors ("dut1"). */
int lock_take(const char *state_dir, const char *what, const char *what_human,
	      struct al_err *err);
/* Gives one nesting level of it back; the last one frees it. */
void lock_give(const char *state_dir, const char *what);

#endif
