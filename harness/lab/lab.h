/* Lab inventory (lab/NAME.yaml): what the devices are and where they hang.
 * How to talk to them is the drivers' business (harness/drivers/); a lab
 * file only names a driver per concern plus that driver's settings. */
#ifndef AIRLAB_LAB_H
#define AIRLAB_LAB_H

#include <stdbool.h>

#include "../util/err.h"

#define LAB_NAME_MAX   64
#define LAB_MAX_HOSTS  32
#define LAB_MAX_PARAMS 32

/* One driver binding: `driver:` plus free-form scalar settings that only the
 * driver interprets. `line` is where the binding starts in the lab file so a
 * driver can report "file:line: ..." for its own settings. */
struct lab_param {
	char key[LAB_NAME_MAX];
	char *value; /* owned */
	int line;
};

struct lab_binding {
	char driver[LAB_NAME_MAX]; /* empty: concern not configured */
	struct lab_param params[LAB_MAX_PARAMS];
	int nparams;
	int line;
};

/* A host of the lab: a DUT (access point), a station host, a traffic
 * server, or one box that is all three (the virtual lab). */
struct lab_host {
	char name[LAB_NAME_MAX];
	int line;
	struct lab_binding power;
	struct lab_binding flash;
	struct lab_binding console;
	struct lab_binding shell;
	/* the cell's access point on this host (drivers/ap/) */
	struct lab_binding ap;
	/* set by lab_load: the host's state directory (QMP socket, pty
	 * link, flashed image) = <lab state_dir>/<host name> */
	char state_dir[4096];
};

struct lab_atten {
	char name[LAB_NAME_MAX];
	int line;
	struct lab_binding binding;
};

struct lab {
	char path[4096]; /* the file it came from, for error messages */
	char name[LAB_NAME_MAX];
	char state_dir[4096]; /* "~" and relative paths already resolved */
	char image_dir[4096]; /* where built DUT images live */
	struct lab_host hosts[LAB_MAX_HOSTS];
	int nhosts;
	struct lab_atten attens[LAB_MAX_HOSTS];
	int nattens;
};

/* Parses and validates a lab file. Errors are one line: "path:line: msg". */
int lab_load(struct lab *lab, const char *path, struct al_err *err);
/* The same from memory (tests, fuzzers); name stands for the path in
 * errors and relative paths resolve from its directory. */
int lab_load_buf(struct lab *lab, const char *name, const void *buf, size_t len,
		 struct al_err *err);
/* Frees the settings' values; safe on a zeroed or failed-to-load lab (a
 * failing lab_load has already freed what it allocated). */
void lab_free(struct lab *lab);

const struct lab_host *lab_host_find(const struct lab *lab, const char *name);

/* A driver setting; NULL when absent. */
const char *lab_param(const struct lab_binding *b, const char *key);
/* The same with its line in the lab file (for "file:line:" errors). */
const struct lab_param *lab_param_entry(const struct lab_binding *b,
					const char *key);
/* A whole-number setting (decimal, or 0x hex) from min to max; def when
 * absent. Errors: "file:line: WHO: key 'v' is not a whole number from
 * MIN to MAX". */
int lab_param_long(const struct lab *lab, const char *who,
		   const struct lab_binding *b, const char *key, long def,
		   long min, long max, long *out, struct al_err *err);
/* A yes/no setting (yes, no, true, false, on, off, 1, 0); def when
 * absent. */
int lab_param_bool(const struct lab *lab, const char *who,
		   const struct lab_binding *b, const char *key, bool def,
		   bool *out, struct al_err *err);
/* Expands "{state}" (host state dir) and "{images}" (lab image dir) in a
 * setting; returns 0 and writes out, or -1 when out is too small. */
int lab_expand(const struct lab *lab, const struct lab_host *host,
	       const char *in, char *out, size_t outlen, struct al_err *err);
/* The same with more placeholders: a flash driver's {variant}, {kernel}. */
struct lab_field {
	const char *name, *value;
};
int lab_expand_with(const struct lab *lab, const struct lab_host *host,
		    const struct lab_field *extra, size_t nextra,
		    const char *in, char *out, size_t outlen,
		    struct al_err *err);

#endif
