/* cell.conf reader (see cell_conf.h). */
#include "cell_conf.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int append(char *buf, size_t *len, char ch)
{
	if (*len + 1 >= CELL_CONF_VALUE_MAX)
		return -1;
	buf[(*len)++] = ch;
	buf[*len] = '\0';
	return 0;
}

/* Reads one shell word starting at *p into out (quotes removed). */
static int read_word(const char **p, int *line, char *out, char *err,
		     size_t errlen)
{
	const char *s = *p;
	size_t len = 0;

	out[0] = '\0';
	while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != ';') {
		if (*s == '\'') {
			for (s++; *s && *s != '\''; s++) {
				if (*s == '\n')
					(*line)++;
				if (append(out, &len, *s) < 0)
					goto too_long;
			}
			if (*s != '\'') {
				set_err(err, errlen,
					"line %d: unterminated single quote",
					*line);
				return -1;
			}
			s++;
		} else if (*s == '"') {
			for (s++; *s && *s != '"'; s++) {
				if (*s == '$' || *s == '`') {
					set_err(err, errlen,
						"line %d: expansions are not "
						"supported",
						*line);
					return -1;
				}
				/* s[1] first: strchr also finds the NUL, and a
				 * backslash ending the text would step past
				 * its end. */
				if (*s == '\\' && s[1] &&
				    strchr("\"\\$`", s[1]))
					s++;
				if (*s == '\n')
					(*line)++;
				if (append(out, &len, *s) < 0)
					goto too_long;
			}
			if (*s != '"') {
				set_err(err, errlen,
					"line %d: unterminated double quote",
					*line);
				return -1;
			}
			s++;
		} else if (*s == '\\' && s[1]) {
			/* A backslash-newline joins two lines of the file:
			 * count the second, or later messages name the
			 * wrong line. */
			if (s[1] == '\n')
				(*line)++;
			else if (append(out, &len, s[1]) < 0)
				goto too_long;
			s += 2;
		} else if (*s == '$' || *s == '`' || *s == '(' || *s == ')' ||
			   *s == '|' || *s == '&' || *s == '<' || *s == '>') {
			set_err(err, errlen,
				"line %d: unsupported shell syntax '%c'", *line,
				*s);
			return -1;
		} else {
			if (append(out, &len, *s) < 0)
				goto too_long;
			s++;
		}
	}
	*p = s;
	return 0;
too_long:
	set_err(err, errlen, "line %d: value longer than %d bytes", *line,
		CELL_CONF_VALUE_MAX - 1);
	return -1;
}

int cell_conf_parse(const char *text,
		    int (*set)(void *ctx, const char *key, const char *value,
			       char *err, size_t errlen),
		    void *ctx, char *err, size_t errlen)
{
	const char *s = text;
	int line = 1;
	char value[CELL_CONF_VALUE_MAX];

	while (*s) {
		char key[64];
		size_t klen = 0;
		char msg[256];

		if (*s == '\n') {
			line++;
			s++;
			continue;
		}
		if (*s == ' ' || *s == '\t' || *s == ';') {
			s++;
			continue;
		}
		if (*s == '#') {
			while (*s && *s != '\n')
				s++;
			continue;
		}
		if (!(isalpha((unsigned char)*s) || *s == '_')) {
			set_err(err, errlen,
				"line %d: expected KEY=VALUE, found '%c'", line,
				*s);
			return -1;
		}
		while (isalnum((unsigned char)*s) || *s == '_') {
			if (klen + 1 >= sizeof(key)) {
				set_err(err, errlen, "line %d: key too long",
					line);
				return -1;
			}
			key[klen++] = *s++;
		}
		key[klen] = '\0';
		if (*s != '=') {
			set_err(err, errlen, "line %d: expected '=' after %s",
				line, key);
			return -1;
		}
		s++;
		if (read_word(&s, &line, value, err, errlen) < 0)
			return -1;
		if (set(ctx, key, value, msg, sizeof(msg)) < 0) {
			set_err(err, errlen, "line %d: %s", line, msg);
			return -1;
		}
	}
	return 0;
}

static int parse_int(const char *v, int lo, int hi, int *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < lo || n > hi)
		return -1;
	*out = (int)n;
	return 0;
}

int cell_conf_name_ok(const char *n)
{
	size_t len = strlen(n);

	if (len == 0 || len >= CELL_NAME_MAX)
		return 0;
	for (; *n; n++)
		if (!(islower((unsigned char)*n) ||
		      isdigit((unsigned char)*n) || *n == '_' || *n == '-'))
			return 0;
	return 1;
}

int cell_conf_set(void *ctx, const char *key, const char *value, char *err,
		  size_t errlen)
{
	struct cell_conf *c = ctx;
	int idx;
	char rest[32];

	if (strcmp(key, "AIRLAB_VARIANT") == 0) {
		snprintf(c->variant, sizeof(c->variant), "%s", value);
	} else if (strcmp(key, "AIRLAB_SSID") == 0) {
		if (strlen(value) > 32) {
			set_err(err, errlen,
				"AIRLAB_SSID longer than 32 bytes");
			return -1;
		}
		snprintf(c->ssid, sizeof(c->ssid), "%s", value);
	} else if (strcmp(key, "AIRLAB_CHANNEL") == 0) {
		if (parse_int(value, 1, 196, &c->channel) < 0) {
			set_err(err, errlen,
				"AIRLAB_CHANNEL='%s' is not a channel", value);
			return -1;
		}
	} else if (strcmp(key, "AIRLAB_NSTA") == 0) {
		if (parse_int(value, 0, CELL_MAX_STATIONS, &c->nsta) < 0) {
			set_err(err, errlen, "AIRLAB_NSTA='%s' is not 0..%d",
				value, CELL_MAX_STATIONS);
			return -1;
		}
	} else if (sscanf(key, "AIRLAB_STA_%d_%31s", &idx, rest) == 2 &&
		   strcmp(rest, "NAME") == 0) {
		if (idx < 1 || idx > CELL_MAX_STATIONS) {
			set_err(err, errlen, "%s: station index out of 1..%d",
				key, CELL_MAX_STATIONS);
			return -1;
		}
		if (!cell_conf_name_ok(value)) {
			set_err(err, errlen,
				"%s='%s': want 1..15 of [a-z0-9_-]", key,
				value);
			return -1;
		}
		snprintf(c->sta[idx - 1].name, sizeof(c->sta[idx - 1].name),
			 "%s", value);
	}
	/* Other keys (qdisc settings, PSK, RF paths) are the init's. */
	return 0;
}

int cell_conf_load(struct cell_conf *c, const char *path, char *err,
		   size_t errlen)
{
	FILE *f;
	char *text;
	size_t cap = 65536, len = 0, n;
	char msg[256];
	int i, j;

	memset(c, 0, sizeof(*c));
	f = fopen(path, "r");
	if (!f) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	text = malloc(cap);
	if (!text) {
		fclose(f);
		set_err(err, errlen, "%s: out of memory", path);
		return -1;
	}
	while ((n = fread(text + len, 1, cap - 1 - len, f)) > 0) {
		len += n;
		if (len == cap - 1) {
			fclose(f);
			free(text);
			set_err(err, errlen, "%s: larger than %zu bytes", path,
				cap - 1);
			return -1;
		}
	}
	if (ferror(f)) {
		set_err(err, errlen, "%s: read: %s", path, strerror(errno));
		fclose(f);
		free(text);
		return -1;
	}
	fclose(f);
	text[len] = '\0';
	if (cell_conf_parse(text, cell_conf_set, c, msg, sizeof(msg)) < 0) {
		/* msg is "line N: ..." */
		set_err(err, errlen, "%s:%s", path, msg + strlen("line "));
		free(text);
		return -1;
	}
	free(text);
	for (i = 0; i < c->nsta; i++) {
		/* The init names unnamed stations sta<i> too. */
		if (!c->sta[i].name[0])
			snprintf(c->sta[i].name, sizeof(c->sta[i].name),
				 "sta%d", i + 1);
		for (j = 0; j < i; j++) {
			if (strcmp(c->sta[i].name, c->sta[j].name) == 0) {
				set_err(err, errlen,
					"%s: stations %d and %d are both named "
					"'%s'",
					path, j + 1, i + 1, c->sta[i].name);
				return -1;
			}
		}
	}
	return 0;
}
