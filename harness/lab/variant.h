/* Stack variants (kernel/NAME.yaml): which kernel the DUT boots and how its
 * wlan interfaces queue. */
#ifndef AIRLAB_VARIANT_H
#define AIRLAB_VARIANT_H

#include "../util/err.h"

/* A queueing knob applied on the DUT after the AP is up (any DUT, over
 * its shell) and read back: `knobs:` in the variant file. */
enum variant_knob_kind {
	KNOB_QDISC, /* target: "{iface}" or "{wired}"; value: tc spec */
	KNOB_FILE,  /* target: a path ({phy}, {iface}, {wired}); value */
};
struct variant_knob {
	char name[80]; /* as the file says it: "aql", "files[2]" */
	enum variant_knob_kind kind;
	char target[256];
	char value[256];
	/* KNOB_FILE: the file must read back as value (trimmed); false
	 * where the kernel prints another form (aql_txq_limit's table) */
	int exact;
	int line;
};
#define VARIANT_MAX_KNOBS 32

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
	struct variant_knob knobs[VARIANT_MAX_KNOBS];
	int nknobs;
};

/* Loads kernel/<name>.yaml from dir (or a path when name contains '/'). */
int variant_load(struct variant *v, const char *dir, const char *name,
		 struct al_err *err);
/* Parses a variant file's text; path is used in errors and its base name
 * (without ".yaml") is what `variant:` must say. */
int variant_load_buf(struct variant *v, const char *path, const void *buf,
		     size_t len, struct al_err *err);

#endif
