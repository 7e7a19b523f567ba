#include "variant.h"
#include "ydoc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LISTED 64

static const char *const variant_keys[] = {
    "variant",	   "kernel", "root_qdisc", "default_qdisc", "txring", "aql",
    "description", "knobs",  NULL};
static const char *const knob_keys[] = {
    "wlan_qdisc",    "wired_qdisc",   "aql",
    "aql_txq_limit", "aql_threshold", "airtime_flags",
    "sysctl",	     "files",	      NULL};
static const char *const file_keys[] = {"path", "value", NULL};

/* mac80211's debugfs files for the knobs that have no other interface. */
#define MAC80211_DEBUGFS "/sys/kernel/debug/ieee80211/{phy}/"

#define TXRING_MAX 100000

/* The file's base name without ".yaml": what `variant:` must say. */
static void base_name(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".yaml"))
		n -= 5;
	snprintf(out, len, "%.*s", (int)n, b);
}

/* "N.M": the kernel series the DUT image carries. */
static int series_ok(const char *s)
{
	const char *p = s;
	int digits = 0;

	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (!digits || digits > 3 || *p++ != '.')
		return 0;
	digits = 0;
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	return digits && digits <= 3 && !*p;
}

/* Queue settings go into the guest's tc / sysctl calls: tokens, blanks. */
static int chars_ok(const char *s, const char *extra)
{
	for (; *s; s++) {
		char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr(extra, c))
			continue;
		return 0;
	}
	return 1;
}

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static struct variant_knob *knob_add(struct variant *v, struct ydoc *d,
				     yaml_node_t *at, const char *name,
				     enum variant_knob_kind kind,
				     const char *target, const char *value,
				     int line, struct al_err *err)
{
	struct variant_knob *k;

	if (v->nknobs == VARIANT_MAX_KNOBS) {
		ydoc_errf(d, at, err, "knobs: more than %d", VARIANT_MAX_KNOBS);
		return NULL;
	}
	k = &v->knobs[v->nknobs++];
	snprintf(k->name, sizeof(k->name), "%s", name);
	k->kind = kind;
	snprintf(k->target, sizeof(k->target), "%s", target);
	snprintf(k->value, sizeof(k->value), "%s", value);
	k->exact = 1;
	k->line = line;
	return k;
}

/* A path a knob writes: absolute, plain characters and the {phy},
 * {iface}, {wired} fields, no "..". */
static int knob_path_ok(const char *p)
{
	const char *fields[] = {"{phy}", "{iface}", "{wired}"};

	if (p[0] != '/' || strstr(p, ".."))
		return 0;
	while (*p) {
		size_t i, n = 0;

		for (i = 0; i < 3; i++)
			if (!strncmp(p, fields[i], strlen(fields[i])))
				n = strlen(fields[i]);
		if (n) {
			p += n;
			continue;
		}
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("/_.-:", *p)))
			return 0;
		p++;
	}
	return 1;
}

/* A whole number from min to max, as text. */
static int long_in(const char *s, long min, long max)
{
	long v;

	return ydoc_parse_long(s, &v) == 0 && v >= min && v <= max;
}

static int knob_scalar(struct ydoc *d, yaml_node_t *knobs, const char *key,
		       char *out, size_t len, int *line, struct al_err *err)
{
	*line = 0;
	if (!ydoc_get(d, knobs, key, line))
		return 0;
	if (ydoc_get_str(d, knobs, key, "knobs", 1, out, len, err) < 0)
		return -1;
	return 1;
}

/* sysctl: {net.core.default_qdisc: fq_codel}: /proc/sys files. */
static int load_sysctls(struct variant *v, struct ydoc *d, yaml_node_t *map,
			struct al_err *err)
{
	int n;

	if (ydoc_check_map(d, map, "knobs: sysctl", NULL, VARIANT_MAX_KNOBS,
			   "settings", err) < 0)
		return -1;
	n = ydoc_map_len(map);
	for (int i = 0; i < n; i++) {
		yaml_node_t *k = ydoc_map_key(d, map, i);
		const char *key = ydoc_scalar(k), *val;
		char path[256], name[80];

		if (ydoc_scalar_value(d, ydoc_map_value(d, map, i),
				      "knobs: sysctl", key, &val, err) < 0)
			return -1;
		if (!ydoc_name_ok(key, 120, "_.-", 0) || strstr(key, ".."))
			return ydoc_errf(
			    d, k, err,
			    "knobs: sysctl '%.80s' is not a sysctl "
			    "name (net.core.default_qdisc)",
			    key);
		if (!printable(val) || strlen(val) >= 256)
			return ydoc_errf(d, k, err,
					 "knobs: sysctl %s: the value must be "
					 "one line (at most 255 characters)",
					 key);
		snprintf(path, sizeof(path), "/proc/sys/%s", key);
		for (char *p = path + 10; *p; p++)
			if (*p == '.')
				*p = '/';
		snprintf(name, sizeof(name), "sysctl %s", key);
		if (!knob_add(v, d, k, name, KNOB_FILE, path, val, ydoc_line(k),
			      err))
			return -1;
	}
	return 0;
}

/* files: [{path: ..., value: ...}]: any file the DUT exposes. */
static int load_files(struct variant *v, struct ydoc *d, yaml_node_t *list,
		      struct al_err *err)
{
	int n;

	if (list->type != YAML_SEQUENCE_NODE)
		return ydoc_errf(
		    d, list, err,
		    "knobs: files must be a list of {path, value}, "
		    "not %s",
		    ydoc_kind(list));
	n = (int)(list->data.sequence.items.top -
		  list->data.sequence.items.start);
	for (int i = 0; i < n; i++) {
		yaml_node_t *item = yaml_document_get_node(
		    &d->doc, list->data.sequence.items.start[i]);
		char name[80], path[256], val[256];

		snprintf(name, sizeof(name), "files[%d]", i + 1);
		if (ydoc_check_map(d, item, name, file_keys, 2, "keys", err) <
			0 ||
		    ydoc_get_str(d, item, "path", name, 1, path, sizeof(path),
				 err) < 0 ||
		    ydoc_get_str(d, item, "value", name, 1, val, sizeof(val),
				 err) < 0)
			return -1;
		if (!knob_path_ok(path))
			return ydoc_errf(d, ydoc_get(d, item, "path", NULL),
					 err,
					 "%s: path '%s' must be absolute, of "
					 "[A-Za-z0-9/_.:-] and {phy}, {iface}, "
					 "{wired}, without '..'",
					 name, path);
		if (!printable(val))
			return ydoc_errf(d, ydoc_get(d, item, "value", NULL),
					 err, "%s: value must be one line",
					 name);
		if (!knob_add(v, d, item, name, KNOB_FILE, path, val,
			      ydoc_line(item), err))
			return -1;
	}
	return 0;
}

/* knobs: applied over the DUT's shell after the AP is up, each read
 * back. Files first, the qdiscs last (an mq takes net.core.default_qdisc
 * for its children when it is put in place). */
static int load_knobs(struct variant *v, struct ydoc *d, yaml_node_t *knobs,
		      struct al_err *err)
{
	char val[256], path[256];
	yaml_node_t *n;
	int line, rc;

	if (ydoc_check_map(d, knobs, "knobs", knob_keys, 8, "keys", err) < 0)
		return -1;
	if ((n = ydoc_get(d, knobs, "sysctl", NULL)) &&
	    load_sysctls(v, d, n, err) < 0)
		return -1;
	if ((n = ydoc_get(d, knobs, "files", NULL)) &&
	    load_files(v, d, n, err) < 0)
		return -1;
	if ((rc = knob_scalar(d, knobs, "aql", val, sizeof(val), &line, err)) <
	    0)
		return -1;
	if (rc) {
		int on = !strcmp(val, "true") || !strcmp(val, "on");

		if (!on && strcmp(val, "false") && strcmp(val, "off"))
			return ydoc_errf_line(d, line, err,
					      "knobs: aql '%s' is not true or "
					      "false",
					      val);
		if (!knob_add(v, d, knobs, "aql", KNOB_FILE,
			      MAC80211_DEBUGFS "aql_enable", on ? "1" : "0",
			      line, err))
			return -1;
	}
	if ((rc = knob_scalar(d, knobs, "aql_threshold", val, sizeof(val),
			      &line, err)) < 0)
		return -1;
	if (rc && !long_in(val, 0, 100000000))
		return ydoc_errf_line(d, line, err,
				      "knobs: aql_threshold '%s' is not a "
				      "number of µs (0..100000000)",
				      val);
	if (rc && !knob_add(v, d, knobs, "aql_threshold", KNOB_FILE,
			    MAC80211_DEBUGFS "aql_threshold", val, line, err))
		return -1;
	if ((rc = knob_scalar(d, knobs, "aql_txq_limit", val, sizeof(val),
			      &line, err)) < 0)
		return -1;
	if (rc) {
		long ac, lo, hi;
		char extra;
		struct variant_knob *k;

		if (sscanf(val, "%ld %ld %ld %c", &ac, &lo, &hi, &extra) != 3 ||
		    ac < 0 || ac > 3 || lo < 0 || hi < lo)
			return ydoc_errf_line(
			    d, line, err,
			    "knobs: aql_txq_limit '%s' is not 'AC LOW HIGH' "
			    "(AC 0..3 = VO VI BE BK, limits in µs)",
			    val);
		k = knob_add(v, d, knobs, "aql_txq_limit", KNOB_FILE,
			     MAC80211_DEBUGFS "aql_txq_limit", val, line, err);
		if (!k)
			return -1;
		k->exact = 0; /* it reads back as a table of every AC */
	}
	if ((rc = knob_scalar(d, knobs, "airtime_flags", val, sizeof(val),
			      &line, err)) < 0)
		return -1;
	if (rc && !long_in(val, 0, 7))
		return ydoc_errf_line(d, line, err,
				      "knobs: airtime_flags '%s' is not 0..7 "
				      "(1 tx, 2 rx, 4 extended)",
				      val);
	if (rc) {
		struct variant_knob *k =
		    knob_add(v, d, knobs, "airtime_flags", KNOB_FILE,
			     MAC80211_DEBUGFS "airtime_flags", val, line, err);
		if (!k)
			return -1;
		k->exact = 0; /* printed in hex on some kernels */
	}
	for (int q = 0; q < 2; q++) {
		const char *key = q ? "wired_qdisc" : "wlan_qdisc";

		if ((rc = knob_scalar(d, knobs, key, val, sizeof(val), &line,
				      err)) < 0)
			return -1;
		if (!rc)
			continue;
		if (!val[0] || !chars_ok(val, " _.:-/"))
			return ydoc_errf_line(
			    d, line, err,
			    "knobs: %s '%s' is not a tc qdisc "
			    "spec (letters, digits, blanks "
			    "and _.:-/)",
			    key, val);
		snprintf(path, sizeof(path), "%s", q ? "{wired}" : "{iface}");
		if (!knob_add(v, d, knobs, key, KNOB_QDISC, path, val, line,
			      err))
			return -1;
	}
	return 0;
}

static int variant_from_doc(struct variant *v, struct ydoc *d,
			    struct al_err *err)
{
	yaml_node_t *root = ydoc_root(d);
	const char *w = "variant file";
	char want[sizeof(v->name)];

	if (!root)
		return al_errf(err,
			       "%s:1: empty file: expected a map with "
			       "'variant:' and 'kernel:'",
			       v->path);
	char num[32], flag[16];
	long ring;

	if (ydoc_check_map(d, root, w, variant_keys, 8, "keys", err) < 0 ||
	    ydoc_get_str(d, root, "variant", w, 1, v->name, sizeof(v->name),
			 err) < 0 ||
	    ydoc_get_str(d, root, "kernel", w, 1, v->kernel, sizeof(v->kernel),
			 err) < 0 ||
	    ydoc_get_str(d, root, "root_qdisc", w, 0, v->root_qdisc,
			 sizeof(v->root_qdisc), err) < 0 ||
	    ydoc_get_str(d, root, "default_qdisc", w, 0, v->default_qdisc,
			 sizeof(v->default_qdisc), err) < 0 ||
	    ydoc_get_str(d, root, "description", w, 0, v->description,
			 sizeof(v->description), err) < 0 ||
	    ydoc_get_str(d, root, "txring", w, 0, num, sizeof(num), err) < 0 ||
	    ydoc_get_str(d, root, "aql", w, 0, flag, sizeof(flag), err) < 0)
		return -1;
	if (num[0] &&
	    (ydoc_parse_long(num, &ring) < 0 || ring < 0 || ring > TXRING_MAX))
		return ydoc_errf(d, ydoc_get(d, root, "txring", NULL), err,
				 "txring '%s' is not a frame count 0..%d "
				 "(0 = stock hwsim, never stops its queues)",
				 num, TXRING_MAX);
	v->txring = num[0] ? (int)ring : 0;
	if (!flag[0])
		v->aql = -1;
	else if (!strcmp(flag, "true") || !strcmp(flag, "on"))
		v->aql = 1;
	else if (!strcmp(flag, "false") || !strcmp(flag, "off"))
		v->aql = 0;
	else
		return ydoc_errf(d, ydoc_get(d, root, "aql", NULL), err,
				 "aql '%s' is not true or false", flag);
	if (ydoc_get(d, root, "knobs", NULL) &&
	    load_knobs(v, d, ydoc_get(d, root, "knobs", NULL), err) < 0)
		return -1;
	base_name(v->path, want, sizeof(want));
	if (strcmp(v->name, want))
		return ydoc_errf(d, ydoc_get(d, root, "variant", NULL), err,
				 "variant '%s' does not match the file name "
				 "(expected '%s')",
				 v->name, want);
	if (!series_ok(v->kernel))
		return ydoc_errf(d, ydoc_get(d, root, "kernel", NULL), err,
				 "kernel '%s' is not a kernel series like "
				 "\"6.1\" or \"6.12\"",
				 v->kernel);
	if (!chars_ok(v->root_qdisc, " _.:-/"))
		return ydoc_errf(d, ydoc_get(d, root, "root_qdisc", NULL), err,
				 "root_qdisc '%s' may hold only letters, "
				 "digits, blanks and _.:-/",
				 v->root_qdisc);
	if (!chars_ok(v->default_qdisc, "_"))
		return ydoc_errf(d, ydoc_get(d, root, "default_qdisc", NULL),
				 err,
				 "default_qdisc '%s' is not a qdisc name "
				 "([A-Za-z0-9_])",
				 v->default_qdisc);
	if (!printable(v->description))
		return ydoc_errf(d, ydoc_get(d, root, "description", NULL), err,
				 "description must be one line without "
				 "control characters");
	return 0;
}

int variant_load_buf(struct variant *v, const char *path, const void *buf,
		     size_t len, struct al_err *err)
{
	struct ydoc d;
	int rc;

	memset(v, 0, sizeof(*v));
	snprintf(v->path, sizeof(v->path), "%s", path);
	rc = ydoc_load_buf(&d, path, buf, len, err);
	if (rc == 0)
		rc = variant_from_doc(v, &d, err);
	ydoc_free(&d);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "kernel/x.yaml: unknown variant 'x' (kernel/ has: a, b)". */
static int unknown_variant(const char *path, const char *dir, const char *name,
			   struct al_err *err)
{
	char *names[MAX_LISTED];
	char list[600];
	size_t off = 0;
	int n = 0, more = 0;
	DIR *dh = opendir(dir);
	const struct dirent *e;
	const char *slash = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";

	if (!dh)
		return al_errf(err,
			       "%.400s: unknown variant '%.64s' (%.300s%s: %s)",
			       path, name, dir, slash, strerror(errno));
	while ((e = readdir(dh))) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.' || l <= 5 ||
		    strcmp(e->d_name + l - 5, ".yaml"))
			continue;
		if (n == MAX_LISTED) {
			more = 1;
			continue;
		}
		names[n] = strndup(e->d_name, l - 5);
		if (names[n])
			n++;
	}
	closedir(dh);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	list[0] = 0;
	for (int i = 0; i < n; i++) {
		if (off < sizeof(list)) {
			int k = snprintf(list + off, sizeof(list) - off, "%s%s",
					 i ? ", " : "", names[i]);
			if (k > 0)
				off += (size_t)k;
		}
		free(names[i]);
	}
	if (!n)
		return al_errf(err,
			       "%.400s: unknown variant '%.64s' (%.300s%s has "
			       "no *.yaml variants)",
			       path, name, dir, slash);
	return al_errf(err,
		       "%.400s: unknown variant '%.64s' (%.300s%s has: %s%s)",
		       path, name, dir, slash, list, more ? ", ..." : "");
}

int variant_load(struct variant *v, const char *dir, const char *name,
		 struct al_err *err)
{
	char path[sizeof(v->path)];
	struct ydoc d;
	struct stat st;
	int n, rc;

	memset(v, 0, sizeof(*v));
	if (strchr(name, '/')) {
		n = snprintf(path, sizeof(path), "%s", name);
	} else {
		/* A bare name picks a file in dir: no "..", no hidden files. */
		if (!ydoc_name_ok(name, sizeof(v->name) - 1, "_.-", 0) ||
		    name[0] == '.') {
			al_errf(err,
				"variant name '%.80s' must be of "
				"[A-Za-z0-9_.-] (or a path with '/')",
				name);
			if (err)
				al_one_line(err->msg);
			return -1;
		}
		n = snprintf(path, sizeof(path), "%s/%s.yaml", dir, name);
		if (n > 0 && (size_t)n < sizeof(path) && stat(path, &st) < 0 &&
		    errno == ENOENT)
			return unknown_variant(path, dir, name, err);
	}
	if (n < 0 || (size_t)n >= sizeof(path))
		return al_errf(err, "variant '%.80s': path too long", name);
	snprintf(v->path, sizeof(v->path), "%s", path);
	rc = ydoc_load_file(&d, path, err);
	if (rc == 0)
		rc = variant_from_doc(v, &d, err);
	ydoc_free(&d);
	return rc;
}
