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
    "variant", "kernel", "root_qdisc",	"default_qdisc",
    "txring",  "aql",	 "description", NULL};

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

	if (ydoc_check_map(d, root, w, variant_keys, 7, "keys", err) < 0 ||
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
				ydoc_one_line(err->msg);
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
