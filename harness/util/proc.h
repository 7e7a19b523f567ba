/* Running a local tool (gnuplot, flent, git, a build command) and waiting
 * for it, without a shell in between. */
#ifndef AIRLAB_UTIL_PROC_H
#define AIRLAB_UTIL_PROC_H

#include <stddef.h>

/* Runs argv in cwd (NULL: ours) with env ("KEY=value" strings, NULL-ended;
 * NULL: none) added to our environment; stdout and stderr are appended to
 * log (NULL: ours); stdin is /dev/null. Returns its exit status, 128+N
 * when signal N ended it, -1 when it could not be started. */
int proc_run(char *const argv[], const char *cwd, const char *const *env,
	     const char *log);

/* The same with stdout captured into out (NUL-terminated, trailing
 * newlines cut; output past len-1 bytes is dropped), stderr to ours. */
int proc_capture(char *const argv[], const char *cwd, char *out, size_t len);

/* Runs argv in a process group of its own with stdout and stderr both
 * captured into out (as proc_capture); past timeout_ms the whole group is
 * killed (SIGKILL) and *timed_out set. Returns the exit status as
 * proc_run. */
int proc_capture_timeout(char *const argv[], char *out, size_t len,
			 int timeout_ms, int *timed_out);

/* The git commit the tree at root is on, with "-dirty" when it has
 * changes, or "unknown" (not a git tree, no git): what a record says
 * airlab was. */
void proc_git_commit(const char *root, char *out, size_t len);

#endif
