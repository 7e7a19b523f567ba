#include "plot.h"

#include "../util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int plot_run_tool(char *const argv[], const char *log)
{
	return proc_run(argv, NULL, NULL, log);
}

int plot_gnuplot(const char *out, const char *script, const char *png,
		 struct al_err *err)
{
	return plot_gnuplot_size(out, script, png, 1000, 500, err);
}

/* Writes script to a file in out and runs gnuplot on it. */
int plot_gnuplot_size(const char *out, const char *script, const char *png,
		      int width, int height, struct al_err *err)
{
	char path[4200], log[4200];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/.plot.gp", out);
	snprintf(log, sizeof(log), "%s/report.log", out);
	if (!(f = fopen(path, "w")))
		return al_errf(err, "cannot write %s: %s", path,
			       strerror(errno));
	/* noenhanced: "rtt_fair" is a name, not r-t-t with a subscript */
	fprintf(f,
		"set terminal pngcairo size %d,%d font ',11' noenhanced\n"
		"set output '%s/%s'\nset grid ytics\n%s",
		width, height, out, png, script);
	fclose(f);
	rc = plot_run_tool((char *const[]){"gnuplot", path, NULL}, log);
	unlink(path);
	if (rc)
		return al_errf(err,
			       "gnuplot could not draw %s (exit %d, see "
			       "%s)",
			       png, rc, log);
	return 0;
}

void plot_printf(struct plot_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL,
			      b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t nc = (b->cap ? b->cap * 2 : 4096) + (size_t)n;
		char *ns = realloc(b->s, nc);

		if (!ns)
			return;
		b->s = ns;
		b->cap = nc;
	}
}
