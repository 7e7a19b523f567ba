/* libFuzzer target: bytes as a sweep.json or bisect.json through
 * series_doc_parse. A parse either fails with one line of message, or
 * yields a record with an id, a kind and a status whose steps' strings
 * all end inside their fields; a step of a sweep or a bisect written
 * again as its kind reads back the same; then the record is freed (ASan
 * reports a leak or a double free). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../results/series_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STR_ENDS(s) (strnlen((s), sizeof(s)) < sizeof(s))

static void same_str(const char *a, const char *b)
{
	if (strcmp(a, b) != 0)
		__builtin_trap();
}

static void same_num(double a, double b)
{
	if (!(a == b || (isnan(a) && isnan(b))))
		__builtin_trap();
}

static void check_strs(const struct series_step *s)
{
	if (!STR_ENDS(s->variant) || !STR_ENDS(s->label) ||
	    !STR_ENDS(s->outcome) || !STR_ENDS(s->run_id) ||
	    !STR_ENDS(s->role) || !STR_ENDS(s->rev) || !STR_ENDS(s->subject) ||
	    !STR_ENDS(s->reason) || !STR_ENDS(s->dir))
		__builtin_trap();
	for (size_t k = 0; k < s->n_atten; k++)
		if (!STR_ENDS(s->atten[k].path))
			__builtin_trap();
	for (size_t k = 0; k < s->n_sta; k++)
		if (!STR_ENDS(s->sta[k].name))
			__builtin_trap();
	for (size_t k = 0; k < s->n_runs; k++)
		if (!s->runs[k])
			__builtin_trap();
}

static void same_sweep(const struct series_step *a, const struct series_step *b)
{
	same_num(a->x, b->x);
	same_num(a->latency_median_ms, b->latency_median_ms);
	same_num(a->latency_p99_ms, b->latency_p99_ms);
	if (a->n_atten != b->n_atten || a->n_sta != b->n_sta)
		__builtin_trap();
	for (size_t k = 0; k < a->n_atten; k++) {
		same_str(a->atten[k].path, b->atten[k].path);
		same_num(a->atten[k].set_db, b->atten[k].set_db);
		same_num(a->atten[k].read_db, b->atten[k].read_db);
	}
	for (size_t k = 0; k < a->n_sta; k++) {
		const struct series_station *x = &a->sta[k], *y = &b->sta[k];

		same_str(x->name, y->name);
		if (x->associated != y->associated || x->settled != y->settled)
			__builtin_trap();
		same_num(x->settle_s, y->settle_s);
		same_num(x->settle_expected_mbps, y->settle_expected_mbps);
		same_num(x->rate_mbps, y->rate_mbps);
		same_num(x->goodput_down_mbps, y->goodput_down_mbps);
	}
}

static void same_bisect(const struct series_step *a,
			const struct series_step *b)
{
	same_str(a->role, b->role);
	same_str(a->rev, b->rev);
	same_str(a->subject, b->subject);
	same_str(a->reason, b->reason);
	same_str(a->dir, b->dir);
	same_num(a->good_median, b->good_median);
	same_num(a->median, b->median);
	same_num(a->change, b->change);
	same_num(a->ci_lo, b->ci_lo);
	same_num(a->ci_hi, b->ci_hi);
	if (a->n_runs != b->n_runs)
		__builtin_trap();
	for (size_t k = 0; k < a->n_runs; k++)
		same_str(a->runs[k], b->runs[k]);
}

/* s written as a step of kind and read back into t: the same. */
static void round_trip(const struct series_step *s, const char *kind,
		       struct series_step *t)
{
	json_t *j = series_step_json(s, kind);

	if (!j || series_step_read(j, t) < 0)
		__builtin_trap();
	same_str(s->variant, t->variant);
	same_str(s->label, t->label);
	same_str(s->outcome, t->outcome);
	same_str(s->run_id, t->run_id);
	if (!strcmp(kind, "sweep"))
		same_sweep(s, t);
	else
		same_bisect(s, t);
	series_step_free(t);
	json_decref(j);
}

static void check(const struct series_doc *d)
{
	bool known;
	struct series_step *t;

	if (!d->id || !d->id[0] || !d->kind || !d->status || !d->root)
		__builtin_trap();
	if (d->n_steps && !d->steps)
		__builtin_trap();
	known = !strcmp(d->kind, "sweep") || !strcmp(d->kind, "bisect");
	if (!known && d->n_steps && series_step_json(&d->steps[0], d->kind))
		__builtin_trap();
	if (!(t = calloc(1, sizeof(*t))))
		return;
	for (size_t i = 0; i < d->n_steps; i++) {
		check_strs(&d->steps[i]);
		if (known)
			round_trip(&d->steps[i], d->kind, t);
	}
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct series_doc d;
	struct al_err err;

	err.msg[0] = 0;
	if (series_doc_parse((const char *)data, size, "sweep.json", &d, &err) <
	    0) {
		if (!err.msg[0] || strchr(err.msg, '\n') || d.root)
			__builtin_trap();
		return 0;
	}
	check(&d);
	series_doc_free(&d);
	if (d.root || d.steps)
		__builtin_trap();
	return 0;
}
