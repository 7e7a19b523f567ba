/* Small file-system helpers shared by drivers and the store. */
#ifndef AIRLAB_UTIL_PATH_H
#define AIRLAB_UTIL_PATH_H

#include <stddef.h>

/* mkdir -p with mode 0755; -1 with errno (ENAMETOOLONG for a path longer
 * than PATH_MAX). */
int path_mkdirs(const char *path);

/* Creates parent (when absent) and a new directory parent/base in it, or
 * parent/base-N when that exists (a result is never written over); id is
 * its name. -1 with errno set. */
int path_mkdir_unique(const char *parent, const char *base, char *id,
		      size_t idlen, char *path, size_t plen);

/* to as seen from directory from ("../../run1/run.json"), both resolved;
 * to itself when either does not resolve. */
void path_relative(const char *from, const char *to, char *buf, size_t len);

/* Now in UTC as 20261204T031500Z: run ids and report directories start
 * with it, so they sort by time. */
void path_utc_stamp(char *buf, size_t len);

/* The running binary's path (/proc/self/exe) and the directory it is
 * in (build/ in the tree): airlab finds its tree, suites and agent from
 * there. -1 with errno when it cannot be read or is longer than len. */
int path_self_exe(char *out, size_t len);
int path_self_dir(char *out, size_t len);

#endif
