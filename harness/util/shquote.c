#include "shquote.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t sh_quoted_len(const char *s)
{
	size_t n = 2;

	for (; *s; s++)
		n += *s == '\'' ? 4 : 1;
	return n;
}

int sh_quote(char *out, size_t len, size_t *off, const char *s)
{
	if (*off + sh_quoted_len(s) + 1 > len)
		return -1;
	out[(*off)++] = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(out + *off, "'\\''", 4);
			*off += 4;
		} else {
			out[(*off)++] = *s;
		}
	}
	out[(*off)++] = '\'';
	out[*off] = 0;
	return 0;
}

int sh_append(char *out, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(out + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *off)
		return -1;
	*off += (size_t)n;
	return 0;
}

int sh_append_hex(char *out, size_t len, size_t *off, const char *s)
{
	for (; *s; s++)
		if (sh_append(out, len, off, "%02x", (unsigned char)*s) < 0)
			return -1;
	return 0;
}

int sh_put_var(char *out, size_t len, size_t *off, const char *name,
	       const char *value)
{
	if (sh_append(out, len, off, "%s=", name) < 0 ||
	    sh_quote(out, len, off, value) < 0)
		return -1;
	return sh_append(out, len, off, " ");
}
