/* Driver settings read through each driver's table (driver.h): a key the
 * driver does not know is a typo in the lab file, refused with its
 * file:line and the keys that would have been understood; a value is
 * read once, here, so every driver words a wrong one alike. */
#include "driver.h"
#include "../lab/rfpath.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct drv_choice drv_on_off[] = {{"on", 1}, {"off", 0}, {0}};

/* Read by cell/atten.c on every attenuator's binding. */
static const struct drv_setting atten_paths[] = {{.name = "paths"}, {0}};

/* Keys of t's binding that the layer above its driver reads. */
static const struct drv_setting *shared_settings(const struct drv_target *t)
{
	if (t->host && t->binding == &t->host->power)
		return power_dut_settings;
	if (!t->host && atten_of_binding(t->lab, t->binding))
		return atten_paths;
	return NULL;
}

static const struct drv_setting *find(const struct drv_setting *table,
				      const char *key)
{
	for (; table && table->name; table++)
		if (strcmp(key, table->name) == 0)
			return table;
	return NULL;
}

static void append_names(char *buf, size_t len, const struct drv_setting *table)
{
	for (; table && table->name; table++) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			 table->name);
	}
}

/* "dut1 power", "attenuator bench": which binding of the lab t is. */
static void binding_name(const struct drv_target *t, char *buf, size_t len)
{
	const struct lab_host *h = t->host;
	const struct lab_atten *a;

	if (h) {
		const char *kind = t->binding == &h->power     ? "power"
				   : t->binding == &h->flash   ? "flash"
				   : t->binding == &h->console ? "console"
				   : t->binding == &h->ap      ? "ap"
							       : "shell";
		snprintf(buf, len, "%s %s", h->name, kind);
	} else if ((a = atten_of_binding(t->lab, t->binding))) {
		snprintf(buf, len, "attenuator %s", a->name);
	} else {
		snprintf(buf, len, "%s", t->binding->driver);
	}
}

/* "FILE:LINE: dut1 power (driver X): " and the rest, as bad input on one
 * line; -1. */
__attribute__((format(printf, 4, 5))) static int
setting_err(const struct drv_target *t, int line, struct al_err *err,
	    const char *fmt, ...)
{
	char who[LAB_NAME_MAX * 2 + 16], msg[AL_ERR_MAX];
	va_list ap;

	binding_name(t, who, sizeof(who));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	al_err_input(err, "%s:%d: %s (driver %s): %s", t->lab->path, line, who,
		     t->binding->driver, msg);
	if (err)
		al_one_line(err->msg);
	return -1;
}

/* Says why in why; -1. */
__attribute__((format(printf, 3, 4))) static int refuse(char *why, size_t len,
							const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_int(const struct drv_setting *s, const char *v, int *out,
		     char *why, size_t wlen)
{
	int base = v[0] == '0' && (v[1] == 'x' || v[1] == 'X') ? 16 : 10;
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, base);
	if (errno || end == v || *end || n < s->min || n > s->max)
		return refuse(why, wlen,
			      "'%.80s' is not a whole number from %.0f to %.0f",
			      v, s->min, s->max);
	*out = (int)n;
	return 0;
}

static int parse_double(const struct drv_setting *s, const char *v, double *out,
			char *why, size_t wlen)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < s->min ||
	    d > s->max)
		return refuse(why, wlen,
			      "'%.80s' is not a number from %g to %g", v,
			      s->min, s->max);
	*out = d;
	return 0;
}

static int parse_bool(const char *v, bool *out, char *why, size_t wlen)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(v, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*out = false;
			return 0;
		}
	}
	return refuse(why, wlen,
		      "'%.80s' is neither yes nor no (true, false, on, off, "
		      "1, 0 also do)",
		      v);
}

static int parse_choice(const struct drv_setting *s, const char *v, int *out,
			char *why, size_t wlen)
{
	char names[256] = "";

	for (const struct drv_choice *c = s->choices; c && c->name; c++) {
		size_t used = strlen(names);

		if (strcmp(v, c->name) == 0) {
			*out = c->value;
			return 0;
		}
		snprintf(names + used, sizeof(names) - used, "%s%s",
			 used ? ", " : "", c->name);
	}
	return refuse(why, wlen, "'%.80s' is not one of %s", v, names);
}

static int parse_text(const struct drv_setting *s, const char *v, char *out,
		      char *why, size_t wlen)
{
	size_t n = strlen(v), max = s->size ? s->size - 1 : 0;

	if (s->type == DRV_LINE)
		for (const char *c = v; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return refuse(why, wlen,
					      "'%.80s' is not one line", v);
	if (n > max)
		return refuse(why, wlen,
			      "'%.80s' is longer than %zu characters", v, max);
	if (out)
		memcpy(out, v, n + 1);
	return 0;
}

/* Reads v as s says into field (NULL for text when only checking); -1
 * with why ("'v' is not ..."). A path is only measured: expanding it
 * takes the lab. */
static int parse(const struct drv_setting *s, const char *v, void *field,
		 char *why, size_t wlen)
{
	switch (s->type) {
	case DRV_INT:
		return parse_int(s, v, field, why, wlen);
	case DRV_DOUBLE:
		return parse_double(s, v, field, why, wlen);
	case DRV_BOOL:
		return parse_bool(v, field, why, wlen);
	case DRV_CHOICE:
		return parse_choice(s, v, field, why, wlen);
	case DRV_TEXT:
	case DRV_LINE:
	case DRV_PATH:
		return parse_text(s, v, field, why, wlen);
	}
	return refuse(why, wlen, "has an unknown type %d", (int)s->type);
}

int drv_settings_fill(const struct drv_target *t,
		      const struct drv_setting *table, void *conf,
		      struct al_err *err)
{
	for (const struct drv_setting *s = table; s->name; s++) {
		const struct lab_param *p =
		    lab_param_entry(t->binding, s->name);
		const char *v = p && *p->value ? p->value : s->default_value;
		int line = p ? p->line : t->binding->line;
		char *field = (char *)conf + s->offset, why[400];

		if (!v && s->required) {
			snprintf(why, sizeof(why), " (%s)", s->what);
			return setting_err(t, line, err,
					   "setting %s is missing%s", s->name,
					   s->what ? why : "");
		}
		if (!v)
			continue;
		if (s->type == DRV_PATH) {
			char name[LAB_NAME_MAX * 2 + 16];

			if (lab_expand(t->lab, t->host, v, field, s->size,
				       err) == 0)
				continue;
			binding_name(t, name, sizeof(name));
			if (err)
				err->bad_input = true;
			return al_err_prefix(err, "%s:%d: %s %s", t->lab->path,
					     line, name, s->name);
		}
		if (parse(s, v, field, why, sizeof(why)) < 0)
			return setting_err(t, line, err, "%s %s", s->name, why);
	}
	return 0;
}

int drv_settings_read(const struct drv_target *t,
		      const struct drv_setting *table, void *conf,
		      struct al_err *err)
{
	const struct lab_binding *b = t->binding;
	const struct drv_setting *shared = shared_settings(t);

	for (int i = 0; i < b->nparams; i++) {
		const struct lab_param *p = &b->params[i];
		char keys[512] = "";

		if (find(table, p->key) || find(shared, p->key))
			continue;
		append_names(keys, sizeof(keys), table);
		append_names(keys, sizeof(keys), shared);
		return setting_err(t, p->line, err,
				   "unknown setting '%s' (known: %s)", p->key,
				   keys);
	}
	return drv_settings_fill(t, table, conf, err);
}

/* The size a field of s's type has; 0: any (a char array). */
static size_t type_size(enum drv_setting_type type)
{
	switch (type) {
	case DRV_INT:
	case DRV_CHOICE:
		return sizeof(int);
	case DRV_DOUBLE:
		return sizeof(double);
	case DRV_BOOL:
		return sizeof(bool);
	default:
		return 0;
	}
}

int drv_settings_table_check(const struct drv_setting *table,
			     struct al_err *err)
{
	for (const struct drv_setting *s = table; s->name; s++) {
		union {
			int i;
			double d;
			bool b;
		} scratch;
		size_t want = type_size(s->type);
		char why[400];

		if (find(s + 1, s->name))
			return al_errf(err, "setting %s: listed twice",
				       s->name);
		if (want ? s->size != want : s->size < 2)
			return al_errf(err,
				       "setting %s: a field of %zu bytes for "
				       "type %d",
				       s->name, s->size, (int)s->type);
		/* A range of one value is a forgotten .max. */
		if ((s->type == DRV_INT &&
		     (s->min < INT_MIN || s->max > INT_MAX)) ||
		    ((s->type == DRV_INT || s->type == DRV_DOUBLE) &&
		     !(s->min < s->max)))
			return al_errf(err, "setting %s: range %g to %g",
				       s->name, s->min, s->max);
		if ((s->type == DRV_CHOICE) != (s->choices != NULL))
			return al_errf(err, "setting %s: choices %s", s->name,
				       s->choices ? "without DRV_CHOICE"
						  : "missing");
		if (s->required && s->default_value)
			return al_errf(err,
				       "setting %s: required, yet with a "
				       "default",
				       s->name);
		if (s->default_value &&
		    parse(s, s->default_value, want ? &scratch : NULL, why,
			  sizeof(why)) < 0)
			return al_errf(err, "setting %s: default %s", s->name,
				       why);
	}
	return 0;
}

int drv_setting_line(const struct drv_target *t, const char *key)
{
	const struct lab_param *p = lab_param_entry(t->binding, key);

	return p ? p->line : t->binding->line;
}

int drv_setting_invalid(const struct drv_target *t, const char *key,
			const char *why, struct al_err *err)
{
	const char *v = lab_param(t->binding, key);

	return setting_err(t, drv_setting_line(t, key), err, "%s '%s' %s", key,
			   v ? v : "", why);
}
