/* airlab console HOST [--log FILE] [--timeout S]: bridges the terminal to
 * the host's serial console. Ctrl-] leaves. Without a terminal on stdin it
 * only copies what the console says to stdout (and the log). */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define ESCAPE_CHAR 0x1d /* Ctrl-] */

static int pump(struct dut *d, struct console_dev *c, int log_fd, int timeout_s,
		bool interactive, struct al_err *err)
{
	time_t end = timeout_s > 0 ? time(NULL) + timeout_s : 0;
	char buf[4096];

	int cfd = d->console->fd(c);

	if (cfd < 0)
		return al_errf(err,
			       "%s: console driver %s gives no pollable fd",
			       d->host->name, d->console->name);
	for (;;) {
		struct pollfd pf[2] = {{cfd, POLLIN, 0},
				       {STDIN_FILENO, POLLIN, 0}};
		ssize_t n = 0;

		if (end && time(NULL) >= end)
			return 0;
		if (poll(pf, interactive ? 2 : 1, 200) < 0 && errno != EINTR)
			return al_errf(err, "poll: %s", strerror(errno));
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR))
			n = d->console->read(c, buf, sizeof(buf), 0, err);
		if (n < 0)
			return -1;
		if (n == 0 && (pf[0].revents & (POLLHUP | POLLERR)))
			return al_errf(err,
				       "%s: console hung up (powered off?)",
				       d->host->name);
		if (n > 0) {
			if (write(STDOUT_FILENO, buf, (size_t)n) < 0)
				return 0; /* stdout closed: we are done */
			if (log_fd >= 0 && write(log_fd, buf, (size_t)n) < 0)
				return al_errf(err, "console log: %s",
					       strerror(errno));
		}
		if (interactive && (pf[1].revents & (POLLIN | POLLHUP))) {
			n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n <= 0)
				return 0;
			char *esc = memchr(buf, ESCAPE_CHAR, (size_t)n);
			if (esc)
				n = esc - buf;
			if (n > 0 &&
			    d->console->write(c, buf, (size_t)n, err) < 0)
				return -1;
			if (esc)
				return 0;
		}
	}
}

int cmd_console(int argc, char **argv, struct cli_opts *o)
{
	const char *host = NULL, *log_path = NULL, *timeout = NULL;
	const struct cli_flag flags[] = {
	    {"--log", &log_path, NULL,
	     "FILE\talso append what the console says to FILE"},
	    {"--timeout", &timeout, NULL,
	     "S\tleave after S seconds (default 0: until Ctrl-])"},
	    {NULL, NULL, NULL, NULL}};
	int timeout_s = 0, log_fd = -1;
	int rc = cli_parse("console", argc, argv, o, flags, &host, 1);
	struct lab lab;
	struct dut d;
	struct al_err err;
	struct console_dev *c = NULL;
	struct termios saved;
	bool raw = false, interactive;

	if (rc >= 0)
		return rc;
	rc = AL_EXIT_LAB;
	if (timeout &&
	    cli_seconds_arg("console", "--timeout", timeout, 0, &timeout_s) < 0)
		return AL_EXIT_USAGE;
	if (!host) {
		return cli_usage_error("console", "which host?");
	}
	if (lab_load(&lab, o->lab, &err) < 0)
		return cli_fail_usage(&err);
	if (cli_host_arg("console", &lab, host) < 0) {
		lab_free(&lab);
		return AL_EXIT_USAGE;
	}
	if ((rc = cli_dut_observe(&d, &lab, host)) != AL_EXIT_OK)
		goto out_lab;
	rc = AL_EXIT_LAB;
	if (!d.console) {
		fprintf(stderr, "airlab: %s has no console in %s\n", host,
			lab.path);
		rc = AL_EXIT_USAGE;
		goto out;
	}
	if (log_path && (log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND,
				       0644)) < 0) {
		fprintf(stderr, "airlab: console log %s: %s\n", log_path,
			strerror(errno));
		goto out;
	}
	if (d.console->open(&c, &d.console_t, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	interactive = isatty(STDIN_FILENO);
	if (interactive && tcgetattr(STDIN_FILENO, &saved) == 0) {
		struct termios t = saved;
		cfmakeraw(&t);
		raw = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
		fprintf(stderr, "airlab: console of %s; Ctrl-] leaves\r\n",
			host);
	}
	rc = pump(&d, c, log_fd, timeout_s, interactive, &err) < 0 ? AL_EXIT_LAB
								   : AL_EXIT_OK;
	if (raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	if (rc)
		rc = cli_fail(&err);
	d.console->close(c);
out:
	if (log_fd >= 0)
		close(log_fd);
	dut_close(&d);
out_lab:
	lab_free(&lab);
	return rc;
}
