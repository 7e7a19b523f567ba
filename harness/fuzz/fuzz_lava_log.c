/* libFuzzer target: a LAVA job log (what GET jobs/ID/logs/ returns) through
 * lava_log_target_lines, lava_log_info and lava_log_file. A file block is
 * either refused with one line naming it or decoded to exactly the size
 * its BEGIN line claimed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lava/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *log = malloc(size + 1), **lines = NULL;
	unsigned char *file = NULL;
	struct al_err err;
	size_t n = 0, len = 0;

	if (!log)
		return 0;
	memcpy(log, data, size);
	log[size] = 0;
	if (lava_log_target_lines(log, &lines, &n, &err) == 0) {
		const char *k = lava_log_info(lines, n, "kernel");

		if (k && strchr(k, '\n'))
			__builtin_trap();
		if (lava_log_file(lines, n, "record.json", &file, &len, &err) <
		    0) {
			if (file || strchr(err.msg, '\n') ||
			    !strstr(err.msg, "record.json"))
				__builtin_trap();
		} else if (!file) {
			__builtin_trap();
		}
		free(file);
		lava_log_lines_free(lines, n);
	}
	free(log);
	return 0;
}
