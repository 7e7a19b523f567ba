/* run.json: its keys, writer and reader (run_doc.h). */
#include "run_doc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/json_file.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *section(json_t *v)
{
	return v ? json_incref(v) : json_null();
}

int run_doc_write(const char *dir, const struct run_doc *d, struct al_err *err)
{
	const struct {
		const char *key;
		const char *val;
	} strs[] = {
	    {"id", d->id},
	    {"status", d->status},
	    {"reasons", d->reasons ? d->reasons : ""},
	    {"suite", d->suite},
	    {"plot", d->plot},
	    {"variant", d->variant},
	    {"lab", d->lab},
	    {"lab_file", d->lab_file},
	    {"topology", d->topology},
	    {"topology_file", d->topology_file},
	    {"kernel", d->kernel},
	    {"hostapd", d->hostapd},
	    {"wpa_supplicant", d->wpa_supplicant},
	    {"airlab_commit", d->airlab_commit},
	    {"start", d->start},
	    {"end", d->end},
	    {"flent_file", d->flent_file},
	};
	const struct {
		const char *key;
		json_t *val;
	} secs[] = {
	    {"ap", d->ap},
	    {"knobs", d->knobs},
	    {"dut_image", d->dut_image},
	    {"boot", d->boot},
	    {"stations", d->stations},
	    {"summary", d->summary},
	    {"flows", d->flows},
	    {"station_goodput", d->station_goodput},
	    {"airtime", d->airtime},
	    {"link", d->link},
	};
	json_t *root;
	char path[4200];
	int rc;

	if (!d->id || !d->id[0] || !d->status)
		return al_errf(err,
			       "%s/run.json: a run record needs an id and "
			       "a status",
			       dir);
	root = json_object();
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		json_object_set_new(root, strs[i].key,
				    str_or_null(strs[i].val));
	json_object_set_new(root, "length_s", json_num(d->length_s));
	json_object_set_new(root, "step_s", json_num(d->step_s));
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		json_object_set_new(root, secs[i].key, section(secs[i].val));
	if (d->lava)
		json_object_set(root, "lava", d->lava);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	rc = json_write_atomic(root, path, 1, err);
	json_decref(root);
	return rc;
}

/* Runs written before run.json named its suite: the id is
 * STAMP-SUITE-VARIANT[-N] and suite names have no '-'. */
static void suite_of_id(const char *id, char *out, size_t len)
{
	const char *a = strchr(id, '-');
	const char *b = a ? strchr(a + 1, '-') : NULL;

	snprintf(out, len, "%.*s", a && b ? (int)(b - a - 1) : 0,
		 a ? a + 1 : "");
}

/* An array of n elements of size sz, or NULL when n is 0 or memory is
 * short (*ok cleared). */
static void *alloc_n(size_t n, size_t sz, bool *ok)
{
	void *p;

	if (!n)
		return NULL;
	if (!(p = calloc(n, sz)))
		*ok = false;
	return p;
}

static void read_figures(struct run_doc *d, bool *ok)
{
	size_t n = 0;

	d->figures =
	    alloc_n(json_object_size(d->summary), sizeof(*d->figures), ok);
	for (void *it = json_object_iter(d->summary); it && d->figures;
	     it = json_object_iter_next(d->summary, it)) {
		json_t *v = json_object_iter_value(it);

		if (!json_is_number(v) && !json_is_null(v))
			continue;
		d->figures[n].name = json_object_iter_key(it);
		d->figures[n++].value =
		    json_is_number(v) ? json_number_value(v) : NAN;
	}
	d->n_figures = n;
}

/* Every entry of arr that has a string member key, as rows of sz bytes
 * that fill sets from the entry (name: that member); *n of them. */
static void *read_rows(json_t *arr, const char *key, size_t sz, size_t *n,
		       bool *ok, void (*fill)(void *, const char *, json_t *))
{
	char *rows = alloc_n(json_array_size(arr), sz, ok);
	json_t *v;
	size_t i;

	*n = 0;
	json_array_foreach(arr, i, v)
	{
		const char *name = json_str_at(v, key, NULL);

		if (!rows || !name)
			continue;
		fill(rows + *n * sz, name, v);
		++*n;
	}
	return rows;
}

static void fill_station(void *row, const char *name, json_t *v)
{
	struct run_doc_station *s = row;

	s->name = name;
	s->wpa_state = json_str_at(v, "wpa_state", NULL);
	s->associated = json_is_true(json_object_get(v, "associated"));
	s->assoc_s = json_num_at(v, "assoc_s");
	s->signal_dbm = json_num_at(v, "signal_dbm");
	s->txrate_mbps = json_num_at(v, "txrate_mbps");
}

static void fill_goodput(void *row, const char *name, json_t *v)
{
	struct run_doc_goodput *g = row;

	g->station = name;
	g->up_mbps = json_num_at(v, "up_mbps");
	g->down_mbps = json_num_at(v, "down_mbps");
}

static void fill_flow(void *row, const char *name, json_t *v)
{
	struct run_doc_flow *f = row;

	f->series = name;
	f->station = json_str_at(v, "station", NULL);
	f->direction = json_str_at(v, "direction", NULL);
	f->mean_mbps = json_num_at(v, "mean_mbps");
}

static void fill_link(void *row, const char *name, json_t *v)
{
	struct run_doc_link *l = row;

	l->station = name;
	l->rate_mbps = json_num_at(v, "rate_mbps");
	l->tx_bitrate_mbps = json_num_at(v, "tx_bitrate_mbps");
	l->signal_dbm = json_num_at(v, "signal_dbm");
	l->retries = json_num_at(v, "retries");
	l->failed = json_num_at(v, "failed");
}

static void fill_share(void *row, const char *name, json_t *v)
{
	struct run_doc_share *s = row;

	s->station = name;
	s->share = json_num_at(v, "share");
}

static void read_airtime(struct run_doc *d, bool *ok)
{
	d->air = alloc_n(json_object_size(d->airtime), sizeof(*d->air), ok);
	for (void *it = json_object_iter(d->airtime); it && d->air;
	     it = json_object_iter_next(d->airtime, it)) {
		struct run_doc_airtime *a = &d->air[d->n_air++];
		json_t *src = json_object_iter_value(it);

		a->source = json_object_iter_key(it);
		a->error = json_str_at(src, "error", NULL);
		a->jain = json_num_at(src, "jain");
		a->sta = read_rows(json_object_get(src, "stations"), "name",
				   sizeof(*a->sta), &a->n, ok, fill_share);
	}
}

static json_t *member(json_t *root, const char *key)
{
	json_t *v = json_object_get(root, key);

	return json_is_null(v) ? NULL : v;
}

/* d from d->root, as read from path. */
static int run_doc_fill(struct run_doc *d, const char *path, struct al_err *err)
{
	json_t *r = d->root;
	bool ok = true;

	d->id = json_str_at(r, "id", NULL);
	d->status = json_str_at(r, "status", NULL);
	if (!json_is_object(r) || !d->id || !d->id[0] || !d->status) {
		run_doc_free(d);
		return al_errf(
		    err, "%s: no \"id\" or \"status\": not a run.json", path);
	}
	d->reasons = json_str_at(r, "reasons", NULL);
	d->suite = json_str_at(r, "suite", NULL);
	if (!d->suite) {
		suite_of_id(d->id, d->suite_buf, sizeof(d->suite_buf));
		d->suite = d->suite_buf;
	}
	d->plot = json_str_at(r, "plot", NULL);
	d->variant = json_str_at(r, "variant", NULL);
	d->lab = json_str_at(r, "lab", NULL);
	d->lab_file = json_str_at(r, "lab_file", NULL);
	d->topology = json_str_at(r, "topology", NULL);
	d->topology_file = json_str_at(r, "topology_file", NULL);
	d->kernel = json_str_at(r, "kernel", NULL);
	d->hostapd = json_str_at(r, "hostapd", NULL);
	d->wpa_supplicant = json_str_at(r, "wpa_supplicant", NULL);
	d->airlab_commit = json_str_at(r, "airlab_commit", NULL);
	d->start = json_str_at(r, "start", NULL);
	d->end = json_str_at(r, "end", NULL);
	d->flent_file = json_str_at(r, "flent_file", NULL);
	d->length_s = json_num_at(r, "length_s");
	d->step_s = json_num_at(r, "step_s");
	d->ap = member(r, "ap");
	d->knobs = member(r, "knobs");
	d->dut_image = member(r, "dut_image");
	d->boot = member(r, "boot");
	d->stations = member(r, "stations");
	d->summary = member(r, "summary");
	d->flows = member(r, "flows");
	d->station_goodput = member(r, "station_goodput");
	d->airtime = member(r, "airtime");
	d->link = member(r, "link");
	d->lava = member(r, "lava");
	d->dut_image_name = json_str_at(d->dut_image, "image", NULL);
	if (!d->dut_image_name)
		d->dut_image_name = json_str_at(d->dut_image, "driver", NULL);
	read_figures(d, &ok);
	d->sta = read_rows(d->stations, "name", sizeof(*d->sta), &d->n_sta, &ok,
			   fill_station);
	d->goodput = read_rows(d->station_goodput, "name", sizeof(*d->goodput),
			       &d->n_goodput, &ok, fill_goodput);
	d->flow = read_rows(d->flows, "series", sizeof(*d->flow), &d->n_flow,
			    &ok, fill_flow);
	d->links = read_rows(d->link, "name", sizeof(*d->links), &d->n_links,
			     &ok, fill_link);
	read_airtime(d, &ok);
	if (!ok) {
		run_doc_free(d);
		return al_errf(err, "%s: out of memory", path);
	}
	return 0;
}

int run_doc_read(const char *dir, struct run_doc *d, struct al_err *err)
{
	char path[4200];
	json_error_t jerr;

	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), "%s/run.json", dir);
	if (!(d->root = json_load_file(path, 0, &jerr)))
		return al_errf(err, "%s:%d: %s", path, jerr.line, jerr.text);
	return run_doc_fill(d, path, err);
}

int run_doc_parse(const char *text, size_t len, const char *name,
		  struct run_doc *d, struct al_err *err)
{
	json_error_t jerr;

	memset(d, 0, sizeof(*d));
	if (!(d->root = json_loadb(text, len, 0, &jerr)))
		return al_errf(err, "%s:%d: %s", name, jerr.line, jerr.text);
	return run_doc_fill(d, name, err);
}

void run_doc_free(struct run_doc *d)
{
	for (size_t i = 0; d->air && i < d->n_air; i++)
		free(d->air[i].sta);
	free(d->air);
	free(d->figures);
	free(d->sta);
	free(d->goodput);
	free(d->flow);
	free(d->links);
	json_decref(d->root);
	memset(d, 0, sizeof(*d));
}

double run_doc_figure(const struct run_doc *d, const char *name)
{
	for (size_t i = 0; i < d->n_figures; i++)
		if (!strcmp(d->figures[i].name, name))
			return d->figures[i].value;
	return NAN;
}

const struct run_doc_airtime *run_doc_airtime(const struct run_doc *d,
					      const char *source)
{
	for (size_t i = 0; i < d->n_air; i++)
		if (!strcmp(d->air[i].source, source) && d->air[i].n)
			return &d->air[i];
	return NULL;
}
