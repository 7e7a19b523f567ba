/* Stack variants (kernel/NAME.yaml): which kernel the DUT boots and how its
 * wlan interfaces queue. */
#ifndef AIRLAB_VARIANT_H
#define AIRLAB_VARIANT_H

#include "../util/err.h"

struct variant {
	char path[4096];
	char name[64];		/* e.g. "stock-6.1" */
	char kernel[32];	/* kernel series: "6.1" or "6.12" */
	char root_qdisc[128];	/* tc spec put at wlan root, "" = leave */
	char default_qdisc[32]; /* net.core.default_qdisc, "" = leave */
	char description[256];
	/* Emulated TX ring of the patched mac80211_hwsim (kernel/README.md):
	 * frames in flight per hardware queue before the driver stops
	 * mac80211's queues; 0 = never stop (stock hwsim). */
	int txring;
	/* 6.12: AQL + airtime fairness extended features (default on);
	 * -1 = not set in the file. */
	int aql;
};

/* Loads kernel/<name>.yaml from dir (or a path when name contains '/'). */
int variant_load(struct variant *v, const char *dir, const char *name,
		 struct al_err *err);
/* Parses a variant file's text; path is used in errors and its base name
 * (without ".yaml") is what `variant:` must say. */
int variant_load_buf(struct variant *v, const char *path, const void *buf,
		     size_t len, struct al_err *err);

#endif
