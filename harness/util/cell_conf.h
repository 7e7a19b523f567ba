/* The DUT's cell configuration, /etc/airlab/cell.conf: shell-sourceable
 * KEY='VALUE' assignments written by the harness at flash time (the init
 * sources the same file), read by the guest helper and by the medium
 * daemon. libc only: both build it outside libairlab. */
#ifndef AIRLAB_UTIL_CELL_CONF_H
#define AIRLAB_UTIL_CELL_CONF_H

#include <stddef.h>

#define CELL_MAX_STATIONS   128
#define CELL_CONF_VALUE_MAX 1024 /* bytes of a value, with its NUL */
#define CELL_NAME_MAX	    16 /* station names are netns names: 1..15 chars */

struct cell_station {
	char name[CELL_NAME_MAX];
};

struct cell_conf {
	char variant[64];
	char ssid[33];
	int channel;
	int nsta;
	struct cell_station sta[CELL_MAX_STATIONS];
};

/* Parses path. Returns 0, or -1 with "path:line: message" in err. */
int cell_conf_load(struct cell_conf *c, const char *path, char *err,
		   size_t errlen);

/* Whether n is a station name cell.conf takes (a netns name: 1..15 of
 * [a-z0-9_-]). */
int cell_conf_name_ok(const char *n);

/* The cell_conf_parse callback cell_conf_load uses: KEY=value into the
 * struct cell_conf ctx. */
int cell_conf_set(void *ctx, const char *key, const char *value, char *err,
		  size_t errlen);

/* Parses shell assignments in text; calls set(key, value) for each.
 * Supports '...', "..." (with \ escapes), bare words, several assignments
 * per line and # comments. Returns 0, or -1 with "line N: message". */
int cell_conf_parse(const char *text,
		    int (*set)(void *ctx, const char *key, const char *value,
			       char *err, size_t errlen),
		    void *ctx, char *err, size_t errlen);

#endif
