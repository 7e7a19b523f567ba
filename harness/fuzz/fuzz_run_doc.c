/* libFuzzer target: bytes as a run.json through run_doc_parse. A parse
 * either fails with one line of message, or yields a record with an id
 * and a status whose typed views hold only named entries, each figure of
 * the summary found again by its name; then the record is freed (ASan
 * reports a leak or a double free). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../results/run_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct run_doc *d)
{
	if (!d->id || !d->id[0] || !d->status || !d->suite)
		__builtin_trap();
	for (size_t i = 0; i < d->n_figures; i++) {
		double v = run_doc_figure(d, d->figures[i].name);

		/* an object's keys are unique: each is found again */
		if (!(v == d->figures[i].value ||
		      (isnan(v) && isnan(d->figures[i].value))))
			__builtin_trap();
	}
	for (size_t i = 0; i < d->n_sta; i++)
		if (!d->sta[i].name)
			__builtin_trap();
	for (size_t i = 0; i < d->n_goodput; i++)
		if (!d->goodput[i].station)
			__builtin_trap();
	for (size_t i = 0; i < d->n_flow; i++)
		if (!d->flow[i].series)
			__builtin_trap();
	for (size_t i = 0; i < d->n_links; i++)
		if (!d->links[i].station)
			__builtin_trap();
	for (size_t i = 0; i < d->n_air; i++) {
		const struct run_doc_airtime *a = d->air + i;

		if (!a->source)
			__builtin_trap();
		for (size_t k = 0; k < a->n; k++)
			if (!a->sta[k].station)
				__builtin_trap();
		if (a->n && run_doc_airtime(d, a->source) == NULL)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_doc d;
	struct al_err err;

	err.msg[0] = 0;
	if (run_doc_parse((const char *)data, size, "run.json", &d, &err) < 0) {
		if (!err.msg[0] || strchr(err.msg, '\n') || d.root)
			__builtin_trap();
		return 0;
	}
	check(&d);
	run_doc_free(&d);
	if (d.root || d.figures)
		__builtin_trap();
	return 0;
}
