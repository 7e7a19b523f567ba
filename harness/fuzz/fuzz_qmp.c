/* libFuzzer target: QMP stream bytes as QEMU would send them, split into
 * lines the way the client frames them, each classified by
 * qmp_msg_parse. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../qmp/qmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	const char *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct qmp_msg m;
		struct al_err err;

		if (len && p[len - 1] == '\r')
			len--;
		if (len && qmp_msg_parse(p, len, &m, &err) == 0) {
			/* Touch what the client reads from each kind. */
			switch (m.kind) {
			case QMP_MSG_ERROR:
				if (!m.eclass || !m.edesc)
					__builtin_trap();
				break;
			case QMP_MSG_EVENT:
				if (!m.event)
					__builtin_trap();
				break;
			case QMP_MSG_RETURN:
				if (!m.ret)
					__builtin_trap();
				break;
			case QMP_MSG_GREETING:
				break;
			}
			qmp_msg_free(&m);
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}
