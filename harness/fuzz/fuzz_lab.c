/* libFuzzer target: lab file bytes through lab_load_buf. A load either
 * fails with one "name:line: ..." line or yields a lab whose fields hold
 * what the header promises; every setting goes through lab_expand. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lab/lab.h"

#define NAME "fuzz/lab.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One line that names the file first. */
static void check_error(const struct al_err *err)
{
	if (strncmp(err->msg, NAME ":", strlen(NAME ":")) != 0 ||
	    strchr(err->msg, '\n'))
		__builtin_trap();
}

static void check_binding(const struct lab *lab, const struct lab_host *h,
			  const struct lab_binding *b)
{
	char out[256];
	struct al_err err;

	if (b->nparams < 0 || b->nparams > LAB_MAX_PARAMS)
		__builtin_trap();
	if (b->nparams && !b->driver[0])
		__builtin_trap();
	for (int i = 0; i < b->nparams; i++) {
		const struct lab_param *p = &b->params[i];

		if (!p->value || !p->key[0] || p->line < 1)
			__builtin_trap();
		if (lab_param(b, p->key) == NULL)
			__builtin_trap();
		/* Small on purpose: the overflow path runs too. */
		if (lab_expand(lab, h, p->value, out, sizeof(out), &err) == 0) {
			if (strlen(out) >= sizeof(out))
				__builtin_trap();
		} else if (strchr(err.msg, '\n')) {
			__builtin_trap();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lab lab;
	struct al_err err;

	if (lab_load_buf(&lab, NAME, data, size, &err) < 0) {
		check_error(&err);
		if (lab.nhosts || lab.nattens)
			__builtin_trap();
		return 0;
	}
	if (!lab.name[0] || lab.nhosts < 1 || lab.nhosts > LAB_MAX_HOSTS ||
	    lab.nattens < 0 || lab.nattens > LAB_MAX_HOSTS ||
	    lab.state_dir[0] != '/' || lab.image_dir[0] != '/')
		__builtin_trap();
	for (int i = 0; i < lab.nhosts; i++) {
		const struct lab_host *h = &lab.hosts[i];

		if (lab_host_find(&lab, h->name) != h)
			__builtin_trap();
		check_binding(&lab, h, &h->power);
		check_binding(&lab, h, &h->flash);
		check_binding(&lab, h, &h->console);
		check_binding(&lab, h, &h->shell);
	}
	for (int i = 0; i < lab.nattens; i++)
		check_binding(&lab, NULL, &lab.attens[i].binding);
	lab_free(&lab);
	return 0;
}
