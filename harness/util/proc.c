#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void child(char *const argv[], const char *cwd, const char *const *env,
		  int out_fd, int err_fd)
{
	int null = open("/dev/null", O_RDONLY);

	if (null >= 0) {
		dup2(null, 0);
		close(null);
	}
	if (out_fd >= 0)
		dup2(out_fd, 1);
	if (err_fd >= 0)
		dup2(err_fd, 2);
	if (cwd && chdir(cwd) < 0) {
		fprintf(stderr, "cannot enter %s\n", cwd);
		_exit(127);
	}
	for (; env && *env; env++)
		putenv((char *)*env);
	execvp(argv[0], argv);
	fprintf(stderr, "cannot run %s\n", argv[0]);
	_exit(127);
}

static int wait_for(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int proc_run(char *const argv[], const char *cwd, const char *const *env,
	     const char *log)
{
	int fd = -1;
	pid_t pid;

	if (log && (fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			      0644)) < 0)
		return -1;
	pid = fork();
	if (pid == 0)
		child(argv, cwd, env, fd, fd);
	if (fd >= 0)
		close(fd);
	return pid < 0 ? -1 : wait_for(pid);
}

int proc_capture(char *const argv[], const char *cwd, char *out, size_t len)
{
	int p[2];
	size_t n = 0;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		child(argv, cwd, NULL, p[1], -1);
	}
	close(p[1]);
	for (;;) {
		char buf[512];
		ssize_t r = read(p[0], buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r && n + 1 < len; i++)
			out[n++] = buf[i];
	}
	close(p[0]);
	if (len)
		out[n] = 0;
	while (n > 0 && out[n - 1] == '\n')
		out[--n] = 0;
	return pid < 0 ? -1 : wait_for(pid);
}
