#include "lock.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_HELD 64

static struct held {
	char path[PATH_MAX];
	int fd, refs;
	pid_t pid; /* a forked child does not hold its parent's locks */
} held[MAX_HELD];

static int lock_path(const char *state_dir, const char *what, char *out,
		     size_t len, struct al_err *err)
{
	for (const char *p = what; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_.-", *p)))
			return al_errf(err, "lock name '%s' has a '%c'", what,
				       *p);
	if ((size_t)snprintf(out, len, "%s/locks/%s.lock", state_dir, what) >=
	    len)
		return al_errf(err, "%s: state dir path too long", state_dir);
	return 0;
}

/* "pid=N host=H since=T cmd=C" of the holder, for the error. */
static void read_owner(int fd, char *out, size_t len)
{
	ssize_t n = pread(fd, out, len - 1, 0);

	out[n > 0 ? n : 0] = 0;
	out[strcspn(out, "\n")] = 0;
}

static void own_cmdline(char *out, size_t len)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(out, len, "?");
		return;
	}
	out[n] = 0;
	for (ssize_t i = 0; i < n - 1; i++)
		if (out[i] == 0 || out[i] == '\n')
			out[i] = ' ';
}

static void write_owner(int fd)
{
	char host[256] = "?", cmd[512], line[1024], since[32];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	gethostname(host, sizeof(host) - 1);
	own_cmdline(cmd, sizeof(cmd));
	gmtime_r(&now, &tm);
	strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = snprintf(line, sizeof(line), "pid=%ld host=%s since=%s cmd=%s\n",
		     (long)getpid(), host, since, cmd);
	if (ftruncate(fd, 0) == 0 && n > 0)
		(void)!pwrite(fd, line, (size_t)n, 0);
}

int lock_take(const char *state_dir, const char *what, const char *what_human,
	      struct al_err *err)
{
	char path[PATH_MAX], dir[PATH_MAX], owner[1024];
	struct held *free_slot = NULL;
	int fd;

	if (lock_path(state_dir, what, path, sizeof(path), err) < 0)
		return -1;
	for (int i = 0; i < MAX_HELD; i++) {
		if (held[i].refs && held[i].pid == getpid() &&
		    !strcmp(held[i].path, path)) {
			held[i].refs++;
			return 0;
		}
		if ((!held[i].refs || held[i].pid != getpid()) && !free_slot)
			free_slot = &held[i];
	}
	if (!free_slot)
		return al_errf(err, "%s: more than %d devices locked at once",
			       what_human, MAX_HELD);
	snprintf(dir, sizeof(dir), "%s/locks", state_dir);
	if (path_mkdirs(dir) < 0)
		return al_errf(err, "%s: cannot create %s: %s", what_human, dir,
			       strerror(errno));
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return al_errf(err, "%s: cannot open lock %s: %s", what_human,
			       path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		read_owner(fd, owner, sizeof(owner));
		close(fd);
		if (e == EWOULDBLOCK)
			return al_errf(err,
				       "%s is in use by another airlab (%s); "
				       "lock %s",
				       what_human,
				       owner[0] ? owner : "no owner written",
				       path);
		return al_errf(err, "%s: cannot lock %s: %s", what_human, path,
			       strerror(e));
	}
	/* Ours now. A holder is written there only while it holds the lock
	 * (giving it back empties the file): one that is still written there
	 * died holding it. */
	read_owner(fd, owner, sizeof(owner));
	if (owner[0])
		fprintf(stderr, "%s: taking over a stale lock (%s, gone); %s\n",
			what_human, owner, path);
	write_owner(fd);
	snprintf(free_slot->path, sizeof(free_slot->path), "%s", path);
	free_slot->fd = fd;
	free_slot->refs = 1;
	free_slot->pid = getpid();
	return 0;
}

void lock_give(const char *state_dir, const char *what)
{
	char path[PATH_MAX];

	if (lock_path(state_dir, what, path, sizeof(path), NULL) < 0)
		return;
	for (int i = 0; i < MAX_HELD; i++)
		if (held[i].refs && held[i].pid == getpid() &&
		    !strcmp(held[i].path, path)) {
			if (--held[i].refs == 0) {
				/* An empty file: nobody holds it. */
				if (ftruncate(held[i].fd, 0) < 0)
					held[i].refs = 0;
				close(held[i].fd);
			}
			return;
		}
}
