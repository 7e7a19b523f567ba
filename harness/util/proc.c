#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
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

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Both captures: stdout (and stderr with merge) into out; timeout_ms < 0
 * waits for ever, else the child's own process group is killed then. */
static int capture(char *const argv[], const char *cwd, char *out, size_t len,
		   int merge, int timeout_ms, int *timed_out)
{
	double end = mono_ms() + timeout_ms;
	size_t n = 0;
	int p[2], st;
	pid_t pid;

	*timed_out = 0;
	if (len)
		out[0] = 0;
	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		/* Its own group: a timeout kills what it started too. */
		if (timeout_ms >= 0)
			setpgid(0, 0);
		close(p[0]);
		child(argv, cwd, NULL, p[1], merge ? p[1] : -1);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	if (timeout_ms >= 0)
		setpgid(pid, pid);
	for (;;) {
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		int left = timeout_ms < 0 ? -1 : (int)(end - mono_ms()), r;
		char buf[512];
		ssize_t got;

		if (timeout_ms >= 0 && left <= 0) {
			*timed_out = 1;
			kill(-pid, SIGKILL);
			break;
		}
		r = poll(&pf, 1, left);
		if (r <= 0)
			continue;
		got = read(p[0], buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got && n + 1 < len; i++)
			out[n++] = buf[i];
	}
	close(p[0]);
	if (len)
		out[n] = 0;
	while (n > 0 && out[n - 1] == '\n')
		out[--n] = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int proc_capture(char *const argv[], const char *cwd, char *out, size_t len)
{
	int timed_out;

	return capture(argv, cwd, out, len, 0, -1, &timed_out);
}

int proc_capture_timeout(char *const argv[], char *out, size_t len,
			 int timeout_ms, int *timed_out)
{
	return capture(argv, NULL, out, len, 1, timeout_ms, timed_out);
}

void proc_git_commit(const char *root, char *out, size_t len)
{
	char *head[] = {"git", "-C", (char *)root, "rev-parse", "HEAD", NULL};
	char *diff[] = {"git",	   "-C",   (char *)root, "diff",
			"--quiet", "HEAD", NULL};
	char sha[256];
	int timed_out;

	snprintf(out, len, "unknown");
	if (proc_capture_timeout(head, sha, sizeof(sha), 10000, &timed_out) !=
		0 ||
	    strspn(sha, "0123456789abcdef") < 40)
		return;
	sha[40] = 0;
	snprintf(out, len, "%s%s", sha,
		 proc_run(diff, NULL, NULL, "/dev/null") != 0 ? "-dirty" : "");
}
