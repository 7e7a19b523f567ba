#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int al_errf(struct al_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->bad_input = false;
	return -1;
}

int al_err_input(struct al_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->bad_input = true;
	return -1;
}

int al_err_prefix(struct al_err *err, const char *fmt, ...)
{
	char prefix[AL_ERR_MAX];
	char old[AL_ERR_MAX];
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	/* Bounded pieces: an over-long context is cut, never the buffer. */
	snprintf(err->msg, sizeof(err->msg), "%.300s: %.700s", prefix, old);
	return -1;
}
