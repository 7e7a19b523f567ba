#include "lab.h"
#include "ydoc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define NAME_EXTRA "_-"

static const char *const top_keys[] = {"lab",	"state_dir",   "image_dir",
				       "hosts", "attenuators", NULL};
static const char *const concern_keys[] = {"power", "flash", "console",
					   "shell", "ap",    NULL};

/* a + b + c into out (none of them may be out); -1 when it does not fit. */
static int join3(char *out, size_t len, const char *a, const char *b,
		 const char *c)
{
	int n = snprintf(out, len, "%s%s%s", a, b, c);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The directory of the lab file, absolute: relative settings hang off it. */
static int lab_dir(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	char cwd[PATH_MAX];
	char real[PATH_MAX];

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return -1;
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (realpath(dir, real))
		return join3(out, len, real, "", "");
	if (dir[0] == '/')
		return join3(out, len, dir, "", "");
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	return join3(out, len, cwd, "/", dir);
}

/* "~" / "~/x" from $HOME, absolute as is, relative from the lab's dir. */
static int resolve_dir(struct ydoc *d, const yaml_node_t *n, const char *key,
		       const char *value, char *out, size_t len,
		       struct al_err *err)
{
	char base[PATH_MAX];
	const char *home;
	int rc;

	if (value[0] == '~') {
		if (value[1] && value[1] != '/')
			return ydoc_errf(d, n, err,
					 "%s: '%s': only '~' and '~/...' are "
					 "supported, not ~user",
					 key, value);
		home = getenv("HOME");
		if (!home || home[0] != '/')
			return ydoc_errf(d, n, err,
					 "%s: '%s' needs $HOME set to an "
					 "absolute path",
					 key, value);
		rc = join3(out, len, home, value + 1, "");
	} else if (value[0] == '/') {
		rc = join3(out, len, value, "", "");
	} else {
		if (lab_dir(d->name, base, sizeof(base)) < 0)
			return ydoc_errf(d, n, err,
					 "%s: cannot find the lab file's "
					 "directory to resolve '%s'",
					 key, value);
		rc = join3(out, len, base, "/", value);
	}
	if (rc < 0)
		return ydoc_errf(d, n, err,
				 "%s: '%s' resolves to a path longer "
				 "than %zu bytes",
				 key, value, len - 1);
	return 0;
}

static int load_binding(struct ydoc *d, yaml_node_t *n, const char *what,
			int line, struct lab_binding *b, struct al_err *err)
{
	yaml_node_t *drv;
	const char *s;
	int len;

	b->line = line;
	if (ydoc_check_map(d, n, what, NULL, LAB_MAX_PARAMS + 1, "keys", err) <
	    0)
		return -1;
	drv = ydoc_get(d, n, "driver", NULL);
	if (!drv)
		return ydoc_errf_line(d, line, err, "%s: 'driver' is missing",
				      what);
	if (ydoc_get_str(d, n, "driver", what, 1, b->driver, sizeof(b->driver),
			 err) < 0)
		return -1;
	if (!ydoc_name_ok(b->driver, LAB_NAME_MAX - 1, NAME_EXTRA, 0))
		return ydoc_errf(d, drv, err,
				 "%s: driver '%s' is not a name "
				 "([A-Za-z0-9_-])",
				 what, b->driver);
	len = ydoc_map_len(n);
	for (int i = 0; i < len; i++) {
		yaml_node_t *k = ydoc_map_key(d, n, i);
		yaml_node_t *v = ydoc_map_value(d, n, i);
		const char *key = ydoc_scalar(k);
		struct lab_param *p;

		if (!strcmp(key, "driver"))
			continue;
		if (strlen(key) >= LAB_NAME_MAX || !*key)
			return ydoc_errf(d, k, err,
					 "%s: setting name '%.80s' must be "
					 "1..%d characters",
					 what, key, LAB_NAME_MAX - 1);
		if (b->nparams >= LAB_MAX_PARAMS)
			return ydoc_errf(d, k, err,
					 "%s: too many settings (at most %d)",
					 what, LAB_MAX_PARAMS);
		if (ydoc_scalar_value(d, v, what, key, &s, err) < 0)
			return -1;
		p = &b->params[b->nparams];
		p->value = strdup(s);
		if (!p->value)
			return ydoc_errf(d, v, err, "%s: out of memory", what);
		memcpy(p->key, key, strlen(key) + 1);
		p->line = ydoc_line(k);
		b->nparams++;
	}
	return 0;
}

static int load_host(struct lab *lab, struct ydoc *d, yaml_node_t *k,
		     yaml_node_t *v, struct al_err *err)
{
	struct lab_host *h = &lab->hosts[lab->nhosts];
	const char *name = ydoc_scalar(k);
	char what[LAB_NAME_MAX + 32];
	int len;

	if (!ydoc_name_ok(name, LAB_NAME_MAX - 1, NAME_EXTRA, 0))
		return ydoc_errf(d, k, err,
				 "host name '%.80s' must be 1..%d characters "
				 "of [A-Za-z0-9_-]",
				 name, LAB_NAME_MAX - 1);
	memcpy(h->name, name, strlen(name) + 1);
	h->line = ydoc_line(k);
	lab->nhosts++;
	if (join3(h->state_dir, sizeof(h->state_dir), lab->state_dir, "/",
		  name) < 0)
		return ydoc_errf(d, k, err,
				 "host %s: state directory path is too long",
				 name);
	snprintf(what, sizeof(what), "host %s", name);
	if (ydoc_check_map(d, v, what, concern_keys, 5, "concerns", err) < 0)
		return -1;
	len = ydoc_map_len(v);
	for (int i = 0; i < len; i++) {
		yaml_node_t *ck = ydoc_map_key(d, v, i);
		const char *c = ydoc_scalar(ck);
		struct lab_binding *b = !strcmp(c, "power")	? &h->power
					: !strcmp(c, "flash")	? &h->flash
					: !strcmp(c, "console") ? &h->console
					: !strcmp(c, "ap")	? &h->ap
								: &h->shell;

		snprintf(what, sizeof(what), "host %s %s", name, c);
		if (load_binding(d, ydoc_map_value(d, v, i), what,
				 ydoc_line(ck), b, err) < 0)
			return -1;
	}
	return 0;
}

static int load_atten(struct lab *lab, struct ydoc *d, yaml_node_t *k,
		      yaml_node_t *v, struct al_err *err)
{
	struct lab_atten *a = &lab->attens[lab->nattens];
	const char *name = ydoc_scalar(k);
	char what[LAB_NAME_MAX + 32];

	if (!ydoc_name_ok(name, LAB_NAME_MAX - 1, NAME_EXTRA, 0))
		return ydoc_errf(d, k, err,
				 "attenuator name '%.80s' must be 1..%d "
				 "characters of [A-Za-z0-9_-]",
				 name, LAB_NAME_MAX - 1);
	memcpy(a->name, name, strlen(name) + 1);
	a->line = ydoc_line(k);
	lab->nattens++;
	snprintf(what, sizeof(what), "attenuator %s", name);
	return load_binding(d, v, what, a->line, &a->binding, err);
}

static int lab_from_doc(struct lab *lab, struct ydoc *d, struct al_err *err)
{
	yaml_node_t *root = ydoc_root(d);
	yaml_node_t *n;
	char value[PATH_MAX];
	int len;

	if (!root)
		return al_errf(err,
			       "%s:1: empty file: expected a map with "
			       "'lab:' and 'hosts:'",
			       lab->path);
	if (ydoc_check_map(d, root, "lab file", top_keys, 5, "keys", err) < 0)
		return -1;
	if (ydoc_get_str(d, root, "lab", "lab file", 1, lab->name,
			 sizeof(lab->name), err) < 0)
		return -1;
	if (!ydoc_name_ok(lab->name, LAB_NAME_MAX - 1, NAME_EXTRA, 0))
		return ydoc_errf(d, ydoc_get(d, root, "lab", NULL), err,
				 "lab name '%s' must be of [A-Za-z0-9_-]",
				 lab->name);

	if (ydoc_get_str(d, root, "state_dir", "lab file", 0, value,
			 sizeof(value), err) < 0)
		return -1;
	n = ydoc_get(d, root, "state_dir", NULL);
	if (!n) {
		snprintf(value, sizeof(value), "~/.cache/airlab/state/%s",
			 lab->name);
		n = root;
	}
	if (resolve_dir(d, n, "state_dir", value, lab->state_dir,
			sizeof(lab->state_dir), err) < 0)
		return -1;

	if (ydoc_get_str(d, root, "image_dir", "lab file", 0, value,
			 sizeof(value), err) < 0)
		return -1;
	n = ydoc_get(d, root, "image_dir", NULL);
	if (!n) {
		snprintf(value, sizeof(value), "../build/dut-image");
		n = root;
	}
	if (resolve_dir(d, n, "image_dir", value, lab->image_dir,
			sizeof(lab->image_dir), err) < 0)
		return -1;
	/* Canonical when it exists; before `make image` it may not. */
	{
		char real[PATH_MAX];

		if (realpath(lab->image_dir, real) &&
		    strlen(real) < sizeof(lab->image_dir))
			memcpy(lab->image_dir, real, strlen(real) + 1);
	}

	n = ydoc_get(d, root, "hosts", NULL);
	if (!n)
		return ydoc_errf(d, root, err, "lab file: 'hosts' is missing");
	if (ydoc_check_map(d, n, "hosts", NULL, LAB_MAX_HOSTS, "hosts", err) <
	    0)
		return -1;
	len = ydoc_map_len(n);
	if (len == 0)
		return ydoc_errf(d, n, err,
				 "hosts: at least one host is needed");
	for (int i = 0; i < len; i++)
		if (load_host(lab, d, ydoc_map_key(d, n, i),
			      ydoc_map_value(d, n, i), err) < 0)
			return -1;

	n = ydoc_get(d, root, "attenuators", NULL);
	if (!n || ydoc_is_null(n))
		return 0;
	if (ydoc_check_map(d, n, "attenuators", NULL, LAB_MAX_HOSTS,
			   "attenuators", err) < 0)
		return -1;
	len = ydoc_map_len(n);
	for (int i = 0; i < len; i++)
		if (load_atten(lab, d, ydoc_map_key(d, n, i),
			       ydoc_map_value(d, n, i), err) < 0)
			return -1;
	return 0;
}

static int lab_finish(struct lab *lab, struct ydoc *d, int rc,
		      struct al_err *err)
{
	if (rc == 0)
		rc = lab_from_doc(lab, d, err);
	ydoc_free(d);
	if (rc < 0)
		lab_free(lab);
	return rc;
}

int lab_load_buf(struct lab *lab, const char *name, const void *buf, size_t len,
		 struct al_err *err)
{
	struct ydoc d;

	memset(lab, 0, sizeof(*lab));
	snprintf(lab->path, sizeof(lab->path), "%s", name);
	return lab_finish(lab, &d, ydoc_load_buf(&d, name, buf, len, err), err);
}

int lab_load(struct lab *lab, const char *path, struct al_err *err)
{
	struct ydoc d;

	memset(lab, 0, sizeof(*lab));
	snprintf(lab->path, sizeof(lab->path), "%s", path);
	return lab_finish(lab, &d, ydoc_load_file(&d, path, err), err);
}

static void binding_free(struct lab_binding *b)
{
	for (int i = 0; i < b->nparams; i++) {
		free(b->params[i].value);
		b->params[i].value = NULL;
	}
	b->nparams = 0;
}

void lab_free(struct lab *lab)
{
	if (!lab)
		return;
	for (int i = 0; i < lab->nhosts; i++) {
		binding_free(&lab->hosts[i].power);
		binding_free(&lab->hosts[i].flash);
		binding_free(&lab->hosts[i].console);
		binding_free(&lab->hosts[i].shell);
		binding_free(&lab->hosts[i].ap);
	}
	for (int i = 0; i < lab->nattens; i++)
		binding_free(&lab->attens[i].binding);
	lab->nhosts = 0;
	lab->nattens = 0;
}

const struct lab_host *lab_host_find(const struct lab *lab, const char *name)
{
	if (!lab || !name)
		return NULL;
	for (int i = 0; i < lab->nhosts; i++)
		if (!strcmp(lab->hosts[i].name, name))
			return &lab->hosts[i];
	return NULL;
}

const struct lab_param *lab_param_entry(const struct lab_binding *b,
					const char *key)
{
	if (!b || !key)
		return NULL;
	for (int i = 0; i < b->nparams; i++)
		if (!strcmp(b->params[i].key, key))
			return &b->params[i];
	return NULL;
}

const char *lab_param(const struct lab_binding *b, const char *key)
{
	const struct lab_param *p = lab_param_entry(b, key);

	return p ? p->value : NULL;
}

int lab_param_long(const struct lab *lab, const char *who,
		   const struct lab_binding *b, const char *key, long def,
		   long min, long max, long *out, struct al_err *err)
{
	const struct lab_param *p = lab_param_entry(b, key);
	char *end;
	long v;

	*out = def;
	if (!p)
		return 0;
	errno = 0;
	v = strtol(p->value, &end, 0);
	if (errno || end == p->value || *end || v < min || v > max)
		return al_err_input(
		    err,
		    "%s:%d: %s: %s '%s' is not a whole number from "
		    "%ld to %ld",
		    lab->path, p->line, who, key, p->value, min, max);
	*out = v;
	return 0;
}

int lab_param_bool(const struct lab *lab, const char *who,
		   const struct lab_binding *b, const char *key, bool def,
		   bool *out, struct al_err *err)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};
	const struct lab_param *p = lab_param_entry(b, key);

	*out = def;
	if (!p)
		return 0;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(p->value, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(p->value, no[i])) {
			*out = false;
			return 0;
		}
	}
	return al_err_input(
	    err,
	    "%s:%d: %s: %s '%.40s' is neither yes nor no (true, "
	    "false, on, off, 1, 0 also do)",
	    lab->path, p->line, who, key, p->value);
}

/* Placeholders in a driver setting; the wrapper keeps errors one line. */
/* The extra field named by p[0..nlen), or NULL. */
static const char *extra_field(const struct lab_field *extra, size_t nextra,
			       const char *p, size_t nlen)
{
	for (size_t i = 0; i < nextra; i++)
		if (strlen(extra[i].name) == nlen &&
		    !strncmp(extra[i].name, p, nlen))
			return extra[i].value;
	return NULL;
}

static int expand(const struct lab *lab, const struct lab_host *host,
		  const struct lab_field *extra, size_t nextra, const char *in,
		  char *out, size_t outlen, struct al_err *err)
{
	size_t o = 0;

	if (!outlen)
		return al_errf(err, "expanding '%.200s': no output space", in);
	for (const char *p = in; *p;) {
		const char *piece = p;
		size_t plen = 1;

		if (*p == '{') {
			const char *close = strchr(p, '}');
			size_t nlen;

			if (!close)
				return al_err_input(err,
						    "'%.200s': '{' without a "
						    "closing '}'",
						    in);
			nlen = (size_t)(close - p - 1);
			if (nlen == 5 && !strncmp(p + 1, "state", 5)) {
				if (!host)
					return al_err_input(err,
							    "'%.200s': {state} "
							    "needs a host",
							    in);
				piece = host->state_dir;
			} else if (nlen == 6 && !strncmp(p + 1, "images", 6)) {
				piece = lab->image_dir;
			} else if (!(piece = extra_field(extra, nextra, p + 1,
							 nlen))) {
				char known[256] = "{state}, {images}";

				for (size_t i = 0; i < nextra; i++) {
					size_t k = strlen(known);

					snprintf(known + k, sizeof(known) - k,
						 ", {%s}", extra[i].name);
				}
				return al_err_input(
				    err,
				    "'%.200s': unknown placeholder "
				    "'{%.*s}' (known: %s)",
				    in, (int)(nlen > 60 ? 60 : nlen), p + 1,
				    known);
			}
			plen = strlen(piece);
			p = close + 1;
		} else {
			p++;
		}
		if (o + plen >= outlen)
			return al_errf(err,
				       "'%.200s' expands to more than %zu "
				       "bytes",
				       in, outlen - 1);
		memcpy(out + o, piece, plen);
		o += plen;
	}
	out[o] = 0;
	return 0;
}

int lab_expand(const struct lab *lab, const struct lab_host *host,
	       const char *in, char *out, size_t outlen, struct al_err *err)
{
	return lab_expand_with(lab, host, NULL, 0, in, out, outlen, err);
}

int lab_expand_with(const struct lab *lab, const struct lab_host *host,
		    const struct lab_field *extra, size_t nextra,
		    const char *in, char *out, size_t outlen,
		    struct al_err *err)
{
	if (expand(lab, host, extra, nextra, in, out, outlen, err) == 0)
		return 0;
	if (err)
		al_one_line(err->msg);
	return -1;
}
