#include "path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

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
