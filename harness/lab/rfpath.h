/* RF paths and the attenuator channels they run through. Every attenuator
 * of a lab file names its channels with one generic setting, whatever its
 * driver:
 *
 *   attenuators:
 *     NAME:
 *       driver: ...
 *       paths: path1 path2 path3   # channel N (1-based) is the Nth path
 *
 * Path names are of [A-Za-z0-9_-] and unique across all attenuators, so a
 * path (the topology's station `path:`) finds one channel of one box. */
#ifndef AIRLAB_LAB_RFPATH_H
#define AIRLAB_LAB_RFPATH_H

#include <stddef.h>

#include "lab.h"

/* Channels per attenuator and paths per lab. */
#define ATTEN_MAX_CHANNELS 64
#define ATTEN_MAX_PATHS	   256

/* One channel of one attenuator. */
struct atten_path {
	const struct lab_atten *atten;
	int channel; /* 1-based */
	char path[LAB_NAME_MAX];
};

/* Checks the `paths` setting of every attenuator: present, names of
 * [A-Za-z0-9_-], at most ATTEN_MAX_CHANNELS each, no name twice in the
 * lab. Errors are "labfile:line: attenuator NAME: ...". */
int atten_paths_check(const struct lab *lab, struct al_err *err);

/* Fills out with every (attenuator, channel, path), in lab-file order;
 * returns how many, or -1 (a bad `paths`, or more than max). */
int atten_paths_list(const struct lab *lab, struct atten_path *out, int max,
		     struct al_err *err);

/* The attenuator and channel of an RF path; an unknown path is an error
 * that lists the known ones. */
int atten_path_find(const struct lab *lab, const char *path,
		    const struct lab_atten **a, int *channel,
		    struct al_err *err);

/* The path of channel (1-based) of attenuator a, for drivers that speak of
 * paths; out of range is an error naming the attenuator's channels. */
int atten_channel_path(const struct lab *lab, const struct lab_atten *a,
		       int channel, char *out, size_t len, struct al_err *err);

/* The attenuator whose driver binding is b (drivers get the binding). */
const struct lab_atten *atten_of_binding(const struct lab *lab,
					 const struct lab_binding *b);

/* The lab's first attenuator whose driver is `driver`, or NULL. */
const struct lab_atten *atten_find_driver(const struct lab *lab,
					  const char *driver);

#endif
