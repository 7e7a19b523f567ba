/* JSON records written so that a reader (or a process killed mid-write)
 * sees the old file or the new one, never half of one. */
#ifndef AIRLAB_JSON_FILE_H
#define AIRLAB_JSON_FILE_H

#include <jansson.h>

#include "err.h"

/* Dumps root (indented, keys sorted when sort) to path.tmp and renames it
 * over path; the error names path. */
int json_write_atomic(json_t *root, const char *path, int sort,
		      struct al_err *err);

/* A number, or null where it is not finite (NaN: not measured). */
json_t *json_num(double v);
/* o's string member key, or dflt when it is absent or not a string. */
const char *json_str_at(const json_t *o, const char *key, const char *dflt);
/* o's number member key, NaN when it is absent or not a number. */
double json_num_at(const json_t *o, const char *key);

#endif
