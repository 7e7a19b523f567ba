/* airlab run SUITE: brings the cell up (or reuses it), starts one
 * airlab-agent on the traffic server and one per station, runs the suite
 * and writes results/<run-id>/ (the .flent.gz and run.json). A run that
 * loses a station or a flow is kept and marked partial. */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>

#include "../util/json_file.h"
#include "../util/path.h"
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../cell/airtime.h"
#include "../results/flent.h"
#include "../results/store.h"
#include "../util/json_file.h"
#include "../suites/outcome_json.h"
#include "../suites/run.h"
#include "../suites/suites.h"

#define SERVER_NS   "server"
#define SERVER_ADDR "10.43.0.2"
#define AGENT_CMD   "/usr/sbin/ip netns exec %s airlab-agent"

struct run_args {
	const char *suite;
	const char *out_dir;
	struct suite_params p;
	int wait_s;
};

static int parse_double(const char *opt, const char *v, double *out)
{
	char *end;
	double d = strtod(v, &end);

	if (!*v || *end || !(d > 0)) {
		fprintf(stderr,
			"airlab run: %s '%s' is not a positive number\n", opt,
			v);
		return -1;
	}
	*out = d;
	return 0;
}

static int parse_args(int argc, char **argv, struct cli_opts *o,
		      struct run_args *a)
{
	const char *length = NULL, *step = NULL, *streams = NULL, *wait = NULL;
	const struct cli_flag flags[] = {
	    {"--length", &length, NULL,
	     "S\tseconds of traffic (default: the suite's)"},
	    {"--step", &step, NULL,
	     "S\tseconds between samples (default: the suite's)"},
	    {"--streams", &streams, NULL,
	     "N\tbulk flows per direction (default: the suite's)"},
	    {"--cc", &a->p.cc, NULL,
	     "CC\tTCP congestion control (default: the hosts' own)"},
	    {"--out", &a->out_dir, NULL,
	     "DIR\tresults directory (default ROOT/results)"},
	    {"--wait", &wait, NULL,
	     "S\tseconds to wait for association (default 60)"},
	    {NULL, NULL, NULL, NULL}};
	int rc = cli_parse("run", argc, argv, o, flags, &a->suite, 1), n;

	if (rc >= 0)
		return rc;
	if ((length && parse_double("--length", length, &a->p.length_s) < 0) ||
	    (step && parse_double("--step", step, &a->p.step_s) < 0) ||
	    (streams &&
	     cli_seconds_arg("run", "--streams", streams, 1, &n) < 0) ||
	    (wait && cli_seconds_arg("run", "--wait", wait, 1, &a->wait_s) < 0))
		return AL_EXIT_USAGE;
	if (streams)
		a->p.streams = (unsigned)n;
	if (!a->suite) {
		return cli_usage_error(
		    "run", "which suite? (airlab suites lists them)");
	}
	return -1; /* go on */
}

static int make_run_dir(const char *out, const char *suite, const char *variant,
			char *id, size_t idlen, char *path, size_t plen)
{
	char stamp[32], base[200];

	path_utc_stamp(stamp, sizeof(stamp));
	snprintf(base, sizeof(base), "%s-%s-%s", stamp, suite, variant);
	if (path_mkdir_unique(out, base, id, idlen, path, plen) < 0) {
		fprintf(stderr,
			"airlab run: cannot create a run directory in "
			"%s: %s\n",
			out, strerror(errno));
		return -1;
	}
	return 0;
}

static void iso_time(double unix_s, char *buf, size_t len)
{
	time_t t = (time_t)unix_s;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
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

/* Per-station airtime of one source over the run, or why there is none. */
struct run_airtime {
	const char *source; /* "medium", "nl80211" */
	bool ok;
	struct airtime_snap delta;
	double share[TOPO_MAX_STATIONS], jain;
	char why[1100];
	/* The channel between the load's start and end (medium only). */
	bool load_ok;
	struct airtime_snap load;
};

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

struct run_record {
	const char *id, *status, *reasons, *flent_file;
	double start, end;
	const struct suite_outcome *res;
	const struct suite_plan *plan;
	char kernel[128], hostapd[128], wpa[128], commit[64];
	struct run_airtime air[2];
	struct link_snap link; /* the load's counters; n = 0: none */
};

static void airtime_result(struct run_airtime *r, const char *source,
			   const struct airtime_snap *before,
			   const struct airtime_snap *after,
			   const char *why_before, const char *why_after)
{
	r->source = source;
	r->ok = before->n > 0 && after->n > 0;
	snprintf(r->why, sizeof(r->why), "%s",
		 why_after[0] ? why_after : why_before);
	if (!r->ok)
		return;
	airtime_delta(before, after, &r->delta);
	r->jain = airtime_shares(&r->delta, r->share);
}

static void airtime_print(FILE *fp, const struct cell *c,
			  const struct run_airtime *r)
{
	if (!r->ok) {
		fprintf(fp, "  airtime (%s): none: %s\n", r->source, r->why);
		return;
	}
	char label[64];

	snprintf(label, sizeof(label), "airtime (%s)", r->source);
	fprintf(fp, "  %-24s %10s %10s %7s\n", label, "tx ms", "rx ms",
		"share");
	for (int i = 0; i < r->delta.n; i++) {
		const struct airtime_sta *a = &r->delta.sta[i];

		if (!a->have) {
			fprintf(fp, "    %-20s %10s %10s %7s\n",
				c->topo.stations[i].name, "-", "-", "-");
			continue;
		}
		fprintf(fp, "    %-20s %10.1f %10.1f %7.3f\n",
			c->topo.stations[i].name, a->tx_us / 1e3,
			a->rx_us / 1e3, r->share[i]);
	}
	if (isfinite(r->jain))
		fprintf(fp, "  %-28s %10.3f\n", "Jain's index airtime",
			r->jain);
	if (r->delta.chan_have)
		fprintf(fp, "  %-28s %9.1f%% (medium time scale %g)\n",
			"channel busy",
			100.0 * r->delta.chan_busy_us /
			    r->delta.chan_elapsed_us,
			r->delta.time_scale);
	if (r->load_ok)
		fprintf(fp, "  %-28s %9.1f%% (%.1f s of medium time)\n",
			"channel busy under load",
			100.0 * r->load.chan_busy_us / r->load.chan_elapsed_us,
			r->load.chan_elapsed_us / 1e6);
}

static json_t *airtime_json(const struct cell *c, const struct run_airtime *r)
{
	json_t *o, *stations;

	if (!r->ok)
		return json_pack("{s:s}", "error", r->why);
	stations = json_array();
	for (int i = 0; i < r->delta.n; i++) {
		const struct airtime_sta *a = &r->delta.sta[i];
		json_array_append_new(
		    stations,
		    json_pack("{s:s, s:o, s:o, s:o}", "name",
			      c->topo.stations[i].name, "tx_us",
			      a->have ? json_real(a->tx_us) : json_null(),
			      "rx_us",
			      a->have ? json_real(a->rx_us) : json_null(),
			      "share", json_num(r->share[i])));
	}
	o = json_pack("{s:o, s:o}", "stations", stations, "jain",
		      json_num(r->jain));
	/* The medium's channel over the run: how busy the air was, in
	 * medium time, and the time scale every figure was taken at. */
	if (r->delta.chan_have)
		json_object_set_new(
		    o, "channel",
		    json_pack("{s:f, s:f, s:f, s:f}", "elapsed_us",
			      r->delta.chan_elapsed_us, "busy_us",
			      r->delta.chan_busy_us, "busy",
			      r->delta.chan_busy_us / r->delta.chan_elapsed_us,
			      "time_scale", r->delta.time_scale));
	/* The same between the load's start and end, as the agents' first
	 * samples past each said it. */
	if (r->delta.chan_have && r->load_ok)
		json_object_set_new(
		    json_object_get(o, "channel"), "load",
		    json_pack("{s:f, s:f, s:f}", "elapsed_us",
			      r->load.chan_elapsed_us, "busy_us",
			      r->load.chan_busy_us, "busy",
			      r->load.chan_busy_us / r->load.chan_elapsed_us));
	return o;
}

/* Per station, the AP's view of its link over the load: bytes, retries,
 * failures, the last signal and bitrate, and the rate its traffic went at
 * (bytes over the airtime they took: the medium's count where there is
 * one, else nl80211's). */
static json_t *link_json(const struct cell *c, const struct run_record *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->link.n; i++) {
		const struct link_sta *l = &r->link.sta[i];
		const struct airtime_sta *air = NULL;

		if (!l->have)
			continue;
		for (int k = 0; k < 2 && !air; k++)
			if (r->air[k].ok && r->air[k].delta.sta[i].have)
				air = &r->air[k].delta.sta[i];
		json_array_append_new(
		    a, json_pack(
			   "{s:s, s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:s, s:o}",
			   "name", c->topo.stations[i].name, "tx_bytes",
			   l->tx_bytes, "rx_bytes", l->rx_bytes, "retries",
			   l->tx_retries, "failed", l->tx_failed, "signal_dbm",
			   json_num(l->signal_dbm), "tx_bitrate_mbps",
			   json_num(l->tx_bitrate_mbps), "rx_bitrate_mbps",
			   json_num(l->rx_bitrate_mbps), "tx_rate", l->tx_rate,
			   "rate_mbps",
			   json_num(
			       air ? link_rate_mbps(l, air->tx_us + air->rx_us)
				   : NAN)));
	}
	return a;
}

/* The AP as its driver brought it up, and every knob of the variant as
 * the DUT read it back. */
static json_t *ap_json(const struct cell_state *st)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "driver", st->ap_driver,
			 "interface", st->ap.iface, "phy", st->ap.phy, "wired",
			 st->ap.wired, "state", st->ap.state);
}

static json_t *knobs_json(const struct cell *c, const struct cell_state *st)
{
	json_t *a = json_array();

	for (int i = 0; i < st->nknobs; i++) {
		const struct knob_result *k = &st->knobs[i];

		json_array_append_new(
		    a, json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "knob",
				 k->name, "file", c->variant.path, "line",
				 k->line, "target", k->target, "set", k->set,
				 "read", k->read));
	}
	return a;
}

/* What the AP's host was flashed with: its flash driver and image setting
 * expanded as the flash driver does (the virtual lab's qemu-image has no
 * setting: it boots the variant's kernel from image_dir). */
static json_t *dut_image_json(const struct cell *c)
{
	const struct lab_binding *fb = &c->ap_host->flash;
	const char *img = lab_param(fb, "image");
	char path[4096];

	if (!fb->driver[0])
		return json_null();
	const struct lab_field fields[] = {{"variant", c->variant.name},
					   {"kernel", c->variant.kernel}};

	if (img && lab_expand_with(&c->lab, c->ap_host, fields, 2, img, path,
				   sizeof(path), NULL) == 0)
		img = path;
	return json_pack("{s:s, s:s?}", "driver", fb->driver, "image", img);
}

static int write_run_json(const char *dir, const struct cell *c,
			  const struct cell_state *st,
			  const struct run_record *r, struct al_err *err)
{
	char path[4600], t0[32], t1[32];
	int rc;
	json_t *root = json_object(), *stations = json_array(), *sum;

	iso_time(r->start, t0, sizeof(t0));
	iso_time(r->end, t1, sizeof(t1));
	for (int i = 0; i < st->n; i++) {
		const struct station_row *s = &st->rows[i];
		json_array_append_new(
		    stations,
		    json_pack("{s:s, s:b, s:o, s:o, s:o, s:s}", "name", s->name,
			      "associated", s->associated, "assoc_s",
			      json_num(s->assoc_s), "signal_dbm",
			      json_num(s->signal_dbm), "txrate_mbps",
			      json_num(s->txrate_mbps), "wpa_state",
			      s->wpa_state));
	}
	sum = outcome_summary_json(r->res);
	json_object_set_new(root, "id", json_string(r->id));
	json_object_set_new(root, "status", json_string(r->status));
	json_object_set_new(root, "reasons", json_string(r->reasons));
	json_object_set_new(root, "lab", json_string(c->lab.name));
	json_object_set_new(root, "lab_file", json_string(c->lab.path));
	json_object_set_new(root, "topology", json_string(c->topo.name));
	json_object_set_new(root, "topology_file", json_string(c->topo.path));
	json_object_set_new(root, "variant", json_string(c->variant.name));
	json_object_set_new(root, "kernel", json_string(r->kernel));
	json_object_set_new(root, "hostapd", json_string(r->hostapd));
	json_object_set_new(root, "ap", ap_json(st));
	json_object_set_new(root, "knobs", knobs_json(c, st));
	json_object_set_new(root, "dut_image", dut_image_json(c));
	/* 0 boots: the run used a DUT already up. */
	json_object_set_new(
	    root, "boot",
	    json_pack("{s:i, s:o}", "boots", st->boots, "first_panic",
		      st->boot_panic[0] ? json_string(st->boot_panic)
					: json_null()));
	json_object_set_new(root, "wpa_supplicant", json_string(r->wpa));
	json_object_set_new(root, "airlab_commit", json_string(r->commit));
	json_object_set_new(root, "start", json_string(t0));
	json_object_set_new(root, "end", json_string(t1));
	json_object_set_new(root, "stations", stations);
	json_object_set_new(root, "summary", sum);
	json_object_set_new(root, "suite", json_string(r->plan->suite->name));
	json_object_set_new(root, "length_s", json_real(r->plan->length_s));
	json_object_set_new(root, "step_s", json_real(r->plan->step_s));
	json_object_set_new(root, "flows", outcome_flows_json(r->plan, r->res));
	json_object_set_new(root, "station_goodput",
			    outcome_station_goodput_json(r->plan, r->res));
	json_object_set_new(root, "airtime",
			    json_pack("{s:o, s:o}", r->air[0].source,
				      airtime_json(c, &r->air[0]),
				      r->air[1].source,
				      airtime_json(c, &r->air[1])));
	json_object_set_new(root, "link", link_json(c, r));
	json_object_set_new(root, "flent_file",
			    r->flent_file ? json_string(r->flent_file)
					  : json_null());
	snprintf(path, sizeof(path), "%s/run.json", dir);
	/* Written aside and renamed: a killed run leaves no half file. */
	rc = json_write_atomic(root, path, 1, err);
	json_decref(root);
	return rc;
}

/* The agent built beside this airlab binary (build/guest/airlab-agent),
 * which is what station hosts get. */
static int local_agent(char *buf, size_t len, struct al_err *err)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return al_errf(err, "cannot read /proc/self/exe: %s",
			       strerror(errno));
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	if ((size_t)snprintf(buf, len, "%s/guest/airlab-agent", exe) >= len)
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

int cli_run_suite(struct cli_opts *o, const char *suite, struct suite_params *p,
		  const char *out_dir, int wait_s, struct cli_run_result *out)
{
	const char *names[TOPO_MAX_STATIONS];
	static struct suite_agent sta[TOPO_MAX_STATIONS];
	pid_t pids[TOPO_MAX_STATIONS + 1];
	struct suite_agent server = {0};
	static struct cell_state st;
	static struct cell c;
	static struct remote_agents remote;
	struct suite_plan plan;
	struct suite_outcome res = {0};
	struct run_record rec = {0};
	const struct suite *s;
	struct flent_file *f = NULL;
	struct al_err err;
	struct dut d;
	char out_default[4200], id[256], dir[4500], fname[512], fpath[5100];
	int rc, nagents, exit_code = AL_EXIT_LAB;

	memset(out, 0, sizeof(*out));
	out->exit_code = AL_EXIT_USAGE;
	/* Everything the user gave is checked before anything starts. */
	if (!(s = suite_find(suite, &err))) {
		fprintf(stderr, "airlab run: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	if (cli_cell_load(&c, o) < 0)
		return AL_EXIT_USAGE;
	if (stahost_check_traffic(&c, &err) < 0) {
		fprintf(stderr, "airlab run: %s\n", err.msg);
		cell_free(&c);
		return AL_EXIT_USAGE;
	}
	if (server_remote(&c) && !c.topo.server.address[0]) {
		fprintf(stderr,
			"airlab run: %s:%d: the traffic server is host %s, "
			"not the AP's: give its address: (where the stations "
			"reach it)\n",
			c.topo.path, c.topo.server.line, c.topo.server.host);
		cell_free(&c);
		return AL_EXIT_USAGE;
	}
	for (int i = 0; i < c.topo.nstations; i++)
		names[i] = c.topo.stations[i].name;
	p->stations = names;
	p->n_stations = (size_t)c.topo.nstations;
	if (suite_expand(s, p, &plan, &err) < 0) {
		fprintf(stderr, "airlab run: %s\n", err.msg);
		cell_free(&c);
		return AL_EXIT_USAGE;
	}
	if (!out_dir) {
		snprintf(out_default, sizeof(out_default), "%s/results",
			 o->root);
		out_dir = out_default;
	}
	/* Where the results go is checked before the lab is touched: on a
	 * bench a refusal after the DUT was flashed costs minutes. */
	if (path_mkdirs(out_dir) < 0 || access(out_dir, W_OK) != 0) {
		fprintf(stderr,
			"airlab run: --out %s: cannot write results there: "
			"%s\n",
			out_dir, strerror(errno));
		exit_code = AL_EXIT_USAGE;
		goto out_plan;
	}
	out->exit_code = AL_EXIT_LAB;
	/* The lab itself failing (no DUT, no boot, stations that do not
	 * associate) is told apart from a run that went wrong. */
	out->lab_failed = 1;
	if ((exit_code = cli_dut_open(&d, &c.lab, c.ap_host->name)) !=
	    AL_EXIT_OK) {
		/* a driver setting the lab file gets wrong is not the lab
		 * failing */
		out->lab_failed = exit_code != AL_EXIT_USAGE;
		goto out_plan;
	}
	exit_code = AL_EXIT_LAB;
	signal(SIGPIPE, SIG_IGN);
	rec.id = id;
	rec.plan = &plan;
	rec.start = unix_now();
	if (cli_cell_up(&c, &d, wait_s, true, &st) < 0) {
		/* A DUT that did not flash or boot, stations that could not
		 * be asked: a result of its own, kept with the console. */
		if (make_run_dir(out_dir, s->name, c.variant.name, id,
				 sizeof(id), dir, sizeof(dir)) < 0)
			goto out_dut;
		snprintf(out->id, sizeof(out->id), "%s", id);
		snprintf(out->dir, sizeof(out->dir), "%s", dir);
		rec.status = "lab-failed";
		rec.reasons = st.failure;
		snprintf(out->failure, sizeof(out->failure), "%s", st.failure);
		for (int i = 0; i < 2; i++) {
			rec.air[i].source = i ? "nl80211" : "medium";
			snprintf(rec.air[i].why, sizeof(rec.air[i].why),
				 "the lab failed before the run");
		}
		goto record;
	}
	out->lab_failed = 0;
	out->stations = st.n;
	out->associated = st.nassoc;
	if (make_run_dir(out_dir, s->name, c.variant.name, id, sizeof(id), dir,
			 sizeof(dir)) < 0)
		goto out_dut;
	snprintf(out->id, sizeof(out->id), "%s", id);
	snprintf(out->dir, sizeof(out->dir), "%s", dir);
	snprintf(rec.kernel, sizeof(rec.kernel), "%s", st.release);
	/* The AP's driver read its hostapd when it came up. */
	if (st.ap.version[0])
		snprintf(rec.hostapd, sizeof(rec.hostapd), "%s", st.ap.version);
	else
		dut_line(&d, "hostapd -v 2>&1 | grep -m1 hostapd", rec.hostapd,
			 sizeof(rec.hostapd));
	dut_line(&d, "wpa_supplicant -v | grep -m1 wpa_supplicant", rec.wpa,
		 sizeof(rec.wpa));
	cli_git_commit(o->root, rec.commit, sizeof(rec.commit));
	fprintf(stderr, "run %s: %s for %.0f s on %d stations\n", id, s->name,
		plan.total_s, c.topo.nstations);

	/* Airtime is read around the whole run: the medium's counters on
	 * the virtual lab, nl80211's tx/rx duration where the AP reports
	 * them. */
	static struct airtime_both air0, air1;
	airtime_snapshot(&d, &c, st.rows, st.n, &air0);
	memset(&remote, 0, sizeof(remote));
	if (remote_prepare(&remote, &c, &err) < 0)
		nagents = -1;
	else
		nagents =
		    spawn_agents(&d, &c, &remote, &server, sta, pids, &err);
	if (nagents == c.topo.nstations + 1) {
		struct load_probe *lp = calloc(1, sizeof(*lp));
		struct suite_run_opts ro = {
		    .server_addr = remote.server_open ? c.topo.server.address
						      : SERVER_ADDR,
		    .on_load = lp ? load_snapshot : NULL,
		    .load_ctx = lp};

		if (lp)
			lp->c = &c;
		rc = suite_run(&plan, &server, sta, &ro, &f, &res, &err);
		if (lp && lp->at[0].medium.n > 0 && lp->at[1].medium.n > 0) {
			airtime_delta(&lp->at[0].medium, &lp->at[1].medium,
				      &rec.air[0].load);
			rec.air[0].load_ok =
			    rec.air[0].load.chan_have &&
			    rec.air[0].load.chan_elapsed_us > 0;
		}
		free(lp);
	} else {
		rc = -1;
	}
	if (nagents > 0)
		reap_agents(&server, sta, pids, nagents);
	remote_close(&remote);
	rec.end = unix_now();
	airtime_snapshot(&d, &c, st.rows, st.n, &air1);
	airtime_result(&rec.air[0], "medium", &air0.medium, &air1.medium,
		       air0.why_medium, air1.why_medium);
	airtime_result(&rec.air[1], "nl80211", &air0.nl, &air1.nl, air0.why_nl,
		       air1.why_nl);
	if (air0.link.n > 0 && air1.link.n > 0)
		link_delta(&air0.link, &air1.link, &rec.link);

	if (rc < 0) {
		rec.status = "failed";
		rec.reasons = err.msg;
		fprintf(stderr, "airlab run: %s\n", err.msg);
	} else {
		flent_meta_str(f, "TITLE", id);
		flent_meta_str(f, "KERNEL_RELEASE", st.release);
		flent_meta_str(f, "NOTE", c.variant.description);
		flent_filename(f, fname, sizeof(fname));
		snprintf(fpath, sizeof(fpath), "%s/%s", dir, fname);
		if (flent_write(f, fpath, &err) < 0) {
			rec.status = "failed";
			rec.reasons = err.msg;
			fprintf(stderr, "airlab run: %s\n", err.msg);
		} else {
			rec.flent_file = fname;
			rec.res = &res;
			rec.status = res.partial ? "partial" : "complete";
			rec.reasons = res.reasons;
			suite_print_summary(stdout, &plan, &res);
			airtime_print(stdout, &c, &rec.air[0]);
			airtime_print(stdout, &c, &rec.air[1]);
			exit_code = res.partial ? AL_EXIT_PARTIAL : AL_EXIT_OK;
		}
	}
record:
	if (!rec.end)
		rec.end = unix_now();
	/* What the DUT's console said while this run had it (its boot,
	 * a flash), beside the results. */
	if (dut_console_log_save(&d, dir, &err) < 0)
		fprintf(stderr, "airlab run: %s\n", err.msg);
	if (write_run_json(dir, &c, &st, &rec, &err) < 0) {
		fprintf(stderr, "airlab run: %s\n", err.msg);
		exit_code = AL_EXIT_LAB;
	} else {
		struct store *db;

		/* The run directory is the truth; an index that cannot take
		 * it is rebuilt later (airlab reindex), the run stays. */
		if (store_open(&db, out_dir, &err) < 0 ||
		    store_add_run(db, dir, &err) < 0)
			fprintf(stderr,
				"airlab run: %s (the run is kept in %s; "
				"`airlab reindex` indexes it)\n",
				err.msg, dir);
		store_close(db);
	}
	printf("run %s: %s, results in %s\n", id, rec.status, dir);
	flent_free(f);
	free(res.flow_mbps);
out_dut:
	dut_close(&d);
out_plan:
	suite_plan_free(&plan);
	cell_free(&c);
	out->exit_code = exit_code;
	return exit_code;
}

int cmd_run(int argc, char **argv, struct cli_opts *o)
{
	struct run_args a = {.wait_s = 60};
	struct cli_run_result r;
	int rc;

	if ((rc = parse_args(argc, argv, o, &a)) >= 0)
		return rc;
	return cli_run_suite(o, a.suite, &a.p, a.out_dir, a.wait_s, &r);
}

int cmd_suites(int argc, char **argv, struct cli_opts *o)
{
	size_t n;
	struct al_err err;
	const struct suite *s;
	int rc = cli_parse("suites", argc, argv, o, NULL, NULL, 0);

	if (rc >= 0)
		return rc;
	if (!(s = suite_list(&n, &err))) {
		fprintf(stderr, "airlab suites: %s\n", err.msg);
		return AL_EXIT_USAGE;
	}
	/* The file each is read from; a user's that replaces the tree's
	 * says so. */
	for (size_t i = 0; i < n; i++)
		printf("%-10s %5.0f s  %s  [%s%s%s]\n", s[i].name,
		       s[i].length_s, s[i].description, s[i].path,
		       s[i].overrides ? ", overrides " : "",
		       s[i].overrides ? s[i].overrides : "");
	return 0;
}
