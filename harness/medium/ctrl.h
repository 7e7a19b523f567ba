/* Control protocol of airlab-medium: one command per line on its UNIX
 * socket, one reply per command. A reply is zero or more data lines and
 * then "ok", or a single "error: ..." line; a command that gets an error
 * changes nothing.
 *
 *   set-atten PATH DB     attenuation of an RF path, 0..MED_ATTEN_MAX dB
 *   get-atten [PATH]      "PATH DB" per path
 *   stats                 "medium ..." + one "radio ..." line per radio
 *   reset                 zero counters and the lag histogram
 *   lag                   "lag samples=N p50_us=.. p99_us=.. max_us=.."
 */
#ifndef AIRLAB_MEDIUM_CTRL_H
#define AIRLAB_MEDIUM_CTRL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "medium.h"

#define MED_CTRL_LINE_MAX 256
#define MED_ATTEN_MAX	  200.0

enum med_cmd_op {
	MED_CMD_SET_ATTEN,
	MED_CMD_GET_ATTEN,
	MED_CMD_STATS,
	MED_CMD_RESET,
	MED_CMD_LAG,
};

struct med_cmd {
	enum med_cmd_op op;
	int path; /* index into m->path, -1 = all (get-atten) */
	double db;
};

/* Parses and validates line (without its newline) against m. Returns 0,
 * or -1 with a one-line reason in err. Touches nothing. */
int med_ctrl_parse(const struct medium *m, const char *line,
		   struct med_cmd *cmd, char *err, size_t errlen);

/* Parses, applies and writes the full reply (each line ending in '\n')
 * to out. Returns the reply length; out is always terminated. */
size_t med_ctrl_handle(struct medium *m, const char *line, int64_t now_ns,
		       char *out, size_t outlen);

/* The value after " key=" in one reply line [line, line+len) (it ends
 * at a space or the line's end; its length in *vlen when not NULL), or
 * NULL: how readers of `stats` and `lag` take their fields. */
const char *med_reply_field(const char *line, size_t len, const char *key,
			    size_t *vlen);

/* The stats reply as a table for people (`airlab medium stats`); lines
 * it does not know are shown as they came. */
void med_stats_print(FILE *f, const char *reply);

#endif
