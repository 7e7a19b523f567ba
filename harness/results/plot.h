/* What the report pages share: running a plotting tool, gnuplot scripts
 * built in a growing string. */
#ifndef AIRLAB_RESULTS_PLOT_H
#define AIRLAB_RESULTS_PLOT_H

#include <stddef.h>

#include "../util/err.h"

/* Runs argv with stdout and stderr appended to log; its exit status, or
 * -1 when it could not be started. */
int plot_run_tool(char *const argv[], const char *log);

/* Writes script (after a 1000x500 PNG terminal writing out/png; text is
 * never "enhanced": an underscore stays one) to a file in out and runs
 * gnuplot on it; its output goes to out/report.log. */
int plot_gnuplot(const char *out, const char *script, const char *png,
		 struct al_err *err);
/* The same at width x height pixels. */
int plot_gnuplot_size(const char *out, const char *script, const char *png,
		      int width, int height, struct al_err *err);

/* A growing string; s is NULL until the first plot_printf. */
struct plot_buf {
	char *s;
	size_t len, cap;
};
void plot_printf(struct plot_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
