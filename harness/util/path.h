/* Small file-system helpers shared by drivers and the store. */
#ifndef AIRLAB_UTIL_PATH_H
#define AIRLAB_UTIL_PATH_H

/* mkdir -p with mode 0755; -1 with errno (ENAMETOOLONG for a path longer
 * than PATH_MAX). */
int path_mkdirs(const char *path);

#endif
