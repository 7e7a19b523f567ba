#include "flent.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../util/json_file.h"

struct raw_point {
	double t, val; /* val NAN = record without a value */
	json_t *rec;   /* the whole raw record */
};

struct series {
	char *name;
	struct raw_point *pts;
	size_t n, cap;
	int computed;
	enum flent_op op;
	int *srcs;
	size_t n_srcs;
	double *grid; /* interpolated values per step, NAN = null */
};

struct flent_file {
	json_t *meta;
	double t0, step, length, total;
	struct series *s;
	size_t n, cap;
};

static void iso_time(double t, char *buf, size_t len)
{
	time_t sec = (time_t)floor(t);
	int usec = (int)llround((t - (double)sec) * 1e6);
	struct tm tm;

	if (usec >= 1000000) {
		sec++;
		usec -= 1000000;
	}
	gmtime_r(&sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, usec);
}

struct flent_file *flent_new(const char *test_name, double t0_unix,
			     double step_s, double length_s, double total_s,
			     struct al_err *err)
{
	struct flent_file *f;
	struct utsname u;
	char iso[128], host[256] = "";

	if (!test_name || !*test_name) {
		al_errf(err, "flent: a result needs a test name");
		return NULL;
	}
	if (!(step_s > 0) || !(total_s > 0) || total_s / step_s > 1e6 ||
	    length_s < 0 || !(t0_unix > 0)) {
		al_errf(err,
			"flent %s: step %g s, length %g s, total %g s, t0 %f: "
			"need step > 0, total > 0 and at most 1e6 steps",
			test_name, step_s, length_s, total_s, t0_unix);
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		al_errf(err, "flent %s: out of memory", test_name);
		return NULL;
	}
	f->t0 = t0_unix;
	f->step = step_s;
	f->length = length_s;
	f->total = total_s;
	f->meta = json_object();
	iso_time(t0_unix, iso, sizeof(iso));
	gethostname(host, sizeof(host) - 1);
	json_object_set_new(f->meta, "NAME", json_string(test_name));
	json_object_set_new(f->meta, "TIME", json_string(iso));
	json_object_set_new(f->meta, "T0", json_string(iso));
	json_object_set_new(f->meta, "TITLE", json_string(""));
	json_object_set_new(f->meta, "NOTE", json_null());
	json_object_set_new(f->meta, "LENGTH", json_real(length_s));
	json_object_set_new(f->meta, "TOTAL_LENGTH", json_real(total_s));
	json_object_set_new(f->meta, "STEP_SIZE", json_real(step_s));
	json_object_set_new(f->meta, "FLENT_VERSION",
			    json_string(FLENT_VERSION_STRING "-airlab"));
	json_object_set_new(f->meta, "IP_VERSION", json_integer(4));
	json_object_set_new(f->meta, "LOCAL_HOST", json_string(host));
	json_object_set_new(f->meta, "HOST", json_null());
	json_object_set_new(f->meta, "HOSTS", json_array());
	if (uname(&u) == 0) {
		json_object_set_new(f->meta, "KERNEL_NAME",
				    json_string(u.sysname));
		json_object_set_new(f->meta, "KERNEL_RELEASE",
				    json_string(u.release));
	}
	json_object_set_new(f->meta, "MODULE_VERSIONS", json_object());
	json_object_set_new(f->meta, "SYSCTLS", json_object());
	json_object_set_new(f->meta, "EGRESS_INFO", json_null());
	json_object_set_new(f->meta, "REMOTE_METADATA", json_object());
	json_object_set_new(f->meta, "TEST_PARAMETERS", json_object());
	json_object_set_new(f->meta, "SERIES_META", json_object());
	json_object_set_new(f->meta, "FAILED_RUNNERS", json_integer(0));
	json_object_set_new(f->meta, "BATCH_NAME", json_null());
	json_object_set_new(f->meta, "BATCH_TIME", json_null());
	json_object_set_new(f->meta, "BATCH_TITLE", json_null());
	json_object_set_new(f->meta, "BATCH_UUID", json_null());
	json_object_set_new(f->meta, "HTTP_GETTER_DNS", json_null());
	json_object_set_new(f->meta, "HTTP_GETTER_URLLIST", json_null());
	json_object_set_new(f->meta, "HTTP_GETTER_WORKERS", json_integer(4));
	return f;
}

void flent_free(struct flent_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		for (size_t j = 0; j < f->s[i].n; j++)
			json_decref(f->s[i].pts[j].rec);
		free(f->s[i].pts);
		free(f->s[i].name);
		free(f->s[i].srcs);
		free(f->s[i].grid);
	}
	free(f->s);
	json_decref(f->meta);
	free(f);
}

int flent_meta_str(struct flent_file *f, const char *key, const char *val)
{
	return json_object_set_new(f->meta, key,
				   val ? json_string(val) : json_null());
}

int flent_meta_num(struct flent_file *f, const char *key, double val)
{
	return json_object_set_new(f->meta, key, json_num(val));
}

int flent_meta_json(struct flent_file *f, const char *key, json_t *val)
{
	return json_object_set_new(f->meta, key, val);
}

int flent_test_param(struct flent_file *f, const char *key, const char *val)
{
	return json_object_set_new(json_object_get(f->meta, "TEST_PARAMETERS"),
				   key, json_string(val));
}

json_t *flent_metadata(struct flent_file *f)
{
	return f->meta;
}

int flent_series_find(const struct flent_file *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->s[i].name, name))
			return (int)i;
	return -1;
}

static json_t *series_meta(struct flent_file *f, int idx)
{
	json_t *sm = json_object_get(f->meta, "SERIES_META");
	json_t *m = json_object_get(sm, f->s[idx].name);

	if (!m) {
		m = json_object();
		json_object_set_new(sm, f->s[idx].name, m);
	}
	return m;
}

static int add_series(struct flent_file *f, const char *name, const char *units)
{
	struct series *s;

	if (!name || !*name || flent_series_find(f, name) >= 0)
		return -1;
	if (f->n == f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 16;
		struct series *ns = realloc(f->s, nc * sizeof(*ns));

		if (!ns)
			return -1;
		f->s = ns;
		f->cap = nc;
	}
	s = &f->s[f->n];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return -1;
	f->n++;
	if (units)
		json_object_set_new(series_meta(f, (int)f->n - 1), "UNITS",
				    json_string(units));
	return (int)f->n - 1;
}

int flent_series(struct flent_file *f, const char *name, const char *units)
{
	int idx = add_series(f, name, units);

	if (idx >= 0)
		json_object_set_new(series_meta(f, idx), "RUNNER",
				    json_string("AirlabAgentRunner"));
	return idx;
}

int flent_series_meta_num(struct flent_file *f, int idx, const char *key,
			  double val)
{
	if (idx < 0 || (size_t)idx >= f->n)
		return -1;
	return json_object_set_new(series_meta(f, idx), key, json_num(val));
}

int flent_series_meta_str(struct flent_file *f, int idx, const char *key,
			  const char *val)
{
	if (idx < 0 || (size_t)idx >= f->n)
		return -1;
	return json_object_set_new(series_meta(f, idx), key, json_string(val));
}

int flent_raw(struct flent_file *f, int idx, double t, double val,
	      json_t *extra)
{
	struct series *s;
	json_t *rec;

	if (idx < 0 || (size_t)idx >= f->n || f->s[idx].computed ||
	    !isfinite(t)) {
		json_decref(extra);
		return -1;
	}
	s = &f->s[idx];
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 256;
		struct raw_point *np = realloc(s->pts, nc * sizeof(*np));

		if (!np) {
			json_decref(extra);
			return -1;
		}
		s->pts = np;
		s->cap = nc;
	}
	rec = json_is_object(extra) ? extra : json_object();
	if (rec != extra)
		json_decref(extra);
	json_object_set_new(rec, "t", json_real(t));
	if (isfinite(val))
		json_object_set_new(rec, "val", json_real(val));
	s->pts[s->n].t = t;
	s->pts[s->n].val = isfinite(val) ? val : NAN;
	s->pts[s->n].rec = rec;
	s->n++;
	return 0;
}

size_t flent_raw_count(const struct flent_file *f, int idx)
{
	return idx >= 0 && (size_t)idx < f->n ? f->s[idx].n : 0;
}

json_t *flent_raw_json(const struct flent_file *f, int idx)
{
	json_t *a = json_array();

	if (idx < 0 || (size_t)idx >= f->n)
		return a;
	for (size_t i = 0; i < f->s[idx].n; i++)
		json_array_append(a, f->s[idx].pts[i].rec);
	return a;
}

void flent_set_t0(struct flent_file *f, double t0_unix)
{
	char iso[128];

	f->t0 = t0_unix;
	iso_time(t0_unix, iso, sizeof(iso));
	json_object_set_new(f->meta, "TIME", json_string(iso));
	json_object_set_new(f->meta, "T0", json_string(iso));
}

static const char *op_runner(enum flent_op op)
{
	switch (op) {
	case FLENT_SUM:
		return "SumRunner";
	case FLENT_AVG:
		return "AverageRunner";
	case FLENT_FAIRNESS:
		return "FairnessRunner";
	}
	return "";
}

int flent_computed(struct flent_file *f, const char *name, const char *units,
		   enum flent_op op, const int *srcs, size_t n_srcs)
{
	int idx;

	for (size_t i = 0; i < n_srcs; i++)
		if (srcs[i] < 0 || (size_t)srcs[i] >= f->n)
			return -1;
	idx = add_series(f, name, units);
	if (idx < 0)
		return -1;
	f->s[idx].computed = 1;
	f->s[idx].op = op;
	f->s[idx].srcs = malloc((n_srcs ? n_srcs : 1) * sizeof(int));
	if (!f->s[idx].srcs)
		return -1;
	memcpy(f->s[idx].srcs, srcs, n_srcs * sizeof(int));
	f->s[idx].n_srcs = n_srcs;
	json_object_set_new(series_meta(f, idx), "RUNNER",
			    json_string(op_runner(op)));
	json_object_set_new(series_meta(f, idx), "COMPUTED_LATE", json_false());
	return idx;
}

static int cmp_pt(const void *a, const void *b)
{
	const struct raw_point *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

static size_t n_steps(const struct flent_file *f)
{
	return (size_t)ceil(f->total / f->step - 1e-9) + 1;
}

/* Flent's TimeseriesAggregator: value at each step from the samples around
 * it, never across a gap of more than 5 steps. */
static void interpolate(const struct flent_file *f, struct series *s,
			size_t steps)
{
	double max_gap = f->step * 5.0;
	size_t j = 0, nv = 0;
	struct raw_point *v = malloc((s->n ? s->n : 1) * sizeof(*v));

	for (size_t i = 0; i < s->n; i++)
		if (isfinite(s->pts[i].val))
			v[nv++] = s->pts[i];
	for (size_t k = 0; k < steps; k++) {
		double t = f->t0 + f->step * (double)k, dist = max_gap;
		double res = NAN;

		s->grid[k] = NAN;
		if (!nv)
			continue;
		while (j < nv && v[j].t <= t)
			j++;
		if (j == 0)
			dist = f->step * 0.5;
		if (j < nv && j > 0) {
			const struct raw_point *p = &v[j - 1], *n = &v[j];

			if (fabs(t - n->t) <= dist)
				res = p->val + (n->val - p->val) /
						   (n->t - p->t) * (t - p->t);
		} else if (j < nv) {
			if (fabs(t - v[j].t) <= dist)
				res = v[j].val;
		} else {
			/* Past the last sample: use it once, don't repeat. */
			double prev = k ? s->grid[k - 1] : NAN;

			if (fabs(t - v[nv - 1].t) <= dist && !isnan(prev) &&
			    prev != v[nv - 1].val)
				res = v[nv - 1].val;
		}
		s->grid[k] = res;
	}
	free(v);
}

static double apply_op(enum flent_op op, const double *v, size_t n)
{
	double sum = 0, sq = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		sq += v[i] * v[i];
	}
	switch (op) {
	case FLENT_SUM:
		return sum;
	case FLENT_AVG:
		return sum / (double)n;
	case FLENT_FAIRNESS:
		return sq > 0 ? sum * sum / ((double)n * sq) : NAN;
	}
	return NAN;
}

static json_t *build(struct flent_file *f, struct al_err *err)
{
	size_t steps = n_steps(f);
	json_t *root = json_object(), *x = json_array(), *res = json_object(),
	       *raw = json_object();
	double *tmp = malloc((f->n ? f->n : 1) * sizeof(double));
	int fail = !root || !x || !res || !raw || !tmp;

	for (size_t i = 0; i < f->n && !fail; i++) {
		free(f->s[i].grid);
		f->s[i].grid = malloc(steps * sizeof(double));
		if (!f->s[i].grid)
			fail = 1;
	}
	if (fail) {
		json_decref(root);
		json_decref(x);
		json_decref(res);
		json_decref(raw);
		free(tmp);
		al_errf(err, "flent: out of memory building %zu steps", steps);
		return NULL;
	}
	for (size_t k = 0; k < steps; k++)
		json_array_append_new(x, json_real(f->step * (double)k));
	for (size_t i = 0; i < f->n; i++) {
		struct series *s = &f->s[i];
		double sum = 0, mn = INFINITY, mx = -INFINITY;
		size_t nv = 0;
		json_t *rl;

		if (s->computed)
			continue;
		rl = json_array();
		qsort(s->pts, s->n, sizeof(*s->pts), cmp_pt);
		for (size_t j = 0; j < s->n; j++) {
			json_array_append(rl, s->pts[j].rec);
			if (isfinite(s->pts[j].val)) {
				sum += s->pts[j].val;
				mn = fmin(mn, s->pts[j].val);
				mx = fmax(mx, s->pts[j].val);
				nv++;
			}
		}
		json_object_set_new(raw, s->name, rl);
		interpolate(f, s, steps);
		if (nv) {
			flent_series_meta_num(f, (int)i, "MEAN_VALUE",
					      sum / (double)nv);
			flent_series_meta_num(f, (int)i, "MIN_VALUE", mn);
			flent_series_meta_num(f, (int)i, "MAX_VALUE", mx);
		}
	}
	/* Computed series may use other computed ones (Flent's "TCP totals"
	 * doesn't, but keep the order of definition). */
	for (size_t i = 0; i < f->n; i++) {
		struct series *s = &f->s[i];
		size_t nm = 0;

		if (!s->computed)
			continue;
		for (size_t k = 0; k < steps; k++) {
			size_t nv = 0;

			for (size_t j = 0; j < s->n_srcs; j++) {
				double v = f->s[s->srcs[j]].grid[k];

				if (isfinite(v))
					tmp[nv++] = v;
			}
			s->grid[k] = apply_op(s->op, tmp, nv);
		}
		for (size_t j = 0; j < s->n_srcs; j++) {
			json_t *m = json_object_get(
			    json_object_get(f->meta, "SERIES_META"),
			    f->s[s->srcs[j]].name);
			json_t *mv = json_object_get(m, "MEAN_VALUE");

			if (json_is_number(mv))
				tmp[nm++] = json_number_value(mv);
		}
		if (nm)
			flent_series_meta_num(f, (int)i, "MEAN_VALUE",
					      apply_op(s->op, tmp, nm));
		json_object_set_new(raw, s->name, json_array());
	}
	for (size_t i = 0; i < f->n; i++) {
		json_t *a = json_array();

		for (size_t k = 0; k < steps; k++)
			json_array_append_new(a, json_num(f->s[i].grid[k]));
		json_object_set_new(res, f->s[i].name, a);
	}
	free(tmp);
	json_object_set(root, "metadata", f->meta);
	json_object_set_new(root, "version",
			    json_integer(FLENT_FORMAT_VERSION));
	json_object_set_new(root, "x_values", x);
	json_object_set_new(root, "results", res);
	json_object_set_new(root, "raw_values", raw);
	return root;
}

int flent_filename(const struct flent_file *f, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(f->meta, "NAME"));
	const char *time = json_string_value(json_object_get(f->meta, "TIME"));
	const char *title =
	    json_string_value(json_object_get(f->meta, "TITLE"));
	char t[40], ti[128];
	size_t j = 0;
	int n;

	for (size_t i = 0; time && time[i] && j + 1 < sizeof(t); i++)
		if (time[i] != ':' && time[i] != 'Z')
			t[j++] = time[i];
	t[j] = '\0';
	j = 0;
	for (size_t i = 0; title && title[i] && j + 1 < sizeof(ti); i++) {
		char c = title[i];

		ti[j++] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
				  (c >= '0' && c <= '9') || c == '-'
			      ? c
			      : '_';
	}
	ti[j] = '\0';
	if (ti[0])
		n = snprintf(buf, len, "%s-%s.%s.flent.gz", name, t, ti);
	else
		n = snprintf(buf, len, "%s-%s.flent.gz", name, t);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int flent_write(struct flent_file *f, const char *path, struct al_err *err)
{
	char tmp[4096];
	json_t *root;
	char *text;
	gzFile gz;
	size_t len;
	int ok;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return al_errf(err, "flent: path '%s' is too long", path);
	root = build(f, err);
	if (!root)
		return al_err_prefix(err, "write %s", path);
	text = json_dumps(root,
			  JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(root);
	if (!text)
		return al_errf(err, "write %s: JSON encoding failed", path);
	len = strlen(text);
	gz = gzopen(tmp, "wb6");
	if (!gz) {
		free(text);
		return al_errf(err, "write %s: gzopen %s: %s", path, tmp,
			       strerror(errno));
	}
	ok = gzwrite(gz, text, (unsigned)len) == (int)len;
	ok = (gzclose(gz) == Z_OK) && ok;
	free(text);
	if (!ok || rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		return al_errf(err, "write %s: gzip write or rename failed: %s",
			       path, strerror(e));
	}
	json_object_set_new(
	    f->meta, "DATA_FILENAME",
	    json_string(strrchr(path, '/') ? strrchr(path, '/') + 1 : path));
	return 0;
}

json_t *flent_read(const char *path, struct al_err *err)
{
	gzFile gz = gzopen(path, "rb");
	size_t len = 0, cap = 1 << 16;
	char *buf;
	int zerr = Z_OK, n, oom;
	json_t *root, *x, *res, *ver;
	json_error_t je;
	const char *key;
	json_t *val;

	if (!gz) {
		al_errf(err, "read %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(cap);
	oom = !buf;
	while (!oom) {
		if (len + 65536 > cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				oom = 1;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = gzread(gz, buf + len, 65536);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (oom) {
		free(buf);
		buf = NULL;
	}
	gzerror(gz, &zerr);
	/* A gzip stream cut short ends without its trailer: zlib reports
	 * Z_BUF_ERROR, at the last read or at close. */
	if (gzclose_r(gz) == Z_BUF_ERROR || zerr == Z_BUF_ERROR ||
	    (zerr != Z_OK && zerr != Z_STREAM_END)) {
		free(buf);
		al_errf(err,
			"read %s: truncated or corrupt gzip stream (%zu bytes "
			"of JSON before the end)",
			path, len);
		return NULL;
	}
	if (!buf) {
		al_errf(err, "read %s: out of memory", path);
		return NULL;
	}
	root = json_loadb(buf, len, 0, &je);
	free(buf);
	if (!root) {
		al_errf(err, "read %s: bad JSON at line %d column %d: %s", path,
			je.line, je.column, je.text);
		al_one_line(err ? err->msg : NULL);
		return NULL;
	}
	ver = json_object_get(root, "version");
	if (!json_is_integer(ver) || json_integer_value(ver) < 1 ||
	    json_integer_value(ver) > FLENT_FORMAT_VERSION) {
		al_errf(err, "read %s: file format version %s is not 1..%d",
			path, json_is_integer(ver) ? "out of range" : "missing",
			FLENT_FORMAT_VERSION);
		json_decref(root);
		return NULL;
	}
	x = json_object_get(root, "x_values");
	res = json_object_get(root, "results");
	if (!json_is_object(json_object_get(root, "metadata")) ||
	    !json_is_array(x) || !json_is_object(res) ||
	    !json_is_object(json_object_get(root, "raw_values")) ||
	    !json_is_string(
		json_object_get(json_object_get(root, "metadata"), "NAME"))) {
		al_errf(err,
			"read %s: missing metadata (with NAME), x_values, "
			"results or raw_values",
			path);
		json_decref(root);
		return NULL;
	}
	json_object_foreach(res, key, val)
	{
		if (!json_is_array(val) ||
		    json_array_size(val) != json_array_size(x)) {
			al_errf(err,
				"read %s: results '%s' has %zu values for %zu "
				"x_values",
				path, key, json_array_size(val),
				json_array_size(x));
			al_one_line(err ? err->msg : NULL);
			json_decref(root);
			return NULL;
		}
	}
	return root;
}
