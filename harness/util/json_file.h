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

#endif
