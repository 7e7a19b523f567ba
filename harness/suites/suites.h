/* Test suites as data: which flows and probes run, marked how, started
 * when, for how long, and under which Flent series names. Each suite is a
 * file, suites/NAME.suite (the format: suites/README.md), read at run time
 * by suite_file.c; suite_expand() turns a suite plus the command-line
 * parameters and the cell's stations into a concrete plan that
 * suite_run() (run.h) executes with airlab-agents. Where Flent has the
 * test, names, markings, probe set and the delay before bulk flows follow
 * flent/tests/<name>.conf so Flent's own plots of our files show the right
 * thing. */
#ifndef AIRLAB_SUITES_H
#define AIRLAB_SUITES_H

#include <stddef.h>

#include "../results/flent.h"
#include "../util/err.h"

enum suite_kind {
	SUITE_TCP_UP,	/* station -> server bulk TCP */
	SUITE_TCP_DOWN, /* server -> station bulk TCP */
	SUITE_UDP_RTT,	/* station -> server UDP echo probes */
	SUITE_ICMP,	/* station -> server ICMP echo */
};

enum suite_scope {
	SUITE_ONE,	/* once, from the first station (Flent's HOST) */
	SUITE_EACH,	/* once per station */
	SUITE_N_SPREAD, /* N copies (--streams), round-robin over stations */
};

/* One flow or probe of a suite definition. `series` is the Flent series name
 * with %i (copy number from 1), %h (station name), %l (label) and %p (ping
 * label) expanded; labels/markings cycle over copies when given. */
struct suite_item {
	enum suite_kind kind;
	enum suite_scope scope;
	const char *series;
	const char *marking; /* DSCP name; NULL = CS0 (unmarked) */
	const char *const *labels;
	const char *const *markings;
	const char *const *ping_labels;
	size_t n_labels;
	int bulk;	      /* 1: starts after the delay, runs LENGTH */
	unsigned interval_ms; /* probes; 0 = the step (ICMP) or 5 ms (UDP) */
};

/* A computed series over every item series whose name starts with prefix
 * (Flent's apply_to glob). */
struct suite_computed {
	const char *name;
	const char *prefix;
	enum flent_op op;
	const char *units;
};

#define SUITE_FAIRNESS 0x1 /* report Jain's index */
#define SUITE_STARTUP  0x2 /* report flows that got going within 2 s */

struct suite_mem; /* what a loaded suite's strings and lists live in */

struct suite {
	const char *name;
	const char *description;
	const char *flent_name; /* the Flent test whose format we follow */
	const char *plot;	/* Flent's default plot for it */
	double length_s;	/* default LENGTH */
	double delay_s; /* before bulk flows; TOTAL = LENGTH + 2 DELAY */
	unsigned step_ms;
	unsigned streams; /* default N for SUITE_N_SPREAD, 0 = unused */
	const char *streams_param; /* TEST_PARAMETERS key for N */
	unsigned flags;
	const struct suite_item *items;
	size_t n_items;
	const struct suite_computed *computed;
	size_t n_computed;
	const char *path;      /* the file it was read from */
	const char *overrides; /* the tree's file a user file replaces, NULL */
	struct suite_mem *mem;
};

/* Every suite, by name: each NAME.suite file in the tree's suites
 * directory, then in the user's (suite_dirs), where a file replaces the
 * tree's of the same name. Read on the first call; a file that does not
 * load is the error of this and every later call: NULL, and err says
 * "path:line: what" on one line (bad input). */
const struct suite *suite_list(size_t *n, struct al_err *err);
/* By exact name; NULL with err when the files do not load (as
 * suite_list) or no suite has the name (the known ones listed). err may be
 * NULL. */
const struct suite *suite_find(const char *name, struct al_err *err);
/* Where suite_list reads. tree: $AIRLAB_ROOT/suites, else suites/ in the
 * tree of this binary (BIN/../suites; BIN/../share/airlab/suites for an
 * installed copy, as in the DUT image). user: $AIRLAB_SUITES (empty: no
 * user directory), else $XDG_CONFIG_HOME/airlab/suites or
 * ~/.config/airlab/suites; "" when that is not there. 0, or -1 with err. */
int suite_dirs(char *tree, size_t tree_len, char *user, size_t user_len,
	       struct al_err *err);
/* Forgets what suite_list read (the next call reads the directories
 * again) and frees it: the suites it gave are gone. */
void suite_reload(void);

/* Reads one suite from the text of a suite file; name is the suite's
 * name, path names the file in errors ("path:line: what", bad input).
 * s is filled on success only; suite_free releases it. */
int suite_parse(struct suite *s, const char *name, const char *path,
		const void *buf, size_t len, struct al_err *err);
/* The same from the file at path, named after it (DIR/NAME.suite). */
int suite_load_file(struct suite *s, const char *path, struct al_err *err);
void suite_free(struct suite *s);

/* Command-line knobs; 0 / NULL = the suite's default. */
struct suite_params {
	double length_s;
	double step_s;
	unsigned streams;
	const char *cc; /* TCP congestion control, NULL = default */
	const char *const *stations; /* station host names, at least one */
	size_t n_stations;
};

#define SUITE_SERIES_MAX 128
#define SUITE_ID_MAX	 24

/* One flow or probe of a plan. delay_s is from the run start, length_s 0
 * means until the run ends. */
struct suite_flow {
	enum suite_kind kind;
	char series[SUITE_SERIES_MAX];
	char id[SUITE_ID_MAX]; /* agent id, unique in the plan */
	char marking[8];
	int tos;
	size_t station; /* index into suite_params.stations */
	double delay_s;
	double length_s;
	unsigned interval_ms;
};

struct suite_plan {
	const struct suite *suite;
	double length_s, delay_s, total_s, step_s;
	unsigned streams;
	char cc[16];
	const char *const *stations;
	size_t n_stations;
	struct suite_flow *flows;
	size_t n_flows;
};

/* Checks the parameters (length, step, streams, stations) before anything
 * starts, and fills plan. Returns 0, or -1 naming the bad parameter. */
int suite_expand(const struct suite *s, const struct suite_params *p,
		 struct suite_plan *plan, struct al_err *err);
void suite_plan_free(struct suite_plan *plan);

/* The agent command for plan flow i against the server at addr with the
 * agent's `serve tcp` / `serve udp` ports, its socket bound to interface
 * dev (NULL: none). Returns 0, -1 if buf is short. */
int suite_flow_command(const struct suite_plan *plan, size_t i,
		       const char *server_addr, unsigned tcp_port,
		       unsigned udp_port, const char *dev, char *buf,
		       size_t len);

const char *suite_kind_name(enum suite_kind kind);

#endif
