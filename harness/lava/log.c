#include "log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A YAML double-quoted scalar starting after its opening quote, up to
 * the closing quote or the end of the line (a log entry is one line);
 * returns the malloc'd text. Control characters come out as '?' but for
 * the carriage return a serial line ends in (trimmed by the readers), so
 * a console line quoted in an error stays one line; escapes airlab does
 * not send (\u, \N, ...) are '?' too: base64 and markers are plain
 * ASCII. */
static char *unquote(const char *p)
{
	char *out = malloc(strcspn(p, "\n") + 1), *o = out;

	if (!out)
		return NULL;
	while (*p && *p != '"' && *p != '\n') {
		char c;

		if (*p != '\\') {
			c = *p++;
		} else if (p[1] == '"' || p[1] == '\\' || p[1] == '/') {
			c = p[1];
			p += 2;
		} else if (p[1] == 'r') {
			c = '\r';
			p += 2;
		} else if (p[1] == 'x' && hexval(p[2]) >= 0 &&
			   hexval(p[3]) >= 0) {
			c = (char)(hexval(p[2]) * 16 + hexval(p[3]));
			p += 4;
		} else {
			c = '?';
			p += p[1] && p[1] != '\n' ? 2 : 1;
		}
		*o++ =
		    (unsigned char)c < 0x20 && c != '\r' && c != '\t' ? '?' : c;
	}
	*o = 0;
	return out;
}

int lava_log_target_lines(const char *log, char ***lines, size_t *n,
			  struct al_err *err)
{
	size_t cap = 0;

	*lines = NULL;
	*n = 0;
	for (const char *l = log; l && *l;) {
		const char *eol = strchr(l, '\n');
		const char *m = strstr(l, "\"lvl\": \"target\"");
		const char *q = m ? strstr(m, "\"msg\": \"") : NULL;
		size_t skip = 8;

		/* A command on the worker (a bench job's user command):
		 * the dispatcher logs its output at debug, ">> " first. */
		if (!q || (eol && q > eol)) {
			m = strstr(l, "\"lvl\": \"debug\"");
			q = m ? strstr(m, "\"msg\": \">> ") : NULL;
			skip = 11;
		}
		if (q && (!eol || q < eol)) {
			char *text = unquote(q + skip);

			if (!text)
				goto oom;
			if (*n == cap) {
				char **more = realloc(
				    *lines, (cap = cap ? cap * 2 : 256) *
						sizeof(char *));
				if (!more) {
					free(text);
					goto oom;
				}
				*lines = more;
			}
			(*lines)[(*n)++] = text;
		}
		l = eol ? eol + 1 : NULL;
	}
	return 0;
oom:
	lava_log_lines_free(*lines, *n);
	*lines = NULL;
	*n = 0;
	return al_errf(err, "LAVA log: out of memory");
}

void lava_log_lines_free(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* A console line without the carriage return a serial line ends in. */
static size_t trimmed_len(const char *s)
{
	size_t len = strlen(s);

	while (len > 0 &&
	       (s[len - 1] == '\r' || s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	return len;
}

const char *lava_log_info(char *const *lines, size_t n, const char *key)
{
	const char *found = NULL;
	size_t klen = strlen(key);

	for (size_t i = 0; i < n; i++) {
		const char *l = lines[i];

		if (!strncmp(l, "AIRLAB-INFO ", 12) &&
		    !strncmp(l + 12, key, klen) && l[12 + klen] == ' ') {
			lines[i][trimmed_len(l)] = 0;
			found = l + 13 + klen;
		}
	}
	return found;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Appends one base64 line's bytes to out (at *len, room for them made by
 * the caller); -1 on a character that is not base64. */
static int b64_line(const char *s, size_t slen, unsigned char *out, size_t *len,
		    unsigned *acc, int *bits)
{
	for (size_t i = 0; i < slen; i++) {
		int v;

		if (s[i] == '=')
			break;
		if ((v = b64val((unsigned char)s[i])) < 0)
			return -1;
		*acc = (*acc << 6) | (unsigned)v;
		*bits += 6;
		if (*bits >= 8) {
			*bits -= 8;
			out[(*len)++] = (unsigned char)(*acc >> *bits);
		}
	}
	return 0;
}

int lava_log_file(char *const *lines, size_t n, const char *name,
		  unsigned char **data, size_t *len, struct al_err *err)
{
	char begin[300], endm[300];
	size_t i, want = 0, cap = 0, blen = strlen(name) + 19;
	unsigned acc = 0;
	int bits = 0;
	unsigned char *out = NULL;

	*data = NULL;
	*len = 0;
	snprintf(begin, sizeof(begin), "AIRLAB-FILE-BEGIN %s ", name);
	snprintf(endm, sizeof(endm), "AIRLAB-FILE-END %s", name);
	/* The last block of that name: a retried step sends it again. */
	for (i = n; i-- > 0;)
		if (!strncmp(lines[i], begin, blen))
			break;
	if (i == (size_t)-1)
		return al_errf(err,
			       "the job's log has no %s (no '%s' line): the "
			       "run did not get that far",
			       name, begin);
	if (sscanf(lines[i] + blen, "%zu", &want) != 1)
		return al_errf(err, "the job's log: '%s' has no size",
			       lines[i]);
	for (i++; i < n; i++) {
		const char *l = lines[i];
		size_t ll = trimmed_len(l);

		if (ll == strlen(endm) && !strncmp(l, endm, ll))
			break;
		if (*len + ll + 4 > cap) {
			unsigned char *more =
			    realloc(out, cap = (*len + ll + 4) * 2);

			if (!more) {
				free(out);
				return al_errf(err, "%s: out of memory", name);
			}
			out = more;
		}
		if (b64_line(l, ll, out, len, &acc, &bits) < 0) {
			free(out);
			return al_errf(err,
				       "%s in the job's log: a line that is "
				       "not base64 ('%.60s'): the console "
				       "mixed something into it",
				       name, l);
		}
	}
	if (i == n) {
		free(out);
		return al_errf(err,
			       "%s in the job's log: no '%s' line: the block "
			       "is cut short",
			       name, endm);
	}
	if (*len != want) {
		free(out);
		return al_errf(err,
			       "%s in the job's log: %zu bytes, the job said "
			       "%zu",
			       name, *len, want);
	}
	*data = out ? out : malloc(1);
	return 0;
}

int lava_log_send_file(FILE *out, const char *name, const char *path,
		       struct al_err *err)
{
	static const char t[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char in[57]; /* 57 bytes: one 76-column line */
	FILE *f = fopen(path, "re");
	long size;
	size_t n;

	if (!f)
		return al_errf(err, "%s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) < 0) {
		fclose(f);
		return al_errf(err, "%s: %s", path, strerror(errno));
	}
	fprintf(out, "AIRLAB-FILE-BEGIN %s %ld\n", name, size);
	while ((n = fread(in, 1, sizeof(in), f)) > 0) {
		char line[80], *o = line;

		for (size_t i = 0; i < n; i += 3) {
			unsigned v = (unsigned)in[i] << 16;
			size_t k = n - i < 3 ? n - i : 3;

			if (k > 1)
				v |= (unsigned)in[i + 1] << 8;
			if (k > 2)
				v |= in[i + 2];
			*o++ = t[(v >> 18) & 63];
			*o++ = t[(v >> 12) & 63];
			*o++ = k > 1 ? t[(v >> 6) & 63] : '=';
			*o++ = k > 2 ? t[v & 63] : '=';
		}
		fprintf(out, "%.*s\n", (int)(o - line), line);
	}
	if (ferror(f)) {
		fclose(f);
		return al_errf(err, "%s: read error", path);
	}
	fclose(f);
	fprintf(out, "AIRLAB-FILE-END %s\n", name);
	return fflush(out) == 0 ? 0 : al_errf(err, "%s: write error", name);
}
