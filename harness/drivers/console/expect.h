/* Expect-style conversations over any console driver: what boot waits and
 * bootloader flashing are made of. What the console says is kept in a
 * window (so a pattern split across reads is still found) and appended to
 * a log, one line at a time with a UTC timestamp in front, so a run's
 * results say what the DUT printed and when. */
#ifndef AIRLAB_DRIVERS_CONSOLE_EXPECT_H
#define AIRLAB_DRIVERS_CONSOLE_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../driver.h"

#define CONSOLE_WINDOW 8192

struct console_session {
	const struct console_ops *ops;
	struct console_dev *dev;
	char who[256]; /* "dut1 console /dev/ttyUSB0", for errors */
	FILE *log;     /* NULL: not logged */
	bool log_midline;
	char window[CONSOLE_WINDOW];
	size_t have;
	/* What the last console_expect consumed before its match. */
	char before[CONSOLE_WINDOW];
};

/* Opens the console of t with ops; log_path (NULL: none) is appended to. */
int console_session_open(struct console_session *s,
			 const struct console_ops *ops,
			 const struct drv_target *t, const char *log_path,
			 struct al_err *err);
void console_session_close(struct console_session *s);

/* Waits up to timeout_ms for the first of patterns[0..n) to appear and
 * returns its index; the text up to and including the match is consumed
 * (what came before it is in s->before). -1 on timeout, with err quoting
 * what the console said last, or when the port fails. */
int console_expect(struct console_session *s, const char *const *patterns,
		   size_t n, int timeout_ms, struct al_err *err);
/* Sends text as it is (add "\n" for a command line). */
int console_send(struct console_session *s, const char *text,
		 struct al_err *err);
/* Appends a note of airlab's own to the log ("# airlab: ..."), so the log
 * shows what was sent and why. */
void console_log_note(struct console_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
