#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int verrf(struct al_err *err, bool bad_input, const char *fmt,
		 va_list ap)
{
	if (!err)
		return -1;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	err->bad_input = bad_input;
	return -1;
}

int al_errf(struct al_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verrf(err, false, fmt, ap);
	va_end(ap);
	return -1;
}

int al_err_input(struct al_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verrf(err, true, fmt, ap);
	va_end(ap);
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

void al_one_line(char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}
