#include "plan.h"

#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "../results/compare.h"
#include "../suites/suites.h"
#include "../lab/ydoc.h"

static const char *const top_keys[] = {"name",	     "lab",    "topology",
				       "variants",   "suites", "repeat",
				       "thresholds", NULL};
static const char *const suite_keys[] = {"name", "length", "streams", NULL};

static yaml_node_t *item(struct ydoc *d, yaml_node_t *seq, int i)
{
	yaml_node_item_t *it = seq->data.sequence.items.start + i;

	if (it >= seq->data.sequence.items.top)
		return NULL;
	return yaml_document_get_node(&d->doc, *it);
}

static int seq_len(const yaml_node_t *seq)
{
	return (int)(seq->data.sequence.items.top -
		     seq->data.sequence.items.start);
}

/* A path in the plan, relative to the plan file's directory. */
static void resolve(const struct plan *p, const char *v, char *out, size_t len)
{
	char dir[4096];

	if (!v[0] || v[0] == '/') {
		snprintf(out, len, "%s", v);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", p->path);
	snprintf(out, len, "%.2000s/%.2000s", dirname(dir), v);
}

static int load_suite(struct plan *p, struct ydoc *d, yaml_node_t *n,
		      struct al_err *err)
{
	struct plan_suite *s = &p->suites[p->nsuites];
	char num[64];
	double v;
	long st;
	size_t nsuites;

	s->line = ydoc_line(n);
	if (ydoc_check_map(d, n, "suites item", suite_keys, 3, "keys", err) <
		0 ||
	    ydoc_get_str(d, n, "name", "suites item", 1, s->name,
			 sizeof(s->name), err) < 0)
		return -1;
	/* A suite file that does not load says where itself. */
	if (!suite_list(&nsuites, err))
		return -1;
	if (!suite_find(s->name, err))
		return ydoc_errf(d, ydoc_get(d, n, "name", NULL), err, "%s",
				 err->msg);
	if (ydoc_get_str(d, n, "length", s->name, 0, num, sizeof(num), err) < 0)
		return -1;
	if (num[0] && (ydoc_parse_double(num, &v) < 0 || v < 1 || v > 86400))
		return ydoc_errf(d, ydoc_get(d, n, "length", NULL), err,
				 "%s: length '%s' is not a number of seconds "
				 "in 1..86400",
				 s->name, num);
	s->length_s = num[0] ? v : 0;
	if (ydoc_get_str(d, n, "streams", s->name, 0, num, sizeof(num), err) <
	    0)
		return -1;
	if (num[0] && (ydoc_parse_long(num, &st) < 0 || st < 1 || st > 1024))
		return ydoc_errf(d, ydoc_get(d, n, "streams", NULL), err,
				 "%s: streams '%s' is not in 1..1024", s->name,
				 num);
	s->streams = num[0] ? (unsigned)st : 0;
	p->nsuites++;
	return 0;
}

static int finish(struct plan *p, struct ydoc *d, int loaded,
		  struct al_err *err)
{
	yaml_node_t *root, *v;
	char buf[4096], num[64];
	long rep;

	if (loaded < 0)
		return -1;
	root = ydoc_root(d);
	if (!root)
		return ydoc_errf(d, NULL, err, "empty file");
	if (ydoc_check_map(d, root, "plan", top_keys, 7, "keys", err) < 0 ||
	    ydoc_get_str(d, root, "name", "plan", 1, p->name, sizeof(p->name),
			 err) < 0 ||
	    ydoc_get_str(d, root, "lab", "plan", 0, buf, sizeof(buf), err) < 0)
		return -1;
	resolve(p, buf, p->lab, sizeof(p->lab));
	if (ydoc_get_str(d, root, "topology", "plan", 0, buf, sizeof(buf),
			 err) < 0)
		return -1;
	resolve(p, buf, p->topology, sizeof(p->topology));

	v = ydoc_get(d, root, "variants", NULL);
	if (!v || v->type != YAML_SEQUENCE_NODE || seq_len(v) == 0)
		return ydoc_errf(d, v ? v : root, err,
				 "plan: 'variants' must be a list of 1..%d "
				 "variant names",
				 PLAN_MAX_VARIANTS);
	for (int i = 0; i < seq_len(v); i++) {
		const char *name;

		if (i == PLAN_MAX_VARIANTS)
			return ydoc_errf(d, item(d, v, i), err,
					 "plan: more than %d variants",
					 PLAN_MAX_VARIANTS);
		if (ydoc_scalar_value(d, item(d, v, i), "variants", "variant",
				      &name, err) < 0)
			return -1;
		if (!ydoc_name_ok(name, sizeof(p->variants[0]) - 1, "._-", 0))
			return ydoc_errf(d, item(d, v, i), err,
					 "plan: variant '%s' is not a variant "
					 "name ([A-Za-z0-9._-])",
					 name);
		p->variant_line[p->nvariants] = ydoc_line(item(d, v, i));
		snprintf(p->variants[p->nvariants++], sizeof(p->variants[0]),
			 "%s", name);
	}

	v = ydoc_get(d, root, "suites", NULL);
	if (!v || v->type != YAML_SEQUENCE_NODE || seq_len(v) == 0)
		return ydoc_errf(d, v ? v : root, err,
				 "plan: 'suites' must be a list of 1..%d "
				 "{name, length, streams} maps",
				 PLAN_MAX_SUITES);
	for (int i = 0; i < seq_len(v); i++) {
		if (i == PLAN_MAX_SUITES)
			return ydoc_errf(d, item(d, v, i), err,
					 "plan: more than %d suites",
					 PLAN_MAX_SUITES);
		if (load_suite(p, d, item(d, v, i), err) < 0)
			return -1;
	}

	if (ydoc_get_str(d, root, "repeat", "plan", 0, num, sizeof(num), err) <
	    0)
		return -1;
	p->repeat = 1;
	if (num[0]) {
		if (ydoc_parse_long(num, &rep) < 0 || rep < 1 || rep > 100)
			return ydoc_errf(
			    d, ydoc_get(d, root, "repeat", NULL), err,
			    "plan: repeat '%s' is not in 1..100", num);
		p->repeat = (int)rep;
	}

	v = ydoc_get(d, root, "thresholds", NULL);
	if (v) {
		size_t nm;
		const struct cmp_metric *ms = cmp_metrics(&nm);
		const char *known[PLAN_MAX_METRICS + 1] = {NULL};

		for (size_t i = 0; i < nm && i < PLAN_MAX_METRICS; i++)
			known[i] = ms[i].name;
		if (ydoc_check_map(d, v, "thresholds", known, PLAN_MAX_METRICS,
				   "metrics", err) < 0)
			return -1;
		for (int i = 0; i < ydoc_map_len(v); i++) {
			const char *metric = ydoc_scalar(ydoc_map_key(d, v, i));
			double t;

			if (ydoc_get_str(d, v, metric, "thresholds", 1, num,
					 sizeof(num), err) < 0)
				return -1;
			if (ydoc_parse_double(num, &t) < 0 || t < 0 || t > 10)
				return ydoc_errf(
				    d, ydoc_map_value(d, v, i), err,
				    "thresholds: %s '%s' is not a fraction "
				    "from 0 to 10 (0.05 = 5%%)",
				    metric, num);
			snprintf(p->thresholds[p->nthresholds].metric,
				 sizeof(p->thresholds[0].metric), "%s", metric);
			p->thresholds[p->nthresholds++].value = t;
		}
	}
	return 0;
}

int plan_load(struct plan *p, const char *path, struct al_err *err)
{
	struct ydoc d = {0};
	int rc;

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	rc = finish(p, &d, ydoc_load_file(&d, path, err), err);
	ydoc_free(&d);
	return rc;
}

int plan_load_buf(struct plan *p, const char *name, const void *buf, size_t len,
		  struct al_err *err)
{
	struct ydoc d = {0};
	int rc;

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", name);
	rc = finish(p, &d, ydoc_load_buf(&d, name, buf, len, err), err);
	ydoc_free(&d);
	return rc;
}

double plan_threshold(const struct plan *p, const char *metric, double dflt)
{
	for (int i = 0; i < p->nthresholds; i++)
		if (!strcmp(p->thresholds[i].metric, metric))
			return p->thresholds[i].value;
	return dflt;
}
