/* Quoting for sh: any bytes as one word. */
#ifndef AIRLAB_SHQUOTE_H
#define AIRLAB_SHQUOTE_H

#include <stddef.h>

/* Appends s to out at *off in single quotes ('\'' for a quote) and keeps
 * out NUL-terminated; -1 when it does not fit in len (out unchanged past
 * nothing is written). */
int sh_quote(char *out, size_t len, size_t *off, const char *s);
/* Bytes sh_quote needs for s, without the NUL. */
size_t sh_quoted_len(const char *s);
/* printf into out at *off (a script being built); -1 when it does not
 * fit. */
int sh_append(char *out, size_t len, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Appends the bytes of s as lower-case hex (an SSID in a hostapd or
 * wpa_supplicant configuration may hold any bytes). */
int sh_append_hex(char *out, size_t len, size_t *off, const char *s);
/* Appends `name='value' ` (value sh-quoted): a script's variable. */
int sh_put_var(char *out, size_t len, size_t *off, const char *name,
	       const char *value);

#endif
