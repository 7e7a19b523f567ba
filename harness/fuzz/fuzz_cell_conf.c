/* libFuzzer target: bytes as the DUT's cell.conf (shell KEY=VALUE words)
 * through cell_conf_parse, once collecting every assignment and once with
 * the guest's own setter. A parse either fails with one "line N: ..."
 * line, N a line of the text (the last one for an unterminated quote, the
 * one holding the character it names), or calls the setter with shell
 * names and values under the length limit that, written back as
 * KEY='VALUE' lines (what the harness renders), parse to the same pairs.
 * The setter's result keeps channel, station count, SSID and station names
 * in range. */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The guest programs are not in libairlab (they link libc only), so the
 * parser comes in as source; its static setter is then in reach too. */
#include "../util/cell_conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct pairs {
	char **kv; /* key, value, key, value, ... */
	size_t n, cap;
};

static int collect(void *ctx, const char *key, const char *value, char *err,
		   size_t errlen)
{
	struct pairs *p = ctx;
	char **nkv;

	(void)err;
	(void)errlen;
	if (!(isalpha((unsigned char)key[0]) || key[0] == '_') ||
	    strlen(key) >= 64 || strlen(value) >= CELL_CONF_VALUE_MAX)
		__builtin_trap();
	for (const char *k = key; *k; k++)
		if (!isalnum((unsigned char)*k) && *k != '_')
			__builtin_trap();
	if (p->n + 2 > p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		nkv = realloc(p->kv, p->cap * sizeof(*nkv));
		if (!nkv)
			abort();
		p->kv = nkv;
	}
	p->kv[p->n++] = strdup(key);
	p->kv[p->n++] = strdup(value);
	if (!p->kv[p->n - 1] || !p->kv[p->n - 2])
		abort();
	return 0;
}

static void pairs_free(struct pairs *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->kv[i]);
	free(p->kv);
}

/* Line n (1-based) of text: its start and length, or NULL. */
static const char *line_of(const char *text, long n, size_t *len)
{
	const char *s = text;

	for (long i = 1; i < n && s; i++) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	if (s)
		*len = strcspn(s, "\n");
	return s;
}

/* "line N: ..." with N a line of text; returns N, *body what follows. */
static long check_error(const char *text, const char *msg, const char **body)
{
	long lines = 1, n;
	char *end;

	for (const char *s = text; *s; s++)
		lines += *s == '\n';
	if (strncmp(msg, "line ", 5) != 0 || !isdigit((unsigned char)msg[5]))
		__builtin_trap();
	n = strtol(msg + 5, &end, 10);
	if (n < 1 || n > lines || strncmp(end, ": ", 2) != 0)
		__builtin_trap();
	*body = end + 2;
	return n;
}

/* The parser's own messages: one line, at the line that holds what it
 * names; an unterminated quote runs to the last line. */
static void check_own_error(const char *text, const char *msg)
{
	static const char *const named[] = {"expected KEY=VALUE, found '",
					    "unsupported shell syntax '"};
	const char *body, *line;
	long lines = 1, n = check_error(text, msg, &body);
	size_t len = 0;

	for (const char *s = text; *s; s++)
		lines += *s == '\n';
	line = line_of(text, n, &len);
	if (strchr(msg, '\n') || !line)
		__builtin_trap();
	if (!strncmp(body, "unterminated", 12) && n != lines)
		__builtin_trap();
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strncmp(body, named[i], strlen(named[i])) &&
		    !memchr(line, body[strlen(named[i])], len))
			__builtin_trap();
	if (!strncmp(body, "expansions", 10) && !memchr(line, '$', len) &&
	    !memchr(line, '`', len))
		__builtin_trap();
	if (!strncmp(body, "expected '=' after ", 19) &&
	    !memmem(line, len, body + 19, strlen(body + 19)))
		__builtin_trap();
}

/* KEY='VALUE' lines, a ' inside written as '\''. */
static char *render(const struct pairs *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	for (size_t i = 0; i < p->n; i += 2) {
		fprintf(f, "%s='", p->kv[i]);
		for (const char *v = p->kv[i + 1]; *v; v++)
			if (*v == '\'')
				fputs("'\\''", f);
			else
				fputc(*v, f);
		fputs("'\n", f);
	}
	if (fclose(f) != 0)
		abort();
	return buf;
}

static void check_conf(const struct cell_conf *c)
{
	if (c->channel < 0 || c->channel > 196 || c->nsta < 0 ||
	    c->nsta > CELL_MAX_STATIONS ||
	    strnlen(c->ssid, sizeof(c->ssid)) > 32 ||
	    strnlen(c->variant, sizeof(c->variant)) == sizeof(c->variant))
		__builtin_trap();
	for (int i = 0; i < CELL_MAX_STATIONS; i++)
		if (c->sta[i].name[0] && !cell_conf_name_ok(c->sta[i].name))
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cell_conf conf;
	struct pairs p = {0}, again = {0};
	char *text = malloc(size + 1), *out;
	const char *body;
	char err[300];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (cell_conf_parse(text, collect, &p, err, sizeof(err)) < 0) {
		check_own_error(text, err);
	} else {
		out = render(&p);
		if (cell_conf_parse(out, collect, &again, err, sizeof(err)) <
			0 ||
		    again.n != p.n)
			__builtin_trap();
		for (size_t i = 0; i < p.n; i++)
			if (strcmp(p.kv[i], again.kv[i]))
				__builtin_trap();
		free(out);
	}
	pairs_free(&p);
	pairs_free(&again);

	memset(&conf, 0, sizeof(conf));
	if (cell_conf_parse(text, cell_conf_set, &conf, err, sizeof(err)) < 0)
		check_error(text, err, &body);
	else
		check_conf(&conf);
	free(text);
	return 0;
}
