/* airlab shell HOST [--stdin] -- CMD...: runs CMD on the host over its
 * shell driver; the exit status is the remote command's. */
#include "cli.h"
#include "../util/shquote.h"

#include <stdlib.h>
#include <unistd.h>

/* Joins argv into one sh command line, quoting each word. */
static char *join_quoted(int argc, char **argv)
{
	size_t len = 1, off = 0;
	char *s;

	for (int i = 0; i < argc; i++)
		len += sh_quoted_len(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			s[off++] = ' ';
		sh_quote(s, len, &off, argv[i]); /* fits: len counted it */
	}
	return s;
}

static char *read_all(int fd, size_t *len)
{
	size_t cap = 65536;
	char *buf = malloc(cap);
	ssize_t n;

	*len = 0;
	while (buf && (n = read(fd, buf + *len, cap - *len)) > 0) {
		*len += (size_t)n;
		if (*len == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	return buf;
}

int cmd_shell(int argc, char **argv, struct cli_opts *o)
{
	const char *host = NULL;
	bool with_stdin = false;
	const struct cli_flag flags[] = {{"--stdin", NULL, &with_stdin,
					  "pass airlab's stdin to the command"},
					 {NULL, NULL, NULL, NULL}};
	int i, status = 255, rc;
	struct lab lab;
	struct dut d;
	struct al_err err;
	char *cmd, *in = NULL;
	size_t inlen = 0;

	/* The command starts after "--", or without it at the first word
	 * past HOST that is not an option. */
	rc = cli_parse_rest("shell", argc, argv, o, flags, &host, 1, &i);
	if (rc >= 0)
		return rc;
	rc = 255;
	if (!host || i >= argc) {
		return cli_usage_error("shell", "which host and command?");
	}
	cmd = join_quoted(argc - i, argv + i);
	if (with_stdin && !(in = read_all(STDIN_FILENO, &inlen))) {
		fprintf(stderr, "airlab shell: cannot read stdin\n");
		free(cmd);
		return AL_EXIT_USAGE;
	}
	if (lab_load(&lab, o->lab, &err) < 0) {
		cli_fail(&err);
		goto out_cmd;
	}
	if (cli_dut_observe(&d, &lab, host) != AL_EXIT_OK)
		goto out_lab;
	if (dut_run(&d, cmd, in, inlen, STDOUT_FILENO, STDERR_FILENO, &status,
		    10, &err) < 0)
		cli_fail(&err);
	else
		rc = status;
	dut_close(&d);
out_lab:
	lab_free(&lab);
out_cmd:
	free(cmd);
	free(in);
	return rc;
}
