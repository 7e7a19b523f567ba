/* Running a suite plan with airlab-agents and turning what they report
 * into a Flent file plus a summary.
 *
 * The transport is two file descriptors per agent (its stdin and stdout),
 * so the same code drives a local `ip netns exec NS airlab-agent` child,
 * an `ssh host airlab-agent` child or anything else that pipes lines.
 * One agent runs on the traffic server (it only serves); one per station
 * runs that station's flows and probes, all started at one wall-clock
 * time. */
#ifndef AIRLAB_SUITES_RUN_H
#define AIRLAB_SUITES_RUN_H

#include <stdio.h>

#include "../results/flent.h"
#include "suites.h"

struct suite_agent {
	const char *host; /* for messages (and HOSTS for stations) */
	int to_fd;	  /* writes go to the agent's stdin */
	int from_fd;	  /* its stdout */
	const char *dev;  /* stations: flows leave from this interface
			     (dev=), NULL: by the routing table */
	/* private to run.c */
	char buf[8192];
	size_t len;
	int done, eof;
};

struct suite_run_opts {
	const char *server_addr; /* address stations use to reach the server */
	unsigned tcp_port;	 /* 0 = 5201 */
	unsigned udp_port;	 /* 0 = 5202 */
	double start_lead_s;	 /* start this far in the future; 0 = 1 s */
	double reply_timeout_s;	 /* per command reply; 0 = 10 s */
	/* Called once when the agents' samples reach the load's start
	 * (end = 0) and once when they pass its end (end = 1), as seen by
	 * the first sample timed at or after it: what the lab measures
	 * there covers the load, not the run's idle lead and linger. */
	void (*on_load)(void *ctx, int end);
	void *load_ctx;
};

/* What happened, for the summary table and run.json. */
struct suite_outcome {
	int partial;	    /* something failed: see reasons */
	char reasons[2048]; /* "; "-separated, one per failure */
	size_t flows, flows_connected, flows_started_2s;
	double lat_median_ms, lat_p90_ms, lat_p99_ms; /* probes, under load */
	/* Per plan flow: a bulk flow's mean goodput over the load window,
	 * NaN for probes. malloc'd (NULL when the run did not start); the
	 * caller frees it. */
	double *flow_mbps;
	double up_mbps, down_mbps; /* mean total goodput per direction */
	double up_jain, down_jain; /* over per-flow mean goodput */
	double t0_unix;		   /* run start, in the agents' clock */
	double clock_offset_s;	   /* agents' clock minus the controller's */
};

/* Runs the plan; on return *out holds the Flent result (write it with
 * flent_write) even for a partial run. Returns 0 when the run took place
 * (possibly partial), -1 when it could not start (agent unreachable,
 * server would not serve): err says which agent and what. */
int suite_run(const struct suite_plan *plan, struct suite_agent *server,
	      struct suite_agent *stations, const struct suite_run_opts *o,
	      struct flent_file **out, struct suite_outcome *res,
	      struct al_err *err);

/* The collector on its own (suite_run uses it; tests feed it lines). */
struct suite_collector;
struct suite_collector *suite_collector_new(const struct suite_plan *plan,
					    double t0_unix, struct al_err *err);
/* One line printed by station agent `station`. */
int suite_collect_line(struct suite_collector *c, size_t station,
		       const char *line, struct al_err *err);
/* Records a failure (flow never started, agent died...). */
void suite_collect_fail(struct suite_collector *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Adds the computed series and metadata; hands over the Flent file and
 * fills res. The collector is freed. */
struct flent_file *suite_collector_finish(struct suite_collector *c,
					  struct suite_outcome *res);

/* The table `airlab run` prints. */
void suite_print_summary(FILE *fp, const struct suite_plan *plan,
			 const struct suite_outcome *res);

#endif
