/* libFuzzer target: bytes as a Mini-Circuits reply, through the model and
 * the attenuation parsers. A model either fails with a one-line message of
 * printable text or has 1..8 channels, a positive range and a step; an
 * attenuation is finite, and a value the model accepts fits its range and
 * makes a command of printable ASCII. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../drivers/atten/minicircuits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), msg[300], cmd[64];
	struct mc_model m;
	double db;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (mc_parse_model(s, &m, msg, sizeof(msg)) < 0) {
		for (const char *p = msg; *p; p++)
			if ((unsigned char)*p < ' ')
				__builtin_trap();
	} else if (m.channels < 1 || m.channels > 8 || !(m.max_db > 0) ||
		   !(m.step_db > 0)) {
		__builtin_trap();
	}
	if (mc_parse_att(s, &db) == 0) {
		if (!isfinite(db))
			__builtin_trap();
		m = (struct mc_model){"RC4DAT-6000-90", 4, 90, 0.25};
		if (mc_check_db(&m, db, msg, sizeof(msg)) == 0) {
			if (db < 0 || db > 90)
				__builtin_trap();
			mc_cmd_set(&m, 4, db, cmd, sizeof(cmd));
			for (const char *p = cmd; *p; p++)
				if (*p < ' ' || *p > '~')
					__builtin_trap();
		}
	}
	free(s);
	return 0;
}
