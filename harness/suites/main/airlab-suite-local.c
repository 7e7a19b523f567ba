/* airlab-suite-local: runs one suite with agents in local network
 * namespaces (`ip netns exec NS airlab-agent`, or no namespace for "-")
 * and writes the Flent file. The integration test and lab bring-up scripts
 * use it; `airlab run` drives the same suite_run() over SSH. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../util/json_file.h"
#include "../outcome_json.h"
#include "../run.h"
#include "../suites.h"

#define MAX_ST 64

static pid_t spawn(const char *ns, const char *agent, struct suite_agent *a)
{
	int in[2], out[2];
	pid_t pid;

	if (pipe(in) || pipe(out))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		if (!strcmp(ns, "-"))
			execl(agent, agent, (char *)NULL);
		else
			execl("/usr/sbin/ip", "ip", "netns", "exec", ns, agent,
			      (char *)NULL);
		fprintf(stderr, "exec %s in netns %s: %s\n", agent, ns,
			strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	a->to_fd = in[1];
	a->from_fd = out[0];
	return pid;
}

/* The run's own part of run.json, for a host that did not watch it (a
 * LAVA job): what `airlab lava results` stores. */
static int write_record(const char *path, const struct suite_plan *plan,
			const struct suite_outcome *res, const char *flent,
			struct al_err *err)
{
	json_t *root = json_pack(
	    "{s:s, s:f, s:f, s:s, s:s, s:f, s:s, s:o, s:o, s:o}", "suite",
	    plan->suite->name, "length_s", plan->length_s, "step_s",
	    plan->step_s, "status", res->partial ? "partial" : "complete",
	    "reasons", res->reasons, "t0_unix", res->t0_unix, "flent_file",
	    flent, "summary", outcome_summary_json(res), "flows",
	    outcome_flows_json(plan, res), "station_goodput",
	    outcome_station_goodput_json(plan, res));
	int rc;

	if (!root)
		return al_errf(err, "%s: cannot build the record", path);
	rc = json_write_atomic(root, path, 1, err);
	json_decref(root);
	return rc;
}

static bool plan_has(const struct suite_plan *plan, enum suite_kind a,
		     enum suite_kind b)
{
	for (size_t i = 0; i < plan->n_flows; i++)
		if (plan->flows[i].kind == a || plan->flows[i].kind == b)
			return true;
	return false;
}

/* One line per test case, "NAME RESULT [MEASUREMENT UNITS]", for a shell
 * to hand to lava-test-case: the run itself, then the headline figures
 * the suite's flows make (one of those not measured is a failed case,
 * not a missing one). */
static int write_cases(const char *path, const struct suite_plan *plan,
		       const struct suite_outcome *res, struct al_err *err)
{
	const bool probes = plan_has(plan, SUITE_UDP_RTT, SUITE_ICMP);
	const struct {
		const char *name, *units;
		double v;
		bool wanted;
	} figs[] = {
	    {"latency_median", "ms", res->lat_median_ms, probes},
	    {"latency_p90", "ms", res->lat_p90_ms, probes},
	    {"goodput_up", "Mbit/s", res->up_mbps,
	     plan_has(plan, SUITE_TCP_UP, SUITE_TCP_UP)},
	    {"goodput_down", "Mbit/s", res->down_mbps,
	     plan_has(plan, SUITE_TCP_DOWN, SUITE_TCP_DOWN)},
	};
	const char *sn = plan->suite->name;
	FILE *fp = fopen(path, "we");

	if (!fp)
		return al_errf(err, "%s: %s", path, strerror(errno));
	fprintf(fp, "%s-run %s\n", sn, res->partial ? "fail" : "pass");
	for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
		if (!figs[i].wanted)
			continue;
		if (isfinite(figs[i].v))
			fprintf(fp, "%s-%s pass %.6g %s\n", sn, figs[i].name,
				figs[i].v, figs[i].units);
		else
			fprintf(fp, "%s-%s fail\n", sn, figs[i].name);
	}
	if (fclose(fp) != 0)
		return al_errf(err, "%s: %s", path, strerror(errno));
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: airlab-suite-local --suite NAME --agent PATH "
		"--server NS,ADDR --station NS,NAME [--station ...]\n"
		"       [--length S] [--step S] [--streams N] [--cc NAME] "
		"[--title T] [--tcp-port P] [--udp-port P] --out DIR\n"
		"       [--record FILE] [--cases FILE]\n"
		"       airlab-suite-local --list\n");
}

int main(int argc, char **argv)
{
	const char *suite_name = NULL, *agent = NULL, *out_dir = NULL;
	const char *title = NULL, *cc = NULL;
	const char *record = NULL, *cases = NULL;
	char *server = NULL, *st_ns[MAX_ST];
	const char *st_name[MAX_ST];
	size_t n_st = 0;
	struct suite_params p = {0};
	struct suite_run_opts o = {0};
	struct al_err err;

	signal(SIGPIPE, SIG_IGN);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--list")) {
			size_t n;
			const struct suite *s = suite_list(&n, &err);

			if (!s) {
				fprintf(stderr, "airlab-suite-local: %s\n",
					err.msg);
				return 2;
			}
			for (size_t k = 0; k < n; k++)
				printf("%-10s %s\n", s[k].name,
				       s[k].description);
			return 0;
		}
		if (!v) {
			usage();
			return 2;
		}
		i++;
		if (!strcmp(a, "--suite"))
			suite_name = v;
		else if (!strcmp(a, "--agent"))
			agent = v;
		else if (!strcmp(a, "--out"))
			out_dir = v;
		else if (!strcmp(a, "--record"))
			record = v;
		else if (!strcmp(a, "--cases"))
			cases = v;
		else if (!strcmp(a, "--title"))
			title = v;
		else if (!strcmp(a, "--cc"))
			cc = v;
		else if (!strcmp(a, "--length"))
			p.length_s = atof(v);
		else if (!strcmp(a, "--step"))
			p.step_s = atof(v);
		else if (!strcmp(a, "--streams"))
			p.streams = (unsigned)atoi(v);
		else if (!strcmp(a, "--tcp-port"))
			o.tcp_port = (unsigned)atoi(v);
		else if (!strcmp(a, "--udp-port"))
			o.udp_port = (unsigned)atoi(v);
		else if (!strcmp(a, "--server"))
			server = strdup(v);
		else if (!strcmp(a, "--station") && n_st < MAX_ST) {
			char *c = strdup(v), *comma = strchr(c, ',');

			if (!comma) {
				usage();
				return 2;
			}
			*comma = '\0';
			st_ns[n_st] = c;
			st_name[n_st++] = comma + 1;
		} else {
			usage();
			return 2;
		}
	}
	if (!suite_name || !agent || !out_dir || !server || !n_st ||
	    !strchr(server, ',')) {
		usage();
		return 2;
	}
	const struct suite *s = suite_find(suite_name, &err);
	struct suite_plan plan;

	if (!s) {
		fprintf(stderr, "airlab-suite-local: %s\n", err.msg);
		return 2;
	}
	p.stations = st_name;
	p.n_stations = n_st;
	p.cc = cc;
	if (suite_expand(s, &p, &plan, &err)) {
		fprintf(stderr, "airlab-suite-local: %s\n", err.msg);
		return 2;
	}
	*strchr(server, ',') = '\0';
	o.server_addr = server + strlen(server) + 1;

	struct suite_agent srv = {.host = "server"};
	struct suite_agent sta[MAX_ST];
	pid_t pids[MAX_ST + 1];

	memset(sta, 0, sizeof(sta));
	pids[0] = spawn(server, agent, &srv);
	for (size_t k = 0; k < n_st; k++) {
		sta[k].host = st_name[k];
		pids[k + 1] = spawn(st_ns[k], agent, &sta[k]);
	}
	struct flent_file *f = NULL;
	struct suite_outcome res;
	int rc = suite_run(&plan, &srv, sta, &o, &f, &res, &err);

	/* Closing an agent's stdin makes it finish and exit. */
	close(srv.to_fd);
	for (size_t k = 0; k < n_st; k++)
		close(sta[k].to_fd);
	for (size_t k = 0; k <= n_st; k++)
		if (pids[k] > 0)
			waitpid(pids[k], NULL, 0);
	if (rc) {
		fprintf(stderr, "airlab-suite-local: %s\n", err.msg);
		free(res.flow_mbps);
		suite_plan_free(&plan);
		return 1;
	}
	if (title)
		flent_meta_str(f, "TITLE", title);
	char name[512], path[4096];

	mkdir(out_dir, 0755);
	flent_filename(f, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	if (flent_write(f, path, &err)) {
		fprintf(stderr, "airlab-suite-local: %s\n", err.msg);
		flent_free(f);
		free(res.flow_mbps);
		suite_plan_free(&plan);
		return 1;
	}
	suite_print_summary(stdout, &plan, &res);
	printf("wrote %s\n", path);
	if ((record && write_record(record, &plan, &res, name, &err) < 0) ||
	    (cases && write_cases(cases, &plan, &res, &err) < 0)) {
		fprintf(stderr, "airlab-suite-local: %s\n", err.msg);
		flent_free(f);
		free(res.flow_mbps);
		suite_plan_free(&plan);
		return 1;
	}
	flent_free(f);
	free(res.flow_mbps);
	suite_plan_free(&plan);
	return res.partial ? 3 : 0;
}
