#include "ydoc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libyaml reports reader (encoding) errors as a byte offset only. */
static int line_of_offset(const unsigned char *buf, size_t len, size_t off)
{
	int line = 1;

	if (off > len)
		off = len;
	for (size_t i = 0; i < off; i++)
		if (buf[i] == '\n')
			line++;
	return line;
}

static int parser_error(const struct ydoc *d, const yaml_parser_t *p,
			const unsigned char *buf, size_t len,
			struct al_err *err)
{
	const char *problem = p->problem ? p->problem : "unknown error";
	int line;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return al_errf(err, "%s: out of memory while parsing YAML",
			       d->name);
	case YAML_READER_ERROR:
		line = line_of_offset(buf, len, p->problem_offset);
		return al_err_input(err, "%s:%d: YAML syntax error: %s",
				    d->name, line, problem);
	default:
		line = (int)p->problem_mark.line + 1;
		if (p->context)
			return al_err_input(
			    err,
			    "%s:%d: YAML syntax error: %s (%s at "
			    "line %d)",
			    d->name, line, problem, p->context,
			    (int)p->context_mark.line + 1);
		return al_err_input(err, "%s:%d: YAML syntax error: %s",
				    d->name, line, problem);
	}
}

int ydoc_load_buf(struct ydoc *d, const char *name, const void *buf, size_t len,
		  struct al_err *err)
{
	yaml_parser_t p;
	yaml_document_t extra;
	const yaml_node_t *extra_root;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	if (len > YDOC_MAX_BYTES)
		return al_err_input(err, "%s: larger than %d bytes", d->name,
				    YDOC_MAX_BYTES);
	if (!yaml_parser_initialize(&p))
		return al_errf(err, "%s: out of memory starting libyaml",
			       d->name);
	yaml_parser_set_input_string(&p, buf, len);
	if (!yaml_parser_load(&p, &d->doc)) {
		rc = parser_error(d, &p, buf, len, err);
		yaml_parser_delete(&p);
		return rc;
	}
	d->loaded = 1;
	/* A second document would be silently ignored: refuse it. */
	if (!yaml_parser_load(&p, &extra)) {
		rc = parser_error(d, &p, buf, len, err);
	} else {
		extra_root = yaml_document_get_root_node(&extra);
		if (extra_root)
			rc = ydoc_errf(d, extra_root, err,
				       "more than one YAML document (a file "
				       "holds exactly one)");
		yaml_document_delete(&extra);
	}
	yaml_parser_delete(&p);
	if (rc < 0)
		ydoc_free(d);
	return rc;
}

int ydoc_load_file(struct ydoc *d, const char *path, struct al_err *err)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	size_t len;
	int rc;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", path);
	if (!f)
		return al_errf(err, "%s: %s", path, strerror(errno));
	/* One byte more than allowed tells an over-long file apart. */
	buf = malloc(YDOC_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return al_errf(err, "%s: out of memory reading the file", path);
	}
	len = fread(buf, 1, YDOC_MAX_BYTES + 1, f);
	if (ferror(f)) {
		int e = errno;

		free(buf);
		fclose(f);
		return al_errf(err, "%s: %s", path, strerror(e));
	}
	fclose(f);
	rc = ydoc_load_buf(d, path, buf, len, err);
	free(buf);
	return rc;
}

void ydoc_free(struct ydoc *d)
{
	if (d->loaded)
		yaml_document_delete(&d->doc);
	d->loaded = 0;
}

yaml_node_t *ydoc_root(struct ydoc *d)
{
	return d->loaded ? yaml_document_get_root_node(&d->doc) : NULL;
}

int ydoc_line(const yaml_node_t *n)
{
	return n ? (int)n->start_mark.line + 1 : 1;
}

const char *ydoc_kind(const yaml_node_t *n)
{
	switch (n ? n->type : YAML_NO_NODE) {
	case YAML_SCALAR_NODE:
		return "a string";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a map";
	default:
		return "nothing";
	}
}

int ydoc_is_null(const yaml_node_t *n)
{
	const char *s;

	if (!n || n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	s = (const char *)n->data.scalar.value;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") ||
	       !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static int verrf(const struct ydoc *d, int line, struct al_err *err,
		 const char *fmt, va_list ap)
{
	char msg[AL_ERR_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	al_one_line(msg);
	return al_err_input(err, "%.400s:%d: %s", d->name, line, msg);
}

int ydoc_errf(const struct ydoc *d, const yaml_node_t *n, struct al_err *err,
	      const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verrf(d, ydoc_line(n), err, fmt, ap);
	va_end(ap);
	return rc;
}

int ydoc_errf_line(const struct ydoc *d, int line, struct al_err *err,
		   const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verrf(d, line, err, fmt, ap);
	va_end(ap);
	return rc;
}

int ydoc_map_len(const yaml_node_t *map)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return 0;
	return (int)(map->data.mapping.pairs.top -
		     map->data.mapping.pairs.start);
}

yaml_node_t *ydoc_map_key(struct ydoc *d, yaml_node_t *map, int i)
{
	if (i < 0 || i >= ydoc_map_len(map))
		return NULL;
	return yaml_document_get_node(&d->doc,
				      map->data.mapping.pairs.start[i].key);
}

yaml_node_t *ydoc_map_value(struct ydoc *d, yaml_node_t *map, int i)
{
	if (i < 0 || i >= ydoc_map_len(map))
		return NULL;
	return yaml_document_get_node(&d->doc,
				      map->data.mapping.pairs.start[i].value);
}

int ydoc_seq_len(const yaml_node_t *seq)
{
	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return 0;
	return (int)(seq->data.sequence.items.top -
		     seq->data.sequence.items.start);
}

yaml_node_t *ydoc_seq_item(struct ydoc *d, yaml_node_t *seq, int i)
{
	if (i < 0 || i >= ydoc_seq_len(seq))
		return NULL;
	return yaml_document_get_node(&d->doc,
				      seq->data.sequence.items.start[i]);
}

const char *ydoc_scalar(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)n->data.scalar.value;
}

static void join_known(const char *const *known, char *out, size_t len)
{
	size_t off = 0;

	out[0] = 0;
	for (int i = 0; known[i] && off < len; i++) {
		int n = snprintf(out + off, len - off, "%s%s", i ? ", " : "",
				 known[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

int ydoc_check_map(struct ydoc *d, yaml_node_t *n, const char *what,
		   const char *const *known, int max_keys, const char *too_many,
		   struct al_err *err)
{
	int len;

	if (!n || n->type != YAML_MAPPING_NODE)
		return ydoc_errf(d, n, err, "%s must be a map, not %s", what,
				 ydoc_is_null(n) ? "empty" : ydoc_kind(n));
	len = ydoc_map_len(n);
	for (int i = 0; i < len; i++) {
		yaml_node_t *k = ydoc_map_key(d, n, i);
		const char *ks = ydoc_scalar(k);

		if (!ks)
			return ydoc_errf(d, k, err,
					 "%s: keys must be strings, not %s",
					 what, ydoc_kind(k));
		if (strlen(ks) != k->data.scalar.length)
			return ydoc_errf(d, k, err,
					 "%s: a key contains a NUL byte", what);
		if (known) {
			int found = 0;

			for (int j = 0; known[j] && !found; j++)
				found = !strcmp(known[j], ks);
			if (!found) {
				char list[512];

				join_known(known, list, sizeof(list));
				return ydoc_errf(d, k, err,
						 "%s: unknown key '%.100s' "
						 "(known: %s)",
						 what, ks, list);
			}
		}
		for (int j = 0; j < i; j++) {
			yaml_node_t *prev = ydoc_map_key(d, n, j);

			if (!strcmp(ydoc_scalar(prev), ks))
				return ydoc_errf(d, k, err,
						 "%s: duplicate key '%.100s' "
						 "(first at line %d)",
						 what, ks, ydoc_line(prev));
		}
		/* Stops the quadratic duplicate scan at max_keys: a huge
		 * map fails fast. */
		if (i >= max_keys)
			return ydoc_errf(d, k, err,
					 "%s: too many %s (at most %d)", what,
					 too_many, max_keys);
	}
	return 0;
}

yaml_node_t *ydoc_get(struct ydoc *d, yaml_node_t *map, const char *key,
		      int *keyline)
{
	int len = ydoc_map_len(map);

	for (int i = 0; i < len; i++) {
		yaml_node_t *k = ydoc_map_key(d, map, i);
		const char *ks = ydoc_scalar(k);

		if (ks && !strcmp(ks, key)) {
			if (keyline)
				*keyline = ydoc_line(k);
			return ydoc_map_value(d, map, i);
		}
	}
	return NULL;
}

int ydoc_scalar_value(struct ydoc *d, yaml_node_t *v, const char *what,
		      const char *key, const char **out, struct al_err *err)
{
	const char *s = ydoc_scalar(v);

	if (!s)
		return ydoc_errf(d, v, err, "%s: '%s' must be a string, not %s",
				 what, key, ydoc_kind(v));
	if (ydoc_is_null(v))
		return ydoc_errf(d, v, err, "%s: '%s' has no value", what, key);
	if (strlen(s) != v->data.scalar.length)
		return ydoc_errf(d, v, err, "%s: '%s' contains a NUL byte",
				 what, key);
	*out = s;
	return 0;
}

int ydoc_get_str(struct ydoc *d, yaml_node_t *map, const char *key,
		 const char *what, int required, char *out, size_t outlen,
		 struct al_err *err)
{
	yaml_node_t *v = ydoc_get(d, map, key, NULL);
	const char *s;

	out[0] = 0;
	if (!v) {
		if (!required)
			return 0;
		return ydoc_errf(d, map, err, "%s: '%s' is missing", what, key);
	}
	if (ydoc_scalar_value(d, v, what, key, &s, err) < 0)
		return -1;
	if (strlen(s) >= outlen)
		return ydoc_errf(d, v, err,
				 "%s: '%s' is longer than %zu characters", what,
				 key, outlen - 1);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

int ydoc_parse_double(const char *s, double *out)
{
	char *end;

	if (!*s || *s == ' ' || *s == '\t')
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*out))
		return -1;
	return 0;
}

int ydoc_parse_long(const char *s, long *out)
{
	char *end;

	if (!*s || *s == ' ' || *s == '\t')
		return -1;
	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	return 0;
}

int ydoc_name_ok(const char *s, size_t maxlen, const char *extra,
		 int lower_only)
{
	size_t n = strlen(s);

	if (n == 0 || n > maxlen)
		return 0;
	for (const char *p = s; *p; p++) {
		char c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			continue;
		if (!lower_only && c >= 'A' && c <= 'Z')
			continue;
		if (extra && strchr(extra, c))
			continue;
		return 0;
	}
	return 1;
}
