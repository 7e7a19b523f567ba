/* The run strategy (run.h). */
#include "run.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../results/store.h"
#include "../util/path.h"
#include "../util/proc.h"
#include "run_record.h"

#define SERVER_NS   "server"
#define SERVER_ADDR "10.43.0.2"
#define AGENT_CMD   "/usr/sbin/ip netns exec %s airlab-agent"

static int make_run_dir(const char *out, const char *suite, const char *variant,
			char *id, size_t idlen, char *path, size_t plen,
			struct al_err *err)
{
	char stamp[32], base[200];

	path_utc_stamp(stamp, sizeof(stamp));
	snprintf(base, sizeof(base), "%s-%s-%s", stamp, suite, variant);
	if (path_mkdir_unique(out, base, id, idlen, path, plen) < 0)
		return al_errf(err, "cannot create a run directory in %s: %s",
			       out, strerror(errno));
	return 0;
}

static double unix_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The first line a command prints on the DUT, or "unknown". */
static void dut_line(struct dut *d, const char *cmd, char *out, size_t len)
{
	struct al_err err;
	char *text = NULL;
	int status;

	snprintf(out, len, "unknown");
	if (dut_run_capture(d, cmd, &text, &status, 20, &err) == 0 &&
	    status == 0 && text[0])
		snprintf(out, len, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
}

/* Medium counters at the load's start and end (suite_run's on_load). */
struct load_probe {
	const struct cell *c;
	struct airtime_both at[2];
};

static void load_snapshot(void *ctx, int end)
{
	struct load_probe *p = ctx;

	airtime_snapshot_medium(p->c, &p->at[end ? 1 : 0]);
}

/* The agent built beside this airlab binary (build/guest/airlab-agent),
 * which is what station hosts get. */
static int local_agent(char *buf, size_t len, struct al_err *err)
{
	char bin[4096];

	if (path_self_dir(bin, sizeof(bin)) < 0)
		return al_errf(err, "cannot read /proc/self/exe: %s",
			       strerror(errno));
	if ((size_t)snprintf(buf, len, "%s/guest/airlab-agent", bin) >= len)
		return al_errf(err, "path of the agent too long");
	if (access(buf, R_OK) != 0)
		return al_errf(err,
			       "%s: %s (station hosts are given the agent "
			       "built beside airlab: make %s)",
			       buf, strerror(errno),
			       "build/guest/airlab-agent");
	return 0;
}

/* Whether the traffic server is a lab host of its own rather than the
 * AP host's server namespace (the virtual DUT's). */
static bool server_remote(const struct cell *c)
{
	return strcmp(c->topo.server.host, c->ap_host->name) != 0;
}

/* Agents away from the AP host: the station hosts' shells, each
 * station's interface there, and a traffic server of its own. */
struct remote_agents {
	struct stahost_set sh;
	char ifaces[TOPO_MAX_STATIONS][STAHOST_IFACE_MAX];
	struct dut server;
	bool server_open;
};

static int remote_prepare(struct remote_agents *r, const struct cell *c,
			  struct al_err *err)
{
	char agent[4200];

	if (!stahost_first_remote(c) && !server_remote(c))
		return 0;
	if (local_agent(agent, sizeof(agent), err) < 0)
		return -1;
	if (server_remote(c)) {
		if (dut_open(&r->server, &c->lab, c->topo.server.host, err) < 0)
			return -1;
		r->server_open = true;
		if (stahost_agent_copy(&r->server, agent, err) < 0)
			return al_err_prefix(err, "traffic server");
	}
	if (!stahost_first_remote(c))
		return 0;
	if (stahost_open(&r->sh, c, true, err) < 0 ||
	    stahost_agent_install(&r->sh, agent, err) < 0 ||
	    stahost_ifaces(&r->sh, c, r->ifaces, err) < 0)
		return -1;
	return 0;
}

static void remote_close(struct remote_agents *r)
{
	stahost_close(&r->sh);
	if (r->server_open)
		dut_close(&r->server);
	r->server_open = false;
}

/* Starts the agents; returns how many were started (server first). A
 * station on the AP's host runs in its namespace there; one on a station
 * host runs there, its flows bound to its interface. */
static int spawn_agents(struct dut *d, const struct cell *c,
			struct remote_agents *r, struct suite_agent *server,
			struct suite_agent *sta, pid_t *pids,
			struct al_err *err)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), AGENT_CMD, SERVER_NS);
	server->host = "server";
	if (r->server_open) {
		snprintf(cmd, sizeof(cmd), "%s", STAHOST_AGENT);
		server->host = c->topo.server.host;
	}
	if (dut_spawn(r->server_open ? &r->server : d, cmd, &server->to_fd,
		      &server->from_fd, &pids[0], 30, err) < 0)
		return 0;
	for (int i = 0; i < c->topo.nstations; i++) {
		const struct topo_station *s = &c->topo.stations[i];
		struct dut *h = d;

		sta[i].host = s->name;
		sta[i].dev = NULL;
		if (cell_station_local(c, s)) {
			snprintf(cmd, sizeof(cmd), AGENT_CMD, s->name);
		} else {
			h = stahost_of(&r->sh, s);
			snprintf(cmd, sizeof(cmd), "%s", STAHOST_AGENT);
			sta[i].dev = r->ifaces[i];
		}
		if (!h) {
			al_errf(err, "station %s: host %s is not open", s->name,
				s->host);
			return i + 1;
		}
		if (dut_spawn(h, cmd, &sta[i].to_fd, &sta[i].from_fd,
			      &pids[i + 1], 30, err) < 0)
			return i + 1;
	}
	return c->topo.nstations + 1;
}

static void reap_agents(struct suite_agent *server, struct suite_agent *sta,
			pid_t *pids, int n)
{
	/* Closing an agent's stdin makes it finish and exit. */
	for (int i = 0; i < n; i++) {
		struct suite_agent *a = i == 0 ? server : &sta[i - 1];
		close(a->to_fd);
		close(a->from_fd);
	}
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
}

const char *run_status_name(enum run_status s)
{
	switch (s) {
	case RUN_COMPLETE:
		return "complete";
	case RUN_PARTIAL:
		return "partial";
	case RUN_FAILED:
		return "failed";
	case RUN_LAB_FAILED:
		return "lab-failed";
	case RUN_REFUSED:
		break;
	}
	return "refused";
}

/* Everything one run holds, on the heap: a cell and its station table are
 * too big for the stack, and nothing of a run outlives it. */
struct run_ctx {
	const struct run_request *rq;
	struct run_result *out;
	const struct suite *suite;
	struct cell c;
	bool cell_loaded;
	struct suite_params params;
	const char *names[TOPO_MAX_STATIONS];
	struct suite_plan plan;
	bool plan_made;
	struct dut d;
	struct cell_state st;
	struct run_record rec;
	struct suite_outcome res;
	struct flent_file *flent;
	char fname[512];
	struct remote_agents remote;
	struct suite_agent server, sta[TOPO_MAX_STATIONS];
	pid_t pids[TOPO_MAX_STATIONS + 1];
	struct airtime_both air0, air1;
	struct load_probe load;
};

static int refuse(struct al_err *err)
{
	err->bad_input = true;
	return -1;
}

/* Everything the user gave is checked before anything starts: the suite,
 * the cell and what it asks of its AP, the plan, where results go (on a
 * bench a refusal after the DUT was flashed costs minutes). */
static int run_check(struct run_ctx *x, struct al_err *err)
{
	const struct run_request *rq = x->rq;
	struct cell *c = &x->c;
	const struct ap_ops *ap;

	if (!(x->suite = suite_find(rq->suite, err)))
		return refuse(err);
	if (cell_load(c, &rq->cell, err) < 0)
		return refuse(err);
	x->cell_loaded = true;
	if (bringup_check(c, &ap, err) < 0 || stahost_check_traffic(c, err) < 0)
		return refuse(err);
	if (server_remote(c) && !c->topo.server.address[0]) {
		al_errf(err,
			"%s:%d: the traffic server is host %s, not the AP's: "
			"give its address: (where the stations reach it)",
			c->topo.path, c->topo.server.line, c->topo.server.host);
		return refuse(err);
	}
	for (int i = 0; i < c->topo.nstations; i++)
		x->names[i] = c->topo.stations[i].name;
	x->params = rq->params;
	x->params.stations = x->names;
	x->params.n_stations = (size_t)c->topo.nstations;
	if (suite_expand(x->suite, &x->params, &x->plan, err) < 0)
		return refuse(err);
	x->plan_made = true;
	if (path_mkdirs(rq->out_dir) < 0 || access(rq->out_dir, W_OK) != 0) {
		al_errf(err, "--out %s: cannot write results there: %s",
			rq->out_dir, strerror(errno));
		return refuse(err);
	}
	return 0;
}

static int run_dir(struct run_ctx *x, struct al_err *err)
{
	struct run_result *out = x->out;

	if (make_run_dir(x->rq->out_dir, x->suite->name, x->c.variant.name,
			 out->id, sizeof(out->id), out->dir, sizeof(out->dir),
			 err) < 0)
		return -1;
	x->rec.id = out->id;
	return 0;
}

/* What ran: the kernel, hostapd (as the AP's driver read it when it came
 * up), wpa_supplicant, airlab's commit. */
static void run_versions(struct run_ctx *x)
{
	struct run_record *r = &x->rec;

	snprintf(r->kernel, sizeof(r->kernel), "%s", x->st.release);
	if (x->st.ap.version[0])
		snprintf(r->hostapd, sizeof(r->hostapd), "%s",
			 x->st.ap.version);
	else
		dut_line(&x->d, "hostapd -v 2>&1 | grep -m1 hostapd",
			 r->hostapd, sizeof(r->hostapd));
	dut_line(&x->d, "wpa_supplicant -v | grep -m1 wpa_supplicant", r->wpa,
		 sizeof(r->wpa));
	proc_git_commit(x->rq->root, r->commit, sizeof(r->commit));
}

/* The agents started, the plan run, the agents reaped; airtime is read
 * around it all (the medium's counters on the virtual lab, nl80211's
 * tx/rx duration where the AP reports them) and the medium's channel
 * between the load's start and end. */
static int run_agents(struct run_ctx *x, struct al_err *err)
{
	struct cell *c = &x->c;
	struct run_record *r = &x->rec;
	int rc = -1, n;

	airtime_snapshot(&x->d, c, x->st.rows, x->st.n, &x->air0);
	if (remote_prepare(&x->remote, c, err) < 0)
		n = -1;
	else
		n = spawn_agents(&x->d, c, &x->remote, &x->server, x->sta,
				 x->pids, err);
	if (n == c->topo.nstations + 1) {
		struct suite_run_opts ro = {.server_addr =
						x->remote.server_open
						    ? c->topo.server.address
						    : SERVER_ADDR,
					    .on_load = load_snapshot,
					    .load_ctx = &x->load};

		x->load.c = c;
		rc = suite_run(&x->plan, &x->server, x->sta, &ro, &x->flent,
			       &x->res, err);
		if (x->load.at[0].medium.n > 0 && x->load.at[1].medium.n > 0) {
			airtime_delta(&x->load.at[0].medium,
				      &x->load.at[1].medium, &r->air[0].load);
			r->air[0].load_ok = r->air[0].load.chan_have &&
					    r->air[0].load.chan_elapsed_us > 0;
		}
	}
	if (n > 0)
		reap_agents(&x->server, x->sta, x->pids, n);
	remote_close(&x->remote);
	r->end = unix_now();
	airtime_snapshot(&x->d, c, x->st.rows, x->st.n, &x->air1);
	run_airtime_set(&r->air[0], "medium", &x->air0.medium, &x->air1.medium,
			x->air0.why_medium, x->air1.why_medium);
	run_airtime_set(&r->air[1], "nl80211", &x->air0.nl, &x->air1.nl,
			x->air0.why_nl, x->air1.why_nl);
	if (x->air0.link.n > 0 && x->air1.link.n > 0)
		link_delta(&x->air0.link, &x->air1.link, &r->link);
	return rc;
}

/* The Flent file beside run.json, named as Flent names it. */
static int run_flent_write(struct run_ctx *x, struct al_err *err)
{
	char path[5200];

	flent_meta_str(x->flent, "TITLE", x->out->id);
	flent_meta_str(x->flent, "KERNEL_RELEASE", x->st.release);
	flent_meta_str(x->flent, "NOTE", x->c.variant.description);
	flent_filename(x->flent, x->fname, sizeof(x->fname));
	snprintf(path, sizeof(path), "%s/%s", x->out->dir, x->fname);
	if (flent_write(x->flent, path, err) < 0)
		return -1;
	x->rec.flent_file = x->fname;
	x->rec.res = &x->res;
	return 0;
}

/* The record, whatever happened: the console log, run.json (a failure
 * there is the run's failure), the index (a failure there is not: the
 * run directory is the truth, `airlab reindex` rebuilds it). */
static int run_record(struct run_ctx *x, struct al_err *err)
{
	struct run_result *out = x->out;
	struct al_err e2;
	struct store *db;

	if (!x->rec.end)
		x->rec.end = unix_now();
	x->rec.status = run_status_name(out->status);
	if (dut_console_log_save(&x->d, out->dir, &e2) < 0)
		fprintf(stderr, "run %s: %s\n", out->id, e2.msg);
	if (run_record_write(out->dir, &x->c, &x->st, &x->rec, err) < 0) {
		out->status = RUN_FAILED;
		snprintf(out->failure, sizeof(out->failure), "%s", err->msg);
		return -1;
	}
	if (store_open(&db, x->rq->out_dir, &e2) < 0 ||
	    store_add_run(db, out->dir, &e2) < 0)
		fprintf(stderr,
			"run %s: %s (the run is kept in %s; `airlab reindex` "
			"indexes it)\n",
			out->id, e2.msg, out->dir);
	store_close(db);
	return 0;
}

/* A lab that failed to come up (no flash, no boot, stations that could
 * not be asked) is a result of its own, kept with the console. */
static int run_lab_failed(struct run_ctx *x)
{
	struct run_result *out = x->out;
	struct al_err e2;

	out->status = RUN_LAB_FAILED;
	snprintf(out->failure, sizeof(out->failure), "%s", x->st.failure);
	if (run_dir(x, &e2) < 0) {
		fprintf(stderr, "airlab: %s\n", e2.msg);
		return -1;
	}
	x->rec.reasons = x->st.failure;
	for (int i = 0; i < 2; i++) {
		x->rec.air[i].source = i ? "nl80211" : "medium";
		snprintf(x->rec.air[i].why, sizeof(x->rec.air[i].why),
			 "the lab failed before the run");
	}
	if (run_record(x, &e2) < 0)
		fprintf(stderr, "run %s: %s\n", out->id, e2.msg);
	return -1; /* err: the bring-up's */
}

static int run_on_lab(struct run_ctx *x, struct al_err *err)
{
	const struct bringup_opts bo = {x->rq->wait_s, true, x->rq->show};
	struct run_result *out = x->out;
	struct cell *c = &x->c;
	struct al_err e2;
	int rc;

	x->rec.plan = &x->plan;
	x->rec.start = unix_now();
	if (bringup_cell(c, &x->d, &bo, &x->st, err) < 0)
		return run_lab_failed(x);
	out->stations = x->st.n;
	out->associated = x->st.nassoc;
	if (run_dir(x, err) < 0) {
		out->status = RUN_LAB_FAILED;
		return -1;
	}
	run_versions(x);
	fprintf(stderr, "run %s: %s for %.0f s on %d stations\n", out->id,
		x->suite->name, x->plan.total_s, c->topo.nstations);
	out->status = RUN_FAILED;
	rc = run_agents(x, err);
	if (rc == 0 && (rc = run_flent_write(x, err)) == 0)
		out->status = x->res.partial ? RUN_PARTIAL : RUN_COMPLETE;
	if (rc < 0)
		snprintf(out->failure, sizeof(out->failure), "%s", err->msg);
	x->rec.reasons = rc < 0 ? out->failure : x->res.reasons;
	if (rc == 0 && x->rq->show) {
		suite_print_summary(x->rq->show, &x->plan, &x->res);
		run_airtime_print(x->rq->show, c, &x->rec.air[0]);
		run_airtime_print(x->rq->show, c, &x->rec.air[1]);
	}
	if (run_record(x, &e2) < 0) {
		if (rc == 0) {
			*err = e2;
			return -1;
		}
		fprintf(stderr, "run %s: %s\n", out->id, e2.msg);
	}
	return rc;
}

int run_suite(const struct run_request *rq, struct run_result *out,
	      struct al_err *err)
{
	struct run_ctx *x = calloc(1, sizeof(*x));
	int rc;

	memset(out, 0, sizeof(*out));
	out->status = RUN_REFUSED;
	if (!x)
		return al_errf(err, "out of memory for a run");
	x->rq = rq;
	x->out = out;
	rc = run_check(x, err);
	if (rc == 0) {
		signal(SIGPIPE, SIG_IGN);
		if (dut_open(&x->d, &x->c.lab, x->c.ap_host->name, err) < 0) {
			/* a driver setting the lab file gets wrong is not
			 * the lab failing */
			if (!err->bad_input)
				out->status = RUN_LAB_FAILED;
			rc = -1;
		} else {
			rc = run_on_lab(x, err);
		}
		dut_close(&x->d);
	}
	flent_free(x->flent);
	free(x->res.flow_mbps);
	if (x->plan_made)
		suite_plan_free(&x->plan);
	if (x->cell_loaded)
		cell_free(&x->c);
	free(x);
	return rc;
}
