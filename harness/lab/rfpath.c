/* RF paths to attenuator channels (see rfpath.h). */
#include "rfpath.h"
#include "ydoc.h"

#include <stdio.h>
#include <string.h>

#define PATHS_KEY   "paths"
#define PATH_EXTRA  "_-"
#define PATH_BLANKS " \t"

/* Keeps a message that quotes the lab file on one line; -1. */
static int one_line(struct al_err *err)
{
	if (err)
		al_one_line(err->msg);
	return -1;
}

/* The line of a's `paths` setting (the attenuator's when absent). */
static int paths_line(const struct lab_atten *a)
{
	const struct lab_param *p = lab_param_entry(&a->binding, PATHS_KEY);

	return p ? p->line : a->binding.line;
}

/* Splits a's `paths` into out[*n..]; checks names, the per-attenuator
 * limit, the total (max) and duplicates against everything in out. */
static int split_paths(const struct lab *lab, const struct lab_atten *a,
		       struct atten_path *out, int max, int *n,
		       struct al_err *err)
{
	const struct lab_param *p = lab_param_entry(&a->binding, PATHS_KEY);
	const char *s;
	int channel = 0;

	if (!p)
		return al_err_input(
		    err,
		    "%s:%d: attenuator %s: setting '" PATHS_KEY
		    "' is missing (the RF path of each channel in "
		    "channel order, e.g. '" PATHS_KEY ": path1 path2')",
		    lab->path, a->binding.line, a->name);
	for (s = p->value + strspn(p->value, PATH_BLANKS); *s;
	     s += strspn(s, PATH_BLANKS)) {
		size_t len = strcspn(s, PATH_BLANKS);
		char name[LAB_NAME_MAX];
		struct atten_path *ap;

		if (len < sizeof(name)) {
			memcpy(name, s, len);
			name[len] = 0;
		}
		if (len >= sizeof(name) ||
		    !ydoc_name_ok(name, LAB_NAME_MAX - 1, PATH_EXTRA, 0)) {
			al_err_input(
			    err,
			    "%s:%d: attenuator %s: path '%.*s' must be "
			    "1..%d characters of [A-Za-z0-9_-]%s",
			    lab->path, p->line, a->name,
			    (int)(len > 80 ? 80 : len), s, LAB_NAME_MAX - 1,
			    memchr(s, ',', len) ? " (separate paths with "
						  "blanks)"
						: "");
			return one_line(err);
		}
		s += len;
		if (++channel > ATTEN_MAX_CHANNELS)
			return al_err_input(
			    err,
			    "%s:%d: attenuator %s: more than %d "
			    "paths",
			    lab->path, p->line, a->name, ATTEN_MAX_CHANNELS);
		for (int i = 0; i < *n; i++) {
			if (strcmp(out[i].path, name) != 0)
				continue;
			if (out[i].atten == a)
				return al_err_input(
				    err,
				    "%s:%d: attenuator %s: path "
				    "'%s' is both channel %d and "
				    "channel %d",
				    lab->path, p->line, a->name, name,
				    out[i].channel, channel);
			return al_err_input(
			    err,
			    "%s:%d: attenuator %s: path '%s' is "
			    "already channel %d of attenuator %s "
			    "(line %d); a path runs through one "
			    "channel",
			    lab->path, p->line, a->name, name, out[i].channel,
			    out[i].atten->name, paths_line(out[i].atten));
		}
		if (*n >= max)
			return al_err_input(
			    err,
			    "%s:%d: attenuator %s: more than %d "
			    "paths in the lab",
			    lab->path, p->line, a->name, max);
		ap = &out[(*n)++];
		ap->atten = a;
		ap->channel = channel;
		memcpy(ap->path, name, len + 1);
	}
	if (!channel)
		return al_err_input(
		    err, "%s:%d: attenuator %s: '" PATHS_KEY "' names no path",
		    lab->path, p->line, a->name);
	return 0;
}

int atten_paths_list(const struct lab *lab, struct atten_path *out, int max,
		     struct al_err *err)
{
	int n = 0;

	for (int i = 0; i < lab->nattens; i++)
		if (split_paths(lab, &lab->attens[i], out, max, &n, err) < 0)
			return -1;
	return n;
}

int atten_paths_check(const struct lab *lab, struct al_err *err)
{
	struct atten_path all[ATTEN_MAX_PATHS];

	return atten_paths_list(lab, all, ATTEN_MAX_PATHS, err) < 0 ? -1 : 0;
}

int atten_path_find(const struct lab *lab, const char *path,
		    const struct lab_atten **a, int *channel,
		    struct al_err *err)
{
	struct atten_path all[ATTEN_MAX_PATHS];
	char known[512] = "";
	size_t len = 0;
	int n = atten_paths_list(lab, all, ATTEN_MAX_PATHS, err);

	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (path && !strcmp(all[i].path, path)) {
			*a = all[i].atten;
			*channel = all[i].channel;
			return 0;
		}
		len += snprintf(known + len, sizeof(known) - len, "%s%s",
				len ? ", " : "", all[i].path);
		if (len >= sizeof(known))
			len = sizeof(known) - 1;
	}
	al_err_input(err, "%s: no attenuator has RF path '%.80s' (%s%s)",
		     lab->path, path ? path : "",
		     n ? "known: " : "the lab file names none", known);
	return one_line(err);
}

int atten_channel_path(const struct lab *lab, const struct lab_atten *a,
		       int channel, char *out, size_t len, struct al_err *err)
{
	struct atten_path mine[ATTEN_MAX_CHANNELS];
	int n = 0;

	if (split_paths(lab, a, mine, ATTEN_MAX_CHANNELS, &n, err) < 0)
		return -1;
	if (channel < 1 || channel > n)
		return al_errf(err,
			       "attenuator %s has no channel %d (channels "
			       "1..%d: %s .. %s)",
			       a->name, channel, n, mine[0].path,
			       mine[n - 1].path);
	if (strlen(mine[channel - 1].path) >= len)
		return al_errf(err, "attenuator %s: path name too long",
			       a->name);
	memcpy(out, mine[channel - 1].path, strlen(mine[channel - 1].path) + 1);
	return 0;
}

const struct lab_atten *atten_of_binding(const struct lab *lab,
					 const struct lab_binding *b)
{
	if (!lab || !b)
		return NULL;
	for (int i = 0; i < lab->nattens; i++)
		if (&lab->attens[i].binding == b)
			return &lab->attens[i];
	return NULL;
}

const struct lab_atten *atten_find_driver(const struct lab *lab,
					  const char *driver)
{
	for (int i = 0; i < lab->nattens; i++)
		if (!strcmp(lab->attens[i].binding.driver, driver))
			return &lab->attens[i];
	return NULL;
}
