/* Error reporting: every failing call fills one al_err with a single line
 * that names what failed and what was tried; callers add context in front. */
#ifndef AIRLAB_ERR_H
#define AIRLAB_ERR_H

#include <stdbool.h>
#include <stddef.h>

#define AL_ERR_MAX 1024

struct al_err {
	char msg[AL_ERR_MAX];
	/* The input is wrong (a lab file setting, a value out of a device's
	 * range), not the lab: the CLI exits 2, not 4. */
	bool bad_input;
};

/* Sets err->msg (printf-style), clears bad_input and returns -1 so callers can
 * `return al_errf(err, ...)`. err may be NULL. */
int al_errf(struct al_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The same for bad input: sets err->bad_input too. */
int al_err_input(struct al_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Replaces control characters (a quoted "\n" in a file, say) with '?' so
 * a message quoting its input stays one line. */
void al_one_line(char *s);

/* Prepends "prefix: " to an existing message; returns -1. */
int al_err_prefix(struct al_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
