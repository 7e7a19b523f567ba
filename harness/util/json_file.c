#include "json_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int json_write_atomic(json_t *root, const char *path, int sort,
		      struct al_err *err)
{
	char tmp[4200];
	size_t flags = JSON_INDENT(2) | (sort ? JSON_SORT_KEYS : 0);

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return al_errf(err, "%s: path too long", path);
	if (json_dump_file(root, tmp, flags) < 0 || rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		return al_errf(err, "cannot write %s: %s", path, strerror(e));
	}
	return 0;
}

json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

const char *json_str_at(const json_t *o, const char *key, const char *dflt)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : dflt;
}

double json_num_at(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}
