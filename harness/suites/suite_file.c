/* Suite files: suites/NAME.suite, one YAML map per suite (the format is in
 * suites/README.md), read into struct suite at run time from the tree's
 * suites directory and the user's. Every mistake in a file is one
 * "path:line: what" error (bad input), caught here before anything runs:
 * unknown keys, a kind or scope that is not one, a series name whose
 * copies would collide, lists that do not go together. */
#include "suites.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../agent/agent_proto.h"
#include "../lab/ydoc.h"
#include "../util/path.h"

#define EXT	     ".suite"
#define NAME_LEN     31 /* a plan file holds a suite name in 32 bytes */
#define TEXT_LEN     255
#define MAX_FLOWS    64
#define MAX_LABELS   64
#define MAX_COMPUTED 32
#define MAX_FILES    256
#define MAX_INTERVAL 60000
#define MAX_DELAY_S  3600
#define MAX_LENGTH_S 86400
#define MAX_STREAMS  1024
#define ESCAPES                                                                \
	"%i (copy number), %h (station), %l (label), "                         \
	"%p (ping label), %% (a %)"

static const char *const top_keys[] = {
    "description", "flent",	    "plot",   "length", "delay",    "step",
    "streams",	   "streams_param", "report", "flows",	"computed", NULL};
static const char *const flow_keys[] = {
    "kind",	"scope",       "series", "marking",	"labels",
    "markings", "ping_labels", "bulk",	 "interval_ms", NULL};
static const char *const computed_keys[] = {"name", "prefix", "op", "units",
					    NULL};

/* ---- memory: every string and list of a suite, freed at once ---------- */

struct blk {
	struct blk *next;
	max_align_t data[];
};

struct suite_mem {
	struct blk *head;
};

static void *mem_alloc(struct suite_mem *m, size_t size)
{
	struct blk *b = calloc(1, sizeof(*b) + size);

	if (!b)
		return NULL;
	b->next = m->head;
	m->head = b;
	return b->data;
}

static const char *mem_str(struct suite_mem *m, const char *s)
{
	char *c = mem_alloc(m, strlen(s) + 1);

	if (c)
		memcpy(c, s, strlen(s) + 1);
	return c;
}

static void mem_free(struct suite_mem *m)
{
	while (m && m->head) {
		struct blk *b = m->head;

		m->head = b->next;
		free(b);
	}
	free(m);
}

void suite_free(struct suite *s)
{
	mem_free(s->mem);
	memset(s, 0, sizeof(*s));
}

/* ---- one file ----------------------------------------------------------- */

struct pctx {
	struct ydoc *d;
	struct suite_mem *m;
	struct al_err *err;
};

static int oom(struct pctx *c)
{
	return al_errf(c->err, "%s: out of memory reading the suite",
		       c->d->name);
}

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* The text of scalar node v (for key of what): one line, 1..maxlen bytes,
 * kept in the suite's memory. */
static int node_text(struct pctx *c, yaml_node_t *v, const char *what,
		     const char *key, size_t maxlen, const char **out)
{
	const char *s;

	if (ydoc_scalar_value(c->d, v, what, key, &s, c->err) < 0)
		return -1;
	if (!*s || strlen(s) > maxlen || !printable(s))
		return ydoc_errf(c->d, v, c->err,
				 "%s: '%s' must be one line of 1..%zu "
				 "characters",
				 what, key, maxlen);
	*out = mem_str(c->m, s);
	return *out ? 0 : oom(c);
}

/* The text of map key; NULL when absent and not required. */
static int get_text(struct pctx *c, yaml_node_t *map, const char *key,
		    const char *what, int required, size_t maxlen,
		    const char **out)
{
	yaml_node_t *v = ydoc_get(c->d, map, key, NULL);

	*out = NULL;
	if (!v && required)
		return ydoc_errf(c->d, map, c->err, "%s: '%s' is missing", what,
				 key);
	return v ? node_text(c, v, what, key, maxlen, out) : 0;
}

/* A name Flent or the command line takes: a-z, 0-9, _ and -. */
static int get_word(struct pctx *c, yaml_node_t *map, const char *key,
		    const char *what, int required, const char **out)
{
	if (get_text(c, map, key, what, required, NAME_LEN, out) < 0)
		return -1;
	if (*out && !ydoc_name_ok(*out, NAME_LEN, "_-", 1))
		return ydoc_errf(c->d, ydoc_get(c->d, map, key, NULL), c->err,
				 "%s: %s '%s' is not a name (a-z, 0-9, _ "
				 "and -)",
				 what, key, *out);
	return 0;
}

/* A number in lo..hi; *out untouched when absent and not required. */
static int get_num(struct pctx *c, yaml_node_t *map, const char *key,
		   const char *what, int required, double lo, double hi,
		   const char *units, double *out)
{
	yaml_node_t *v = ydoc_get(c->d, map, key, NULL);
	const char *s;
	double x;

	if (!v && required)
		return ydoc_errf(c->d, map, c->err, "%s: '%s' is missing", what,
				 key);
	if (!v)
		return 0;
	if (ydoc_scalar_value(c->d, v, what, key, &s, c->err) < 0)
		return -1;
	if (ydoc_parse_double(s, &x) < 0 || x < lo || x > hi)
		return ydoc_errf(c->d, v, c->err,
				 "%s: %s '%.40s' is not a number of %s in "
				 "%g..%g",
				 what, key, s, units, lo, hi);
	*out = x;
	return 0;
}

/* One of names[] (NULL-terminated); *out is its index, def when absent. */
static int get_choice(struct pctx *c, yaml_node_t *map, const char *key,
		      const char *what, int required, const char *const *names,
		      int def, int *out)
{
	const char *s;
	char list[128] = "";

	*out = def;
	if (get_text(c, map, key, what, required, NAME_LEN, &s) < 0)
		return -1;
	if (!s)
		return 0;
	for (int i = 0; names[i]; i++) {
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", i ? ", " : "", names[i]);
	}
	return ydoc_errf(c->d, ydoc_get(c->d, map, key, NULL), c->err,
			 "%s: %s '%s' is not one of %s", what, key, s, list);
}

/* The list at key of 1..max items (shape says what), and room for as many
 * of size bytes: their number, 0 when absent and not required, or -1. */
static int seq_room(struct pctx *c, yaml_node_t *map, const char *key,
		    const char *what, int required, int max, const char *shape,
		    size_t size, yaml_node_t **seq, void **room)
{
	yaml_node_t *v = ydoc_get(c->d, map, key, NULL);
	int n = ydoc_seq_len(v);

	*seq = v;
	*room = NULL;
	if (!v && !required)
		return 0;
	if (!v || v->type != YAML_SEQUENCE_NODE || n < 1 || n > max)
		return ydoc_errf(c->d, v ? v : map, c->err,
				 "%s: '%s' must be a list of 1..%d %s", what,
				 key, max, shape);
	*room = mem_alloc(c->m, (size_t)n * size);
	return *room ? n : oom(c);
}

/* A list of 1..MAX_LABELS names. */
static int get_list(struct pctx *c, yaml_node_t *map, const char *key,
		    const char *what, const char ***out, size_t *n)
{
	yaml_node_t *v;
	void *room;
	int len = seq_room(c, map, key, what, 0, MAX_LABELS, "names",
			   sizeof(**out), &v, &room);
	const char **l = room;

	*out = NULL;
	*n = 0;
	if (len < 0)
		return -1;
	for (int i = 0; i < len; i++)
		if (node_text(c, ydoc_seq_item(c->d, v, i), what, key, NAME_LEN,
			      &l[i]) < 0)
			return -1;
	*out = l;
	*n = (size_t)len;
	return 0;
}

/* A DSCP name the agent knows (CS0..CS7, EF, AFxy, ...). */
static int marking_ok(const char *m)
{
	return strlen(m) < sizeof(((struct suite_flow *)0)->marking) &&
	       ((*m >= 'A' && *m <= 'Z') || (*m >= 'a' && *m <= 'z')) &&
	       agent_dscp_tos(m) >= 0;
}

static int bad_marking(struct pctx *c, yaml_node_t *n, const char *what,
		       const char *m)
{
	return ydoc_errf(c->d, n, c->err,
			 "%s: marking '%s' is not a DSCP name (CS0..CS7, EF, "
			 "AF11..AF43, ...)",
			 what, m);
}

/* The escapes in a series name; NULL when they are all known, else the
 * first unknown one. has gets which were there. */
static const char *bad_escape(const char *p, char *has, size_t len)
{
	size_t n = 0;

	for (; *p; p++) {
		if (*p != '%')
			continue;
		if (!p[1] || !strchr("ihlp%", p[1]))
			return p;
		if (n + 1 < len && !strchr(has, p[1])) {
			has[n++] = p[1];
			has[n] = 0;
		}
		p++;
	}
	return NULL;
}

/* The lists of a flow go together: copy i takes item i of each. */
static int flow_lists(struct pctx *c, yaml_node_t *n, struct suite_item *it)
{
	static const char *const keys[] = {"labels", "markings", "ping_labels"};
	const char **l[3];
	size_t len[3], first = 3;

	for (size_t k = 0; k < 3; k++) {
		if (get_list(c, n, keys[k], "flows item", &l[k], &len[k]) < 0)
			return -1;
		if (!l[k])
			continue;
		if (first == 3)
			first = k;
		else if (len[k] != len[first])
			return ydoc_errf(
			    c->d, ydoc_get(c->d, n, keys[k], NULL), c->err,
			    "flows item: '%s' has %zu items and "
			    "'%s' %zu: copy i takes item i of "
			    "each, so they are as long",
			    keys[k], len[k], keys[first], len[first]);
		it->n_labels = len[k];
	}
	it->labels = l[0];
	it->markings = l[1];
	it->ping_labels = l[2];
	for (size_t i = 0; it->markings && i < it->n_labels; i++)
		if (!marking_ok(it->markings[i]))
			return bad_marking(
			    c,
			    ydoc_seq_item(c->d,
					  ydoc_get(c->d, n, "markings", NULL),
					  (int)i),
			    "flows item", it->markings[i]);
	if (it->markings && it->marking)
		return ydoc_errf(c->d, ydoc_get(c->d, n, "marking", NULL),
				 c->err,
				 "flows item: 'marking' and 'markings' both "
				 "given (one marking for every copy, or one "
				 "each)");
	return 0;
}

static int load_flow(struct pctx *c, yaml_node_t *n, struct suite_item *it)
{
	static const char *const kinds[] = {"tcp-up", "tcp-down", "udp", "icmp",
					    NULL};
	static const char *const scopes[] = {"one", "each", "streams", NULL};
	static const char *const bools[] = {"false", "true", NULL};
	char has[8] = "";
	const char *bad;
	int kind, scope;
	double iv = 0;

	if (ydoc_check_map(c->d, n, "flows item", flow_keys, 9, "keys",
			   c->err) < 0 ||
	    get_choice(c, n, "kind", "flows item", 1, kinds, 0, &kind) < 0 ||
	    get_choice(c, n, "scope", "flows item", 0, scopes, 0, &scope) < 0 ||
	    get_text(c, n, "series", "flows item", 1, SUITE_SERIES_MAX - 1,
		     &it->series) < 0 ||
	    get_text(c, n, "marking", "flows item", 0, NAME_LEN, &it->marking) <
		0 ||
	    get_choice(c, n, "bulk", "flows item", 0, bools, 0, &it->bulk) <
		0 ||
	    get_num(c, n, "interval_ms", "flows item", 0, 1, MAX_INTERVAL,
		    "milliseconds", &iv) < 0)
		return -1;
	it->kind = (enum suite_kind)kind;
	it->scope = (enum suite_scope)scope;
	it->interval_ms = (unsigned)iv;
	if (iv != floor(iv))
		return ydoc_errf(c->d, ydoc_get(c->d, n, "interval_ms", NULL),
				 c->err,
				 "flows item: interval_ms '%g' is not a whole "
				 "number",
				 iv);
	if (iv && (it->kind == SUITE_TCP_UP || it->kind == SUITE_TCP_DOWN))
		return ydoc_errf(c->d, ydoc_get(c->d, n, "interval_ms", NULL),
				 c->err,
				 "flows item: interval_ms is for udp and icmp "
				 "probes, not %s",
				 suite_kind_name(it->kind));
	if (it->marking && !marking_ok(it->marking))
		return bad_marking(c, ydoc_get(c->d, n, "marking", NULL),
				   "flows item", it->marking);
	if ((bad = bad_escape(it->series, has, sizeof(has))))
		return ydoc_errf(c->d, ydoc_get(c->d, n, "series", NULL),
				 c->err,
				 "flows item: series '%s': '%.2s' is not "
				 "one of %s",
				 it->series, bad, ESCAPES);
	/* Copies need names of their own: they are the result file's keys. */
	if ((it->scope == SUITE_EACH && !strchr(has, 'h') &&
	     !strchr(has, 'i')) ||
	    (it->scope == SUITE_N_SPREAD && !strchr(has, 'i')))
		return ydoc_errf(c->d, ydoc_get(c->d, n, "series", NULL),
				 c->err,
				 "flows item: series '%s' names every copy "
				 "alike: scope %s needs %s in it",
				 it->series, scopes[scope],
				 it->scope == SUITE_EACH ? "%h or %i" : "%i");
	return flow_lists(c, n, it);
}

/* Two flows with the same series name and no labels in it always
 * collide. */
static int same_series(const struct suite_item *a, const struct suite_item *b)
{
	return !strcmp(a->series, b->series) && !strstr(a->series, "%l") &&
	       !strstr(a->series, "%p");
}

static int load_flows(struct pctx *c, yaml_node_t *root, struct suite *s)
{
	yaml_node_t *v;
	void *room;
	int n = seq_room(c, root, "flows", "suite", 1, MAX_FLOWS,
			 "flows and probes ({kind, series, ...})",
			 sizeof(struct suite_item), &v, &room);
	struct suite_item *items = room;

	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		yaml_node_t *f = ydoc_seq_item(c->d, v, i);

		if (load_flow(c, f, &items[i]) < 0)
			return -1;
		for (int j = 0; j < i; j++)
			if (same_series(&items[i], &items[j]))
				return ydoc_errf(
				    c->d, ydoc_get(c->d, f, "series", NULL),
				    c->err,
				    "flows item: series '%s' is also the "
				    "flow's at line %d (names must be "
				    "unique)",
				    items[i].series,
				    ydoc_line(ydoc_seq_item(c->d, v, j)));
	}
	s->items = items;
	s->n_items = (size_t)n;
	return 0;
}

static int load_computed(struct pctx *c, yaml_node_t *root, struct suite *s)
{
	static const char *const ops[] = {"sum", "avg", "fairness", NULL};
	static const enum flent_op op_of[] = {FLENT_SUM, FLENT_AVG,
					      FLENT_FAIRNESS};
	yaml_node_t *v;
	void *room;
	int n = seq_room(c, root, "computed", "suite", 0, MAX_COMPUTED,
			 "{name, prefix, op, units} maps",
			 sizeof(struct suite_computed), &v, &room);
	struct suite_computed *cs = room;

	if (n <= 0)
		return n;
	for (int i = 0; i < n; i++) {
		yaml_node_t *e = ydoc_seq_item(c->d, v, i);
		int op;

		if (ydoc_check_map(c->d, e, "computed item", computed_keys, 4,
				   "keys", c->err) < 0 ||
		    get_text(c, e, "name", "computed item", 1,
			     SUITE_SERIES_MAX - 1, &cs[i].name) < 0 ||
		    get_text(c, e, "prefix", "computed item", 1,
			     SUITE_SERIES_MAX - 1, &cs[i].prefix) < 0 ||
		    get_choice(c, e, "op", "computed item", 1, ops, 0, &op) <
			0 ||
		    get_text(c, e, "units", "computed item", 1, NAME_LEN,
			     &cs[i].units) < 0)
			return -1;
		cs[i].op = op_of[op];
		/* The Flent file has one series per name. */
		for (int j = 0; j < i; j++)
			if (!strcmp(cs[i].name, cs[j].name))
				return ydoc_errf(
				    c->d, ydoc_get(c->d, e, "name", NULL),
				    c->err,
				    "computed item: '%s' is also the name at "
				    "line %d",
				    cs[i].name,
				    ydoc_line(ydoc_seq_item(c->d, v, j)));
		for (size_t j = 0; j < s->n_items; j++)
			if (!strcmp(cs[i].name, s->items[j].series))
				return ydoc_errf(
				    c->d, ydoc_get(c->d, e, "name", NULL),
				    c->err,
				    "computed item: '%s' is a flow's series "
				    "name",
				    cs[i].name);
	}
	s->computed = cs;
	s->n_computed = (size_t)n;
	return 0;
}

/* report: [fairness, startup] */
static int load_report(struct pctx *c, yaml_node_t *root, struct suite *s)
{
	static const char *const names[] = {"fairness", "startup", NULL};
	static const unsigned bits[] = {SUITE_FAIRNESS, SUITE_STARTUP};
	yaml_node_t *v = ydoc_get(c->d, root, "report", NULL);

	if (v && v->type != YAML_SEQUENCE_NODE)
		return ydoc_errf(c->d, v, c->err,
				 "suite: 'report' must be a list of fairness "
				 "(Jain's index), startup (flows going within "
				 "2 s)");
	for (int i = 0; i < ydoc_seq_len(v); i++) {
		yaml_node_t *e = ydoc_seq_item(c->d, v, i);
		const char *w;
		int k = 0;

		if (node_text(c, e, "suite", "report", NAME_LEN, &w) < 0)
			return -1;
		while (names[k] && strcmp(names[k], w))
			k++;
		if (!names[k] || (s->flags & bits[k]))
			return ydoc_errf(c->d, e, c->err,
					 "suite: report '%s' is not one of "
					 "fairness, startup (each once)",
					 w);
		s->flags |= bits[k];
	}
	return 0;
}

/* The defaults and number of copies: what suite_expand takes. */
static int load_timing(struct pctx *c, yaml_node_t *root, struct suite *s)
{
	double step = 0.2, streams = 0;

	if (get_num(c, root, "length", "suite", 1, 1, MAX_LENGTH_S, "seconds",
		    &s->length_s) < 0 ||
	    get_num(c, root, "delay", "suite", 0, 0, MAX_DELAY_S, "seconds",
		    &s->delay_s) < 0 ||
	    get_num(c, root, "step", "suite", 0, 0.01, 60, "seconds", &step) <
		0 ||
	    get_num(c, root, "streams", "suite", 0, 1, MAX_STREAMS, "streams",
		    &streams) < 0 ||
	    get_word(c, root, "streams_param", "suite", 0, &s->streams_param) <
		0)
		return -1;
	s->step_ms = (unsigned)lround(step * 1000);
	s->streams = (unsigned)streams;
	if (fabs(step * 1000 - s->step_ms) > 1e-6 || step > s->length_s)
		return ydoc_errf(c->d, ydoc_get(c->d, root, "step", NULL),
				 c->err,
				 "suite: step %g s is not a whole number of "
				 "milliseconds at most the length",
				 step);
	if (streams != s->streams)
		return ydoc_errf(
		    c->d, ydoc_get(c->d, root, "streams", NULL), c->err,
		    "suite: streams '%g' is not a whole number", streams);
	if (!s->streams != !s->streams_param)
		return ydoc_errf(
		    c->d,
		    ydoc_get(c->d, root,
			     s->streams ? "streams" : "streams_param", NULL),
		    c->err,
		    "suite: 'streams' (the default number of "
		    "copies) and 'streams_param' (Flent's "
		    "name for it, e.g. upload_streams) go "
		    "together");
	return 0;
}

/* Flows of scope streams and the suite's streams go together. */
static int check_streams(struct pctx *c, yaml_node_t *root,
			 const struct suite *s)
{
	yaml_node_t *flows = ydoc_get(c->d, root, "flows", NULL);
	int any = 0;

	for (size_t i = 0; i < s->n_items; i++) {
		if (s->items[i].scope != SUITE_N_SPREAD)
			continue;
		any = 1;
		if (!s->streams)
			return ydoc_errf(
			    c->d, ydoc_seq_item(c->d, flows, (int)i), c->err,
			    "flows item: scope streams needs the suite's "
			    "'streams' (how many copies by default)");
	}
	if (s->streams && !any)
		return ydoc_errf(c->d, ydoc_get(c->d, root, "streams", NULL),
				 c->err,
				 "suite: 'streams' is given but no flow has "
				 "scope streams");
	return 0;
}

static int parse(struct pctx *c, struct suite *s)
{
	yaml_node_t *root = ydoc_root(c->d);

	if (!root)
		return ydoc_errf(c->d, NULL, c->err,
				 "empty file (a suite is a map: description, "
				 "flent, plot, length, flows, ...)");
	if (ydoc_check_map(c->d, root, "suite", top_keys, 11, "keys", c->err) <
		0 ||
	    get_text(c, root, "description", "suite", 1, TEXT_LEN,
		     &s->description) < 0 ||
	    get_word(c, root, "flent", "suite", 1, &s->flent_name) < 0 ||
	    get_word(c, root, "plot", "suite", 1, &s->plot) < 0 ||
	    load_timing(c, root, s) < 0 || load_report(c, root, s) < 0 ||
	    load_flows(c, root, s) < 0 || load_computed(c, root, s) < 0)
		return -1;
	return check_streams(c, root, s);
}

/* s from document d, which ydoc_load_* filled with result loaded. */
static int from_doc(struct suite *s, const char *name, struct ydoc *d,
		    int loaded, struct al_err *err)
{
	struct suite t = {0};
	struct pctx c = {.d = d, .err = err};
	int rc = loaded;

	if (rc == 0 && !(t.mem = c.m = calloc(1, sizeof(*c.m))))
		rc = oom(&c);
	if (rc == 0)
		rc = parse(&c, &t);
	if (rc == 0 && (!(t.name = mem_str(c.m, name)) ||
			!(t.path = mem_str(c.m, d->name))))
		rc = oom(&c);
	ydoc_free(d);
	if (rc < 0) {
		mem_free(c.m);
		return -1;
	}
	*s = t;
	return 0;
}

static int name_ok(const char *name, const char *path, struct al_err *err)
{
	if (ydoc_name_ok(name, NAME_LEN, "_-", 1))
		return 0;
	return al_err_input(err,
			    "%s:1: the suite's name '%.40s' (the file's) is "
			    "not 1..%d of a-z, 0-9, _ and -",
			    path, name, NAME_LEN);
}

int suite_parse(struct suite *s, const char *name, const char *path,
		const void *buf, size_t len, struct al_err *err)
{
	struct ydoc d;

	if (name_ok(name, path, err) < 0)
		return -1;
	return from_doc(s, name, &d, ydoc_load_buf(&d, path, buf, len, err),
			err);
}

int suite_load_file(struct suite *s, const char *path, struct al_err *err)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	char name[NAME_LEN + 2];
	struct ydoc d;

	/* NAME.suite; a name too long to be one is refused whole. */
	snprintf(name, sizeof(name), "%.*s",
		 (int)(n > strlen(EXT) ? n - strlen(EXT) : 0), base);
	if (name_ok(name, path, err) < 0)
		return -1;
	return from_doc(s, name, &d, ydoc_load_file(&d, path, err), err);
}

/* ---- the directories ---------------------------------------------------- */

/* 0 for a directory, else why not (an errno). */
static int not_dir(const char *p)
{
	struct stat st;

	if (stat(p, &st) < 0)
		return errno;
	return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

static int same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* out = the tree's suites directory (see suites.h). */
static int tree_dir(char *out, size_t len, struct al_err *err)
{
	const char *root = getenv("AIRLAB_ROOT");
	char bin[PATH_MAX], cand[PATH_MAX + 32], real[PATH_MAX];

	if (root && *root) {
		if ((size_t)snprintf(out, len, "%s/suites", root) >= len)
			return al_errf(err, "AIRLAB_ROOT is too long");
		return 0;
	}
	if (path_self_dir(bin, sizeof(bin)) < 0)
		return al_errf(err,
			       "cannot read /proc/self/exe to find the "
			       "suites (set AIRLAB_ROOT): %s",
			       strerror(errno));
	/* BIN/../suites in the tree, BIN/../share/airlab/suites installed. */
	snprintf(cand, sizeof(cand), "%s/../suites", bin);
	if (not_dir(cand))
		snprintf(cand, sizeof(cand), "%s/../share/airlab/suites", bin);
	if (not_dir(cand))
		return al_errf(err,
			       "no suites directory: neither %s/../suites "
			       "nor %s (set AIRLAB_ROOT to the airlab tree)",
			       bin, cand);
	if (realpath(cand, real))
		snprintf(cand, sizeof(cand), "%s", real);
	if ((size_t)snprintf(out, len, "%s", cand) >= len)
		return al_errf(err, "%s: path too long", cand);
	return 0;
}

/* out = the user's suites directory, "" for none (see suites.h). */
static int user_dir(char *out, size_t len, struct al_err *err)
{
	const char *env = getenv("AIRLAB_SUITES"), *base = NULL, *sub = NULL;
	int n;

	out[0] = 0;
	if (env) {
		if (*env && not_dir(env))
			return al_err_input(err, "AIRLAB_SUITES=%s: %s", env,
					    strerror(not_dir(env)));
		n = snprintf(out, len, "%s", env);
	} else {
		if ((base = getenv("XDG_CONFIG_HOME")) && base[0] == '/')
			sub = "airlab/suites";
		else if ((base = getenv("HOME")) && base[0] == '/')
			sub = ".config/airlab/suites";
		else
			return 0;
		n = snprintf(out, len, "%s/%s", base, sub);
		if (n >= 0 && (size_t)n < len && not_dir(out))
			out[0] = 0;
	}
	if (n < 0 || (size_t)n >= len)
		return al_errf(err, "the user's suites directory: path too "
				    "long");
	return 0;
}

int suite_dirs(char *tree, size_t tree_len, char *user, size_t user_len,
	       struct al_err *err)
{
	if (tree_dir(tree, tree_len, err) < 0 ||
	    user_dir(user, user_len, err) < 0)
		return -1;
	/* AIRLAB_SUITES set to the tree's: its files are the tree's. */
	if (user[0] && same_dir(tree, user))
		user[0] = 0;
	return 0;
}

/* ---- every suite -------------------------------------------------------- */

static struct {
	int state; /* 0: not read, 1: read, -1: did not load (err) */
	struct suite *v;
	size_t n, cap;
	struct al_err err;
} set;

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int by_suite_name(const void *a, const void *b)
{
	return strcmp(((const struct suite *)a)->name,
		      ((const struct suite *)b)->name);
}

/* The NAME.suite files of dir, sorted; *n of them in names. */
static int list_dir(const char *dir, char ***names, size_t *n,
		    struct al_err *err)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t len;

	*names = NULL;
	*n = 0;
	if (!dp)
		return al_errf(err, "%s: %s (the suites directory)", dir,
			       strerror(errno));
	while ((e = readdir(dp))) {
		len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len <= strlen(EXT) ||
		    strcmp(e->d_name + len - strlen(EXT), EXT))
			continue;
		if (*n == MAX_FILES) {
			closedir(dp);
			for (size_t i = 0; i < *n; i++)
				free(v[i]);
			free(v);
			return al_err_input(err, "%s: more than %d suite files",
					    dir, MAX_FILES);
		}
		if (!v && !(v = calloc(MAX_FILES, sizeof(*v))))
			break;
		if (!(v[*n] = strdup(e->d_name)))
			break;
		++*n;
	}
	closedir(dp);
	if (e) {
		for (size_t i = 0; i < *n; i++)
			free(v[i]);
		free(v);
		*n = 0;
		return al_errf(err, "%s: out of memory", dir);
	}
	if (*n)
		qsort(v, *n, sizeof(*v), by_name);
	*names = v;
	return 0;
}

/* s into the set; a user's suite replaces the tree's of its name. */
static int add(struct suite *s, struct al_err *err)
{
	for (size_t i = 0; i < set.n; i++) {
		if (strcmp(set.v[i].name, s->name))
			continue;
		s->overrides = mem_str(s->mem, set.v[i].path);
		if (!s->overrides)
			return al_errf(err, "%s: out of memory", s->path);
		suite_free(&set.v[i]);
		set.v[i] = *s;
		return 0;
	}
	if (set.n == set.cap) {
		size_t nc = set.cap ? set.cap * 2 : 16;
		struct suite *nv = realloc(set.v, nc * sizeof(*nv));

		if (!nv)
			return al_errf(err, "%s: out of memory", s->path);
		set.v = nv;
		set.cap = nc;
	}
	set.v[set.n++] = *s;
	return 0;
}

static int read_dir(const char *dir, struct al_err *err)
{
	char **names, path[PATH_MAX + 300];
	size_t n, i;
	int rc = 0;

	if (list_dir(dir, &names, &n, err) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		struct suite s;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		rc = suite_load_file(&s, path, err);
		if (rc == 0 && (rc = add(&s, err)) < 0)
			suite_free(&s);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

void suite_reload(void)
{
	for (size_t i = 0; i < set.n; i++)
		suite_free(&set.v[i]);
	free(set.v);
	memset(&set, 0, sizeof(set));
}

static int load_all(void)
{
	char tree[PATH_MAX], user[PATH_MAX];
	struct al_err e;
	int rc;

	if (set.state)
		return set.state;
	rc = suite_dirs(tree, sizeof(tree), user, sizeof(user), &e);
	if (rc == 0)
		rc = read_dir(tree, &e);
	if (rc == 0 && set.n == 0)
		rc = al_errf(&e, "%s: no suite files (NAME%s)", tree, EXT);
	if (rc == 0 && user[0])
		rc = read_dir(user, &e);
	if (rc < 0) {
		suite_reload();
		set.err = e;
		set.state = -1;
		return -1;
	}
	qsort(set.v, set.n, sizeof(*set.v), by_suite_name);
	set.state = 1;
	return 1;
}

const struct suite *suite_list(size_t *n, struct al_err *err)
{
	*n = 0;
	if (load_all() < 0) {
		if (err)
			*err = set.err;
		return NULL;
	}
	*n = set.n;
	return set.v;
}

const struct suite *suite_find(const char *name, struct al_err *err)
{
	char known[512] = "";
	size_t off = 0, n;
	const struct suite *v = suite_list(&n, err);

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (name && !strcmp(name, v[i].name))
			return &v[i];
	for (size_t i = 0; i < n && off < sizeof(known); i++)
		off += (size_t)snprintf(known + off, sizeof(known) - off,
					"%s%s", i ? ", " : "", v[i].name);
	al_errf(err, "unknown suite '%s' (known: %s)", name ? name : "", known);
	return NULL;
}
