#include "shquote.h"

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
