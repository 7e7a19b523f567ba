#include "relay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Settings of the DUT's that live on its power binding (cell/dut.c). */
static const char *const dut_keys[] = {"boot_timeout_s", "ready_marker"};

int relay_known(const struct drv_target *t, const char *driver,
		const char *const *known, size_t n, struct al_err *err)
{
	const char *all[LAB_MAX_PARAMS];
	char list[512] = "";
	size_t m = 0, len = 0;

	for (size_t i = 0; i < n && m < LAB_MAX_PARAMS - 2; i++)
		all[m++] = known[i];
	all[m++] = dut_keys[0];
	all[m++] = dut_keys[1];
	const struct lab_param *u = lab_unknown_param(t->binding, all, m);

	if (!u)
		return 0;
	for (size_t i = 0; i < m && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i ? ", " : "", all[i]);
	return al_errf(err,
		       "%s:%d: %s power (%s): unknown setting '%s' "
		       "(known: %s)",
		       t->lab->path, u->line, t->host->name, driver, u->key,
		       list);
}

int relay_int(const struct drv_target *t, const char *driver, const char *key,
	      long def, long min, long max, long *out, struct al_err *err)
{
	const struct lab_param *p = lab_param_entry(t->binding, key);
	char *end;
	long v;

	*out = def;
	if (!p)
		return 0;
	errno = 0;
	v = strtol(p->value, &end, 0);
	if (end == p->value || *end || errno || v < min || v > max)
		return al_errf(err,
			       "%s:%d: %s power (%s): %s '%.40s' is not a "
			       "whole number from %ld to %ld",
			       t->lab->path, p->line, t->host->name, driver,
			       key, p->value, min, max);
	*out = v;
	return 0;
}

int relay_bool(const struct drv_target *t, const char *driver, const char *key,
	       int def, int *out, struct al_err *err)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};
	const struct lab_param *p = lab_param_entry(t->binding, key);

	*out = def;
	if (!p)
		return 0;
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(p->value, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(p->value, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return al_errf(err,
		       "%s:%d: %s power (%s): %s '%.40s' is neither true nor "
		       "false",
		       t->lab->path, p->line, t->host->name, driver, key,
		       p->value);
}
