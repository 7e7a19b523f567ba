/* A small layer over libyaml's document API for airlab's config files: loads
 * one document from a file or a buffer, walks maps with duplicate and
 * unknown-key checks, and formats every error as "name:line: message". */
#ifndef AIRLAB_YDOC_H
#define AIRLAB_YDOC_H

#include <stddef.h>
#include <yaml.h>

#include "../util/err.h"

/* Config files are hand-written: anything larger is a mistake. */
#define YDOC_MAX_BYTES (1024 * 1024)

struct ydoc {
	yaml_document_t doc;
	int loaded;
	char name[4096]; /* path or display name, first on every error */
};

/* Loads the single YAML document in buf; name is used in errors. An empty
 * buffer loads as a document without a root node. */
int ydoc_load_buf(struct ydoc *d, const char *name, const void *buf, size_t len,
		  struct al_err *err);
/* Reads path (at most YDOC_MAX_BYTES) and loads it; errors on the file
 * itself are "path: strerror". */
int ydoc_load_file(struct ydoc *d, const char *path, struct al_err *err);
void ydoc_free(struct ydoc *d);

/* NULL for an empty document. */
yaml_node_t *ydoc_root(struct ydoc *d);
/* 1-based line where n starts. */
int ydoc_line(const yaml_node_t *n);
/* "a map", "a list", "a string" for messages. */
const char *ydoc_kind(const yaml_node_t *n);
/* A plain empty, "~" or "null" scalar: a key written without a value. */
int ydoc_is_null(const yaml_node_t *n);

/* Sets err to "name:line: message" (line of n, 1 when n is NULL); -1. */
int ydoc_errf(const struct ydoc *d, const yaml_node_t *n, struct al_err *err,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same at a given 1-based line. */
int ydoc_errf_line(const struct ydoc *d, int line, struct al_err *err,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Map iteration: the i-th key and value of a map node, NULL past the end. */
int ydoc_map_len(const yaml_node_t *map);
yaml_node_t *ydoc_map_key(struct ydoc *d, yaml_node_t *map, int i);
yaml_node_t *ydoc_map_value(struct ydoc *d, yaml_node_t *map, int i);
/* List iteration: the number of items of a list node (0 for anything
 * else) and its i-th item, NULL past the end. */
int ydoc_seq_len(const yaml_node_t *seq);
yaml_node_t *ydoc_seq_item(struct ydoc *d, yaml_node_t *seq, int i);
/* A scalar key's text (NULL for non-scalar keys). */
const char *ydoc_scalar(const yaml_node_t *n);

/* Checks that n is a map (what names it in messages), every key is a
 * scalar, no key repeats, at most max_keys keys (too_many names them in the
 * message) and, when known is non-NULL (NULL-terminated), every key is one
 * of known. */
int ydoc_check_map(struct ydoc *d, yaml_node_t *n, const char *what,
		   const char *const *known, int max_keys, const char *too_many,
		   struct al_err *err);

/* The value of key in a checked map; NULL when absent. keyline gets the
 * key's line when non-NULL. */
yaml_node_t *ydoc_get(struct ydoc *d, yaml_node_t *map, const char *key,
		      int *keyline);

/* Copies a scalar value into out. Errors (at the node, or at the map for a
 * missing required key): not a scalar, no value, a NUL byte, longer than
 * outlen - 1. what names the map in messages. Absent and optional: out is
 * "" and 0 is returned. */
int ydoc_get_str(struct ydoc *d, yaml_node_t *map, const char *key,
		 const char *what, int required, char *out, size_t outlen,
		 struct al_err *err);

/* A scalar value node's text, with the same checks as ydoc_get_str. */
int ydoc_scalar_value(struct ydoc *d, yaml_node_t *v, const char *what,
		      const char *key, const char **out, struct al_err *err);

/* Whole-string numbers: no leading blanks, nothing after, finite. */
int ydoc_parse_double(const char *s, double *out);
int ydoc_parse_long(const char *s, long *out);

/* s is 1..maxlen chars, each alphanumeric or in extra. lower_only rejects
 * upper-case letters. */
int ydoc_name_ok(const char *s, size_t maxlen, const char *extra,
		 int lower_only);

#endif
