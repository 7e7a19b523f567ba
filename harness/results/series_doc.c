/* sweep.json and bisect.json: their keys, writer and reader
 * (series_doc.h). */
#include "series_doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/json_file.h"

/* A member of a struct the record holds under key: a string of size
 * bytes, or (size 0) a number. One table serves the writer and the
 * reader, so the two cannot name it differently. */
struct field {
	const char *key;
	size_t off, size;
};

#define STR(T, key, f)                                                         \
	{                                                                      \
		key, offsetof(T, f), sizeof(((T *)0)->f)                       \
	}
#define NUM(T, key, f)                                                         \
	{                                                                      \
		key, offsetof(T, f), 0                                         \
	}
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct field step_common[] = {
    STR(struct series_step, "variant", variant),
    STR(struct series_step, "label", label),
    STR(struct series_step, "outcome", outcome),
};

static const struct field step_sweep[] = {
    NUM(struct series_step, "latency_median_ms", latency_median_ms),
    NUM(struct series_step, "latency_p99_ms", latency_p99_ms),
};

static const struct field step_bisect[] = {
    STR(struct series_step, "role", role),
    STR(struct series_step, "rev", rev),
    STR(struct series_step, "subject", subject),
    STR(struct series_step, "reason", reason),
    STR(struct series_step, "dir", dir),
    NUM(struct series_step, "good_median", good_median),
    NUM(struct series_step, "median", median),
    NUM(struct series_step, "change", change),
};

static const struct field station_nums[] = {
    NUM(struct series_station, "settle_s", settle_s),
    NUM(struct series_station, "settle_signal_dbm", settle_signal_dbm),
    NUM(struct series_station, "settle_txrate_mbps", settle_txrate_mbps),
    NUM(struct series_station, "settle_expected_mbps", settle_expected_mbps),
    NUM(struct series_station, "rate_mbps", rate_mbps),
    NUM(struct series_station, "tx_bitrate_mbps", tx_bitrate_mbps),
    NUM(struct series_station, "signal_dbm", signal_dbm),
    NUM(struct series_station, "retries", retries),
    NUM(struct series_station, "failed", failed),
    NUM(struct series_station, "goodput_up_mbps", goodput_up_mbps),
    NUM(struct series_station, "goodput_down_mbps", goodput_down_mbps),
};

/* The head's strings but first_bad's two, which sit in an object. */
static const struct {
	const char *key;
	size_t off;
} head_strs[] = {
    {"id", offsetof(struct series_doc, id)},
    {"kind", offsetof(struct series_doc, kind)},
    {"start", offsetof(struct series_doc, start)},
    {"end", offsetof(struct series_doc, end)},
    {"status", offsetof(struct series_doc, status)},
    {"suite", offsetof(struct series_doc, suite)},
    {"lab", offsetof(struct series_doc, lab)},
    {"mode", offsetof(struct series_doc, mode)},
    {"metric", offsetof(struct series_doc, metric)},
    {"report", offsetof(struct series_doc, report)},
};

/* A string as JSON; one that is not UTF-8 (a commit subject in another
 * encoding) as null rather than no key at all. */
static json_t *str_json(const char *s)
{
	json_t *v = json_string(s);

	return v ? v : json_null();
}

/* src into dst[size], cut at a character's start when too long: the
 * writer takes only whole UTF-8. */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* The number at f in p; copied, as p is seen as bytes. */
static double get_num(const void *p, const struct field *f)
{
	double v;

	memcpy(&v, (const char *)p + f->off, sizeof(v));
	return v;
}

static void set_num(void *p, const struct field *f, double v)
{
	memcpy((char *)p + f->off, &v, sizeof(v));
}

static void put_fields(json_t *o, const void *p, const struct field *f,
		       size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, f[i].key,
				    f[i].size
					? str_json((const char *)p + f[i].off)
					: json_num(get_num(p, &f[i])));
}

static void get_fields(const json_t *o, void *p, const struct field *f,
		       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (f[i].size)
			copy_str((char *)p + f[i].off, f[i].size,
				 json_str_at(o, f[i].key, ""));
		else
			set_num(p, &f[i], json_num_at(o, f[i].key));
	}
}

/* ---- a step ------------------------------------------------------------- */

void series_step_init(struct series_step *s)
{
	memset(s, 0, sizeof(*s));
	s->x = s->latency_median_ms = s->latency_p99_ms = NAN;
	s->good_median = s->median = s->change = s->ci_lo = s->ci_hi = NAN;
}

void series_step_free(struct series_step *s)
{
	for (size_t i = 0; i < s->n_runs; i++)
		free(s->runs[i]);
	free(s->runs);
	free(s->atten);
	free(s->sta);
	series_step_init(s);
}

/* arr (n elements of sz bytes) with room for one more, zeroed; NULL when
 * memory is short (arr stays as it was). */
static void *grow(void *arr, size_t n, size_t sz)
{
	char *p = realloc(arr, (n + 1) * sz);

	if (p)
		memset(p + n * sz, 0, sz);
	return p;
}

struct series_atten *series_step_add_atten(struct series_step *s)
{
	struct series_atten *a = grow(s->atten, s->n_atten, sizeof(*a));

	if (!a)
		return NULL;
	s->atten = a;
	a += s->n_atten++;
	a->set_db = a->read_db = NAN;
	return a;
}

struct series_station *series_step_add_station(struct series_step *s)
{
	struct series_station *t = grow(s->sta, s->n_sta, sizeof(*t));

	if (!t)
		return NULL;
	s->sta = t;
	t += s->n_sta++;
	for (size_t k = 0; k < COUNT(station_nums); k++)
		set_num(t, &station_nums[k], NAN);
	return t;
}

int series_step_add_run(struct series_step *s, const char *dir)
{
	char **r = grow(s->runs, s->n_runs, sizeof(*r));

	if (!r)
		return -1;
	s->runs = r;
	if (!(r[s->n_runs] = strdup(dir)))
		return -1;
	s->n_runs++;
	return 0;
}

static json_t *station_json(const struct series_station *t)
{
	json_t *o =
	    json_pack("{s:o, s:b, s:b}", "name", str_json(t->name),
		      "associated", t->associated, "settled", t->settled);

	put_fields(o, t, station_nums, COUNT(station_nums));
	return o;
}

static void put_sweep(json_t *o, const struct series_step *s)
{
	json_t *atten = json_array(), *sts = json_array();

	for (size_t k = 0; k < s->n_atten; k++)
		json_array_append_new(
		    atten, json_pack("{s:o, s:o, s:o}", "path",
				     str_json(s->atten[k].path), "set_db",
				     json_num(s->atten[k].set_db), "read_db",
				     json_num(s->atten[k].read_db)));
	for (size_t k = 0; k < s->n_sta; k++)
		json_array_append_new(sts, station_json(&s->sta[k]));
	put_fields(o, s, step_sweep, COUNT(step_sweep));
	json_object_set_new(o, "x", json_num(s->x));
	json_object_set_new(o, "atten", atten);
	json_object_set_new(o, "stations", sts);
}

static void put_bisect(json_t *o, const struct series_step *s)
{
	json_t *runs = json_array();

	for (size_t k = 0; k < s->n_runs; k++)
		json_array_append_new(runs, str_json(s->runs[k]));
	put_fields(o, s, step_bisect, COUNT(step_bisect));
	/* a bisect's x counts its steps: an integer */
	json_object_set_new(o, "x",
			    fabs(s->x) < 1e15 ? json_integer((json_int_t)s->x)
					      : json_null());
	json_object_set_new(
	    o, "ci",
	    json_pack("[o, o]", json_num(s->ci_lo), json_num(s->ci_hi)));
	json_object_set_new(o, "runs", runs);
}

json_t *series_step_json(const struct series_step *s, const char *kind)
{
	bool sweep = kind && !strcmp(kind, "sweep");
	json_t *o;

	if (!sweep && !(kind && !strcmp(kind, "bisect")))
		return NULL;
	o = json_object();
	put_fields(o, s, step_common, COUNT(step_common));
	json_object_set_new(o, "run_id",
			    s->run_id[0] ? str_json(s->run_id) : json_null());
	if (sweep)
		put_sweep(o, s);
	else
		put_bisect(o, s);
	return o;
}

static int read_arrays(const json_t *v, struct series_step *s)
{
	const json_t *e, *ci = json_object_get(v, "ci");
	size_t i;

	s->ci_lo = json_is_number(json_array_get(ci, 0))
		       ? json_number_value(json_array_get(ci, 0))
		       : NAN;
	s->ci_hi = json_is_number(json_array_get(ci, 1))
		       ? json_number_value(json_array_get(ci, 1))
		       : NAN;
	json_array_foreach(json_object_get(v, "runs"), i, e)
	{
		if (json_is_string(e) &&
		    series_step_add_run(s, json_string_value(e)) < 0)
			return -1;
	}
	json_array_foreach(json_object_get(v, "atten"), i, e)
	{
		struct series_atten *a = series_step_add_atten(s);

		if (!a)
			return -1;
		copy_str(a->path, sizeof(a->path), json_str_at(e, "path", ""));
		a->set_db = json_num_at(e, "set_db");
		a->read_db = json_num_at(e, "read_db");
	}
	json_array_foreach(json_object_get(v, "stations"), i, e)
	{
		struct series_station *t = series_step_add_station(s);

		if (!t)
			return -1;
		copy_str(t->name, sizeof(t->name), json_str_at(e, "name", ""));
		t->associated = json_is_true(json_object_get(e, "associated"));
		t->settled = json_is_true(json_object_get(e, "settled"));
		get_fields(e, t, station_nums, COUNT(station_nums));
	}
	return 0;
}

int series_step_read(const json_t *v, struct series_step *s)
{
	series_step_init(s);
	get_fields(v, s, step_common, COUNT(step_common));
	get_fields(v, s, step_sweep, COUNT(step_sweep));
	get_fields(v, s, step_bisect, COUNT(step_bisect));
	copy_str(s->run_id, sizeof(s->run_id), json_str_at(v, "run_id", ""));
	s->x = json_num_at(v, "x");
	if (read_arrays(v, s) < 0) {
		series_step_free(s);
		return -1;
	}
	return 0;
}

/* ---- the record ---------------------------------------------------------- */

static const char **head_str(const struct series_doc *d, size_t k)
{
	return (const char **)((char *)d + head_strs[k].off);
}

void series_doc_head_set(json_t *root, const struct series_doc *d)
{
	for (size_t k = 0; k < COUNT(head_strs); k++)
		if (*head_str(d, k))
			json_object_set_new(root, head_strs[k].key,
					    str_json(*head_str(d, k)));
	if (d->first_bad)
		json_object_set_new(
		    root, "first_bad",
		    json_pack("{s:o, s:o}", "rev", str_json(d->first_bad),
			      "parent", str_json(d->parent ? d->parent : "")));
}

json_t *series_doc_head_json(const struct series_doc *d)
{
	json_t *root = json_object();

	series_doc_head_set(root, d);
	json_object_set_new(root, "steps", json_array());
	return root;
}

json_t *series_doc_add_step(json_t *root, const struct series_step *s)
{
	json_t *steps = json_object_get(root, "steps");
	json_t *v = series_step_json(s, json_str_at(root, "kind", NULL));

	if (!v || !json_is_array(steps)) {
		json_decref(v);
		return NULL;
	}
	json_array_append_new(steps, v);
	return v;
}

void series_doc_head_get(const json_t *root, struct series_doc *d)
{
	const json_t *fb = json_object_get(root, "first_bad");

	for (size_t k = 0; k < COUNT(head_strs); k++)
		*head_str(d, k) = json_str_at(root, head_strs[k].key, NULL);
	d->first_bad = json_str_at(fb, "rev", NULL);
	d->parent = json_str_at(fb, "parent", NULL);
}

/* What makes a record a series: the store indexes it by these. */
static int check_head(const json_t *root, const char *name, struct al_err *err)
{
	struct series_doc h;

	series_doc_head_get(root, &h);
	if (!h.id || !h.id[0] || !h.kind || !h.status ||
	    !json_is_array(json_object_get(root, "steps")))
		return al_errf(err,
			       "%s: no \"id\", \"kind\", \"status\" or "
			       "\"steps\": not a sweep or bisect record",
			       name);
	return 0;
}

int series_doc_write(json_t *root, const char *file, struct al_err *err)
{
	if (check_head(root, file, err) < 0)
		return -1;
	return json_write_atomic(root, file, 1, err);
}

size_t series_doc_n_steps(const json_t *root)
{
	return json_array_size(json_object_get(root, "steps"));
}

int series_doc_step(const json_t *root, size_t i, struct series_step *s)
{
	const json_t *v = json_array_get(json_object_get(root, "steps"), i);

	if (!v) {
		series_step_init(s);
		return -1;
	}
	return series_step_read(v, s);
}

/* d from d->root, as read from name. */
static int series_doc_fill(struct series_doc *d, const char *name,
			   struct al_err *err)
{
	const json_t *steps = json_object_get(d->root, "steps");
	bool ok;

	if (check_head(d->root, name, err) < 0) {
		series_doc_free(d);
		return -1;
	}
	series_doc_head_get(d->root, d);
	d->n_steps = json_array_size(steps);
	ok = !d->n_steps ||
	     (d->steps = calloc(d->n_steps, sizeof(*d->steps))) != NULL;
	for (size_t i = 0; ok && i < d->n_steps; i++)
		ok = series_step_read(json_array_get(steps, i), &d->steps[i]) ==
		     0;
	if (!ok) {
		series_doc_free(d);
		return al_errf(err, "%s: out of memory", name);
	}
	return 0;
}

/* d from text, or from the file name when text is NULL. */
static int series_doc_load(const char *text, size_t len, const char *name,
			   struct series_doc *d, struct al_err *err)
{
	json_error_t jerr;

	memset(d, 0, sizeof(*d));
	d->root = text ? json_loadb(text, len, 0, &jerr)
		       : json_load_file(name, 0, &jerr);
	if (!d->root)
		return al_errf(err, "%s:%d: %s", name, jerr.line, jerr.text);
	return series_doc_fill(d, name, err);
}

int series_doc_read(const char *file, struct series_doc *d, struct al_err *err)
{
	return series_doc_load(NULL, 0, file, d, err);
}

int series_doc_parse(const char *text, size_t len, const char *name,
		     struct series_doc *d, struct al_err *err)
{
	return series_doc_load(text, len, name, d, err);
}

void series_doc_free(struct series_doc *d)
{
	for (size_t i = 0; d->steps && i < d->n_steps; i++)
		series_step_free(&d->steps[i]);
	free(d->steps);
	json_decref(d->root);
	memset(d, 0, sizeof(*d));
}
