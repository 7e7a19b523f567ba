/* A LAVA job log (GET /api/v0.2/jobs/ID/logs/): one YAML flow mapping a
 * line, `- {"dt": ..., "lvl": ..., "msg": ...}`, the DUT's console lines
 * at lvl "target", a worker-side command's at "debug" after ">> ". airlab's job
 * prints what the host needs between marker lines: `AIRLAB-INFO KEY VALUE`, and
 * files as base64 between `AIRLAB-FILE-BEGIN NAME SIZE` and `AIRLAB-FILE-END
 * NAME`. */
#ifndef AIRLAB_LAVA_LOG_H
#define AIRLAB_LAVA_LOG_H

#include <stddef.h>
#include <stdio.h>

#include "../util/err.h"

/* The console lines of the log, in order, each a malloc'd string (the
 * YAML escapes undone); *n their count. The output of a command the job
 * ran on the worker (lvl debug, ">> " first) counts as console too: a
 * bench job's run happens there. */
int lava_log_target_lines(const char *log, char ***lines, size_t *n,
			  struct al_err *err);
void lava_log_lines_free(char **lines, size_t n);

/* The value of `AIRLAB-INFO key VALUE` (the last one), or NULL. */
const char *lava_log_info(char *const *lines, size_t n, const char *key);

/* The file `name` sent between markers: decoded, its size checked against
 * the BEGIN line's. A missing, cut or garbled block is an error naming
 * the file and what was wrong. */
int lava_log_file(char *const *lines, size_t n, const char *name,
		  unsigned char **data, size_t *len, struct al_err *err);

/* The other end, for a run on the worker (airlab lava bench-run): the
 * file at path sent to out as block `name` (76-column base64, as the DUT's
 * base64(1) writes it). */
int lava_log_send_file(FILE *out, const char *name, const char *path,
		       struct al_err *err);

#endif
