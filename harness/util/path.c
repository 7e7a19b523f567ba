#include "path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int path_mkdirs(const char *path)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int path_mkdir_unique(const char *parent, const char *base, char *id,
		      size_t idlen, char *path, size_t plen)
{
	if (mkdir(parent, 0755) < 0 && errno != EEXIST)
		return -1;
	for (int n = 1; n < 1000; n++) {
		if (n == 1)
			snprintf(id, idlen, "%s", base);
		else
			snprintf(id, idlen, "%s-%d", base, n);
		snprintf(path, plen, "%s/%s", parent, id);
		if (mkdir(path, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

void path_utc_stamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
}

void path_relative(const char *from, const char *to, char *buf, size_t len)
{
	char f[PATH_MAX], t[PATH_MAX];
	size_t common = 0, off = 0;

	if (!realpath(from, f) || !realpath(to, t)) {
		snprintf(buf, len, "%s", to);
		return;
	}
	/* the longest common prefix that ends at a '/' of both */
	for (size_t i = 0; f[i] && f[i] == t[i]; i++)
		if (f[i + 1] == '/' || f[i + 1] == 0)
			if (t[i + 1] == '/' || t[i + 1] == 0)
				common = i + 1;
	if (strcmp(f, "/") == 0)
		common = 0;
	buf[0] = 0;
	for (const char *p = f + common; *p; p++)
		if (*p == '/' && off + 4 < len)
			off += (size_t)snprintf(buf + off, len - off, "../");
	snprintf(buf + off, len - off, "%s",
		 t[common] == '/' ? t + common + 1 : t + common);
	if (!buf[0])
		snprintf(buf, len, ".");
}

int path_self_exe(char *out, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", out, len);

	if (n <= 0)
		return -1;
	if ((size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	out[n] = 0;
	return 0;
}

int path_self_dir(char *out, size_t len)
{
	char *slash;

	if (path_self_exe(out, len) < 0)
		return -1;
	slash = strrchr(out, '/');
	if (slash && slash != out)
		*slash = 0;
	return 0;
}
