#include "expect.h"
#include "../../util/clock.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#define READ_SLICE_MS 200
#define TAIL_QUOTE    120

static void log_stamp(struct console_session *s)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(s->log, "%s.%03ldZ ", when, ts.tv_nsec / 1000000);
}

/* Every line gets the time its first byte arrived; CRs are dropped so the
 * log reads the same whatever line ending the DUT uses. */
static void log_bytes(struct console_session *s, const char *p, size_t n)
{
	if (!s->log)
		return;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\r')
			continue;
		if (!s->log_midline)
			log_stamp(s);
		fputc(p[i], s->log);
		s->log_midline = p[i] != '\n';
	}
	fflush(s->log);
}

void console_log_note(struct console_session *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->log)
		return;
	if (s->log_midline)
		fputc('\n', s->log);
	log_stamp(s);
	fputs("# airlab: ", s->log);
	va_start(ap, fmt);
	vfprintf(s->log, fmt, ap);
	va_end(ap);
	fputc('\n', s->log);
	s->log_midline = false;
	fflush(s->log);
}

int console_session_open(struct console_session *s,
			 const struct console_ops *ops,
			 const struct drv_target *t, const char *log_path,
			 struct al_err *err)
{
	const char *port = lab_param(t->binding, "port");
	char expanded[200];

	memset(s, 0, sizeof(*s));
	s->ops = ops;
	/* Errors name the port as it is on this machine, not "{state}/...". */
	if (port && lab_expand(t->lab, t->host, port, expanded,
			       sizeof(expanded), NULL) == 0)
		port = expanded;
	snprintf(s->who, sizeof(s->who), "%s console %.180s", t->host->name,
		 port ? port : ops->name);
	if (log_path && !(s->log = fopen(log_path, "ae")))
		return al_errf(err, "%s: console log %s: %s", s->who, log_path,
			       strerror(errno));
	if (ops->open(&s->dev, t, err) < 0) {
		if (s->log)
			fclose(s->log);
		s->log = NULL;
		s->dev = NULL;
		return al_err_prefix(err, "%s console", t->host->name);
	}
	return 0;
}

void console_session_close(struct console_session *s)
{
	if (s->log_midline && s->log)
		fputc('\n', s->log);
	if (s->log)
		fclose(s->log);
	s->log = NULL;
	if (s->dev)
		s->ops->close(s->dev);
	s->dev = NULL;
}

/* The last line or so the console showed, printable, for a timeout error. */
static const char *tail_quote(const struct console_session *s, char *out,
			      size_t len)
{
	size_t start = s->have > TAIL_QUOTE ? s->have - TAIL_QUOTE : 0, o = 0;

	while (start < s->have &&
	       (s->window[start] == '\n' || s->window[start] == '\r' ||
		s->window[start] == ' '))
		start++;
	for (size_t i = start; i < s->have && o + 1 < len; i++) {
		unsigned char c = (unsigned char)s->window[i];

		if (c == '\r') /* CRLF or LF: one line break, one '|' */
			continue;
		out[o++] = c == '\n'		  ? '|'
			   : c < 0x20 || c > 0x7e ? '.'
						  : (char)c;
	}
	out[o] = 0;
	return out;
}

/* The earliest match of any pattern; -1 when none is in the window. */
static int find_first(const struct console_session *s,
		      const char *const *patterns, size_t n, size_t *at,
		      size_t *end)
{
	int best = -1;

	for (size_t i = 0; i < n; i++) {
		const char *m = strstr(s->window, patterns[i]);

		if (m && (best < 0 || (size_t)(m - s->window) < *at)) {
			best = (int)i;
			*at = (size_t)(m - s->window);
			*end = *at + strlen(patterns[i]);
		}
	}
	return best;
}

int console_expect(struct console_session *s, const char *const *patterns,
		   size_t n, int timeout_ms, struct al_err *err)
{
	long long deadline = mono_ms() + timeout_ms;
	size_t longest = 1;

	for (size_t i = 0; i < n; i++)
		if (strlen(patterns[i]) > longest)
			longest = strlen(patterns[i]);
	for (;;) {
		size_t at = 0, end = 0;
		int hit;
		long long left;
		ssize_t got;

		s->window[s->have] = 0;
		hit = find_first(s, patterns, n, &at, &end);
		if (hit >= 0) {
			memcpy(s->before, s->window, at);
			s->before[at] = 0;
			memmove(s->window, s->window + end, s->have - end);
			s->have -= end;
			s->window[s->have] = 0;
			return hit;
		}
		left = deadline - mono_ms();
		if (left <= 0) {
			char seen[TAIL_QUOTE + 1];

			return al_errf(err,
				       "%s: no '%s'%s within %d ms; it said "
				       "last: '%s'",
				       s->who, patterns[0],
				       n > 1 ? " (or the other answers "
					       "expected)"
					     : "",
				       timeout_ms,
				       tail_quote(s, seen, sizeof(seen)));
		}
		/* Room for the next read: keep what a split pattern needs. */
		if (s->have > sizeof(s->window) / 2) {
			size_t keep = longest < s->have ? longest : s->have;

			memmove(s->window, s->window + s->have - keep, keep);
			s->have = keep;
		}
		got = s->ops->read(
		    s->dev, s->window + s->have,
		    sizeof(s->window) - 1 - s->have,
		    left < READ_SLICE_MS ? (int)left : READ_SLICE_MS, err);
		if (got < 0)
			return al_err_prefix(err, "%s", s->who);
		log_bytes(s, s->window + s->have, (size_t)got);
		/* NUL bytes (line noise, a UART at power-up) would hide what
		 * follows them from strstr. */
		for (size_t i = s->have; i < s->have + (size_t)got; i++)
			if (!s->window[i])
				s->window[i] = ' ';
		s->have += (size_t)got;
	}
}

int console_send(struct console_session *s, const char *text,
		 struct al_err *err)
{
	if (s->ops->write(s->dev, text, strlen(text), err) < 0)
		return al_err_prefix(err, "%s", s->who);
	return 0;
}
