/* libFuzzer target: stack-variant file bytes through variant_load_buf. A
 * load either fails with one "name:line: ..." line or yields a variant
 * whose name matches the file and whose kernel is an "N.M" series. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../lab/variant.h"

#define NAME "fuzz/kernel/fuzz-6.1.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct variant v;
	struct al_err err;

	if (variant_load_buf(&v, NAME, data, size, &err) < 0) {
		if (strncmp(err.msg, NAME ":", strlen(NAME ":")) != 0 ||
		    strchr(err.msg, '\n'))
			__builtin_trap();
		return 0;
	}
	if (strcmp(v.name, "fuzz-6.1") != 0 || !strchr(v.kernel, '.') ||
	    strchr(v.description, '\n') || strchr(v.root_qdisc, ';'))
		__builtin_trap();
	return 0;
}
