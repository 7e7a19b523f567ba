/* Error reporting: every failing call fills one al_err with a single line
 * that names what failed and what was tried; callers add context in front. */
#ifndef AIRLAB_ERR_H
#define AIRLAB_ERR_H

#include <stddef.h>

#define AL_ERR_MAX 1024

struct al_err {
	char msg[AL_ERR_MAX];
};

/* Sets err->msg (printf-style) and returns -1 so callers can
 * `return al_errf(err, ...)`. err may be NULL. */
int al_errf(struct al_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prepends "prefix: " to an existing message; returns -1. */
int al_err_prefix(struct al_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
