/* An attenuator opened by its driver, under its lock (see atten.h). */
#include "atten.h"
#include "../util/lock.h"

#include <stdio.h>
#include <string.h>

int atten_open(struct atten_handle *h, const struct lab *lab,
	       const struct lab_atten *a, struct al_err *err)
{
	memset(h, 0, sizeof(*h));
	h->atten = a;
	h->t.lab = lab;
	h->t.host = NULL;
	h->t.binding = &a->binding;
	if (atten_paths_check(lab, err) < 0)
		return -1;
	h->ops = atten_driver(a->binding.driver, err);
	if (!h->ops)
		return al_err_prefix(err, "%s:%d: attenuator %s", lab->path,
				     a->binding.line, a->name);
	snprintf(h->lock, sizeof(h->lock), "atten-%s", a->name);
	if (lock_take(lab->state_dir, h->lock, a->name, err) < 0) {
		h->lock[0] = 0;
		return al_err_prefix(err, "attenuator");
	}
	if (h->ops->open(&h->dev, &h->t, err) < 0) {
		h->dev = NULL;
		atten_close(h);
		return -1;
	}
	return 0;
}

void atten_close(struct atten_handle *h)
{
	if (h->ops && h->dev)
		h->ops->close(h->dev);
	h->dev = NULL;
	if (h->lock[0] && h->t.lab)
		lock_give(h->t.lab->state_dir, h->lock);
	h->lock[0] = 0;
}
