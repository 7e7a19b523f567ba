/* atten=medium: the virtual lab's attenuator is airlab-medium's control
 * socket, reached through the shell of the lab host that runs the daemon
 * (see harness/medium/README.md, "Control protocol"). */
#ifndef AIRLAB_ATTEN_MEDIUM_H
#define AIRLAB_ATTEN_MEDIUM_H

#include <stddef.h>

#include "../driver.h"

/* What the medium accepts for set-atten (harness/medium/ctrl.h). */
#define MEDIUM_ATTEN_MAX_DB 200.0

/* Checks one reply of `airlab-medium -C`: data lines and then "ok", or
 * one "error: ..." line. With path, the data must be exactly one line
 * "PATH DB" and *db gets DB; without, data lines are not looked at.
 * Returns 0; -1 for an "error: ..." reply (msg: the daemon's words); -2
 * for anything else: empty, cut off before "ok", lines that are not the
 * protocol (msg: what is wrong). msg may be NULL. */
int medium_reply_parse(const char *text, const char *path, double *db,
		       char *msg, size_t msglen);

/* Runs one control command (e.g. "stats") on the medium that d (opened
 * by atten_medium_ops) talks to; *reply gets the whole reply, ending in
 * "ok" (malloc'd, the caller frees it). */
int medium_ctrl(struct atten_dev *d, const char *line, char **reply,
		struct al_err *err);

#endif
