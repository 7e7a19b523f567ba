/* The nightly strategy (strategy/nightly.c) without a lab: a cell whose
 * DUT's power driver cannot say whether it is on (a command that fails),
 * so that a night starts, is checked and refused as the CLI would, and a
 * night that runs finds its lab failed at the first run. What is checked:
 * progress.json written and read back on --resume (a lab-failed run made
 * again), the refusals before anything is written, the night's lock held
 * by a live process and taken over from a killed one, the comparisons,
 * summary.json and junit.xml of a night from runs stored here (Flent
 * files and run.json written, indexed with the store), the night's
 * status for each mix of runs, and a night whose lab fails. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "../results/flent.h"
#include "../results/store.h"
#include "../strategy/nightly.h"
#include "../util/path.h"

static char root[64];
static char results[128], lab[128], topo[128], kernel[128];
static char plan_path[256];

static void write_file(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void write_file(const char *name, const char *fmt, ...)
{
	char path[256];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "w");
	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(f), 0);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	if (!f)
		fail_msg("%s is not there", path);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void assert_has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' is not in '%s'", needle, hay);
}

/* A plan of the fixture's cell: variant v, suites ping (and more). */
static void write_plan(const char *name, const char *suites, int repeat)
{
	write_file(name,
		   "name: t\nlab: lab.yaml\ntopology: topology.yaml\n"
		   "variants: [v]\nsuites: [%s]\nrepeat: %d\n"
		   "thresholds: {latency: 0.1}\n",
		   suites, repeat);
}

static void request(struct night_request *rq, const char *plan,
		    const char *resume)
{
	snprintf(plan_path, sizeof(plan_path), "%s/%s", root, plan ? plan : "");
	*rq = (struct night_request){
	    .plan_file = plan ? plan_path : NULL,
	    .resume = resume,
	    .cell = {lab, topo, NULL, kernel},
	    .root = root,
	    .results = results,
	    .wait_s = 5,
	};
}

/* night_start on a new night (plan) or a resumed one; the night. */
static struct night *start(const char *plan, const char *resume)
{
	struct night_request rq;
	struct night *nt = night_new();
	struct al_err err;

	assert_non_null(nt);
	request(&rq, plan, resume);
	if (night_start(nt, &rq, &err) < 0)
		fail_msg("night_start: %s", err.msg);
	return nt;
}

/* night_start refused: at which step, whether bad input, what it said. */
static void refused(const char *plan, const char *resume, enum night_stage at,
		    bool bad_input, const char *want)
{
	struct night_request rq;
	struct night *nt = night_new();
	struct al_err err = {0};

	assert_non_null(nt);
	request(&rq, plan, resume);
	assert_int_equal(night_start(nt, &rq, &err), -1);
	assert_int_equal(nt->failed_at, at);
	assert_int_equal(err.bad_input, bad_input);
	assert_has(err.msg, want);
	assert_false(nt->locked);
	night_free(nt);
}

static json_t *load_json(const char *dir, const char *name)
{
	char path[4700];
	json_error_t jerr;
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	j = json_load_file(path, 0, &jerr);
	if (!j)
		fail_msg("%s: %s", path, jerr.text);
	return j;
}

static const char *jstr(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "(not a string)";
}

/* progress.json as a night leaves it, by hand: dir nightly/name. */
static void write_progress(const char *name, const char *plan,
			   const char *status, const char *runs)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/nightly/%s", results, name);
	assert_int_equal(path_mkdirs(dir), 0);
	snprintf(dir, sizeof(dir), "res/nightly/%s/progress.json", name);
	write_file(dir,
		   "{\"plan_file\": \"%s/%s\", \"lab\": \"%s\", "
		   "\"topology\": \"%s\", \"variant_dir\": \"%s\", "
		   "\"results\": \"%s\", \"stamp\": \"20261207T020000Z\", "
		   "\"status\": \"%s\", \"runs\": [%s]}\n",
		   root, plan, lab, topo, kernel, results, status, runs);
}

/* ---- progress.json ---- */

static void progress_round_trip(void **state)
{
	struct night *nt = start("plan3.yaml", NULL), *again;
	char name[64], lock[4600];
	json_t *j;

	(void)state;
	assert_int_equal(nt->total, 3);
	assert_int_equal(nt->n, 0);
	assert_true(nt->locked);
	assert_int_equal(strlen(nt->stamp), 16);
	snprintf(lock, sizeof(lock), "%s/locks/night.lock", nt->dir);
	assert_int_equal(access(lock, F_OK), 0);
	j = load_json(nt->dir, "progress.json");
	assert_string_equal(jstr(j, "status"), "running");
	assert_string_equal(jstr(j, "lab"), lab);
	assert_string_equal(jstr(j, "stamp"), nt->stamp);
	assert_int_equal(json_array_size(json_object_get(j, "runs")), 0);
	json_decref(j);

	/* Two runs stored: a partial one, then one whose lab failed. */
	nt->runs[0] = (struct night_run){.suite = "ping",
					 .variant = "v",
					 .id = "20261207T030000Z-ping-v",
					 .dir = "/r/20261207T030000Z-ping-v",
					 .exit_code = NIGHT_CODE_PARTIAL,
					 .seconds = 61.5};
	nt->runs[1] = (struct night_run){.suite = "ping",
					 .variant = "v",
					 .id = "20261207T031000Z-ping-v",
					 .exit_code = NIGHT_CODE_FAILED,
					 .lab_failed = 1};
	nt->n = 2;
	assert_int_equal(night_progress_write(nt, "running", NULL), 0);
	snprintf(name, sizeof(name), "%s", strrchr(nt->dir, '/') + 1);

	/* Resumed on the cell it began on, not the one asked for. */
	snprintf(lab, sizeof(lab), "%s/no-such-lab.yaml", root);
	again = start(NULL, name);
	snprintf(lab, sizeof(lab), "%s/lab.yaml", root);
	assert_string_equal(again->lab, lab);
	assert_string_equal(again->dir, nt->dir);
	assert_string_equal(again->stamp, nt->stamp);
	assert_true(again->resumed);
	assert_int_equal(again->total, 3);
	/* The lab-failed run is made again. */
	assert_int_equal(again->n, 1);
	assert_int_equal(again->done_before, 1);
	assert_string_equal(again->runs[0].id, "20261207T030000Z-ping-v");
	assert_string_equal(again->runs[0].dir, "/r/20261207T030000Z-ping-v");
	assert_string_equal(again->runs[0].suite, "ping");
	assert_string_equal(again->runs[0].variant, "v");
	assert_int_equal(again->runs[0].exit_code, NIGHT_CODE_PARTIAL);
	assert_false(again->runs[0].lab_failed);
	assert_true(again->runs[0].seconds == 61.5);
	/* (its lock nests: one process) */
	night_free(again);
	night_free(nt);

	/* Another night the same day has a directory of its own. */
	nt = start("plan3.yaml", NULL);
	snprintf(lock, sizeof(lock), "%s-2", name);
	assert_string_equal(strrchr(nt->dir, '/') + 1, lock);
	night_free(nt);
}

static int count_nights(void)
{
	char cmd[256];
	int n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s/nightly' 2>/dev/null | wc -l",
		 results);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

/* Refused before anything is written: no night directory. */
static void refusals(void **state)
{
	int before = count_nights();

	(void)state;
	refused("plan3.yaml", "2026-01-01", NIGHT_AT_REQUEST, true,
		"--resume DATE takes no plan (the night names its own)");
	refused(NULL, NULL, NIGHT_AT_REQUEST, true, "which plan?");
	refused(NULL, "../x", NIGHT_AT_REQUEST, true,
		"--resume takes a night's name, e.g. 2026-12-07");
	refused(NULL, "2026-01-01", NIGHT_AT_PLAN, true,
		"--resume 2026-01-01: unable to open");
	write_progress("2026-01-02", "plan3.yaml", "done", "");
	refused(NULL, "2026-01-02", NIGHT_AT_PLAN, true,
		"--resume 2026-01-02: the night has ended (");
	refused("nope.yaml", NULL, NIGHT_AT_PLAN, true, "nope.yaml");
	write_file("plan-var.yaml",
		   "name: t\nlab: lab.yaml\ntopology: topology.yaml\n"
		   "variants:\n  - v\n  - nosuch\nsuites: [{name: ping}]\n");
	refused("plan-var.yaml", NULL, NIGHT_AT_PLAN, true,
		"plan-var.yaml:6: unknown variant 'nosuch' (");
	write_plan("plan-many.yaml",
		   "{name: ping}, {name: rrul}, {name: tcp_1up}", 100);
	refused("plan-many.yaml", NULL, NIGHT_AT_PLAN, true,
		"plan-many.yaml: 300 runs, at most 256");
	write_file("plan-lab.yaml", "name: t\nlab: nolab.yaml\nvariants: "
				    "[v]\nsuites: [{name: ping}]\n");
	refused("plan-lab.yaml", NULL, NIGHT_AT_CELL, true, "nolab.yaml");
	/* (the ended one written here) */
	assert_int_equal(count_nights(), before + 1);
	/* Results where nothing can be written: the disk, not the input. */
	snprintf(results, sizeof(results), "/proc/airlab-nightly-test");
	refused("plan3.yaml", NULL, NIGHT_AT_PLAN, false,
		"cannot create a night directory under "
		"/proc/airlab-nightly-test/nightly");
	snprintf(results, sizeof(results), "%s/res", root);
}

/* ---- the lock ---- */

/* A child that starts night name (or a new one) and holds it until it is
 * killed; its night directory's name comes back through a pipe. */
static pid_t holder(const char *resume, char *name, size_t len)
{
	int fds[2];
	pid_t pid;
	ssize_t n;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct night_request rq;
		struct night *nt = night_new();
		struct al_err err;

		close(fds[0]);
		request(&rq, resume ? NULL : "plan3.yaml", resume);
		if (!nt || night_start(nt, &rq, &err) < 0)
			_exit(1);
		if (write(fds[1], strrchr(nt->dir, '/') + 1,
			  strlen(strrchr(nt->dir, '/') + 1)) < 0)
			_exit(1);
		close(fds[1]);
		pause();
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], name, len - 1);
	close(fds[0]);
	assert_true(n > 0);
	name[n] = 0;
	return pid;
}

static void lock_live_and_dead(void **state)
{
	char name[64], again[64];
	struct night *nt;
	pid_t pid = holder(NULL, name, sizeof(name));
	int st;

	(void)state;
	refused(NULL, name, NIGHT_AT_LOCK, false,
		"is in use by another airlab (pid=");
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	/* The killed one's lock is taken over. */
	nt = start(NULL, name);
	assert_true(nt->locked);
	night_free(nt);
	/* And the night goes on in another process as well. */
	pid = holder(name, again, sizeof(again));
	assert_string_equal(again, name);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

/* ---- comparisons, summary.json, junit.xml ---- */

/* A stored ping run: 100 probes of lat_ms (+0..4%) and a download of
 * mbps, its run.json, indexed. */
static void stored_run(const char *id, double t0, double lat_ms, double mbps)
{
	char dir[4200], path[4300];
	struct flent_file *f;
	struct al_err err;
	struct store *s;
	int ping, down;

	snprintf(dir, sizeof(dir), "%s/%s", results, id);
	assert_int_equal(path_mkdirs(dir), 0);
	f = flent_new("ping", t0, 0.2, 20, 22, &err);
	assert_non_null(f);
	ping = flent_series(f, "Ping (ms)::1", "ms");
	down = flent_series(f, "TCP download::1", "Mbits/s");
	for (int k = 0; k < 100; k++) {
		flent_raw(f, ping, t0 + 1 + k * 0.2,
			  lat_ms * (1 + 0.01 * (k % 5)), NULL);
		flent_raw(f, down, t0 + 1 + k * 0.2, mbps + k % 3, NULL);
	}
	snprintf(path, sizeof(path), "%s/run.flent.gz", dir);
	assert_int_equal(flent_write(f, path, &err), 0);
	flent_free(f);
	snprintf(path, sizeof(path), "res/%s/run.json", id);
	write_file(path,
		   "{\"id\": \"%s\", \"status\": \"complete\", \"reasons\": "
		   "\"\", \"suite\": \"ping\", \"variant\": \"v\", \"lab\": "
		   "\"t\", \"topology\": \"t\", \"start\": \"%.16s\", "
		   "\"end\": \"%.16s\", \"flent_file\": \"run.flent.gz\", "
		   "\"summary\": {\"latency_median_ms\": %g, "
		   "\"latency_p99_ms\": %g, \"up_mbps\": 0, \"down_mbps\": "
		   "%g}}\n",
		   id, id, id, lat_ms * 1.02, lat_ms * 1.04, mbps + 1);
	assert_int_equal(store_open(&s, results, &err), 0);
	if (store_add_run(s, dir, &err) < 0)
		fail_msg("%s", err.msg);
	store_close(s);
}

#define BASE	"20261201T030000Z-ping-v"
#define TONIGHT "20261207T030000Z-ping-v"
#define SECOND	"20261207T031000Z-ping-v"

static void summary_and_junit(void **state)
{
	char runs[2048], *junit, dir[4700];
	struct night *nt;
	json_t *j, *r;

	(void)state;
	stored_run(BASE, 1.7e9, 10, 50);
	stored_run(TONIGHT, 1.7e9 + 6 * 86400, 30, 50);
	stored_run(SECOND, 1.7e9 + 6 * 86400 + 600, 10, 50);
	snprintf(runs, sizeof(runs),
		 "{\"suite\": \"ping\", \"variant\": \"v\", \"id\": \"%s\", "
		 "\"dir\": \"%s/%s\", \"exit_code\": 0, \"lab_failed\": "
		 "false, \"seconds\": 42.0}, {\"suite\": \"ping\", "
		 "\"variant\": \"v\", \"id\": \"%s\", \"dir\": \"%s/%s\", "
		 "\"exit_code\": 0, \"lab_failed\": false, \"seconds\": 41.0}",
		 TONIGHT, results, TONIGHT, SECOND, results, SECOND);
	write_plan("plan-stored.yaml", "{name: ping, length: 3}", 2);
	write_progress("stored", "plan-stored.yaml", "running", runs);
	nt = start(NULL, "stored");
	assert_int_equal(nt->n, 2);
	assert_int_equal(nt->total, 2);
	night_run_all(nt); /* nothing left to run */
	assert_int_equal(nt->n, 2);
	assert_int_equal(night_finish(nt), NIGHT_REGRESSED);
	assert_false(nt->locked);

	/* The first run against the last good run before the night; the
	 * second one's last good run is of tonight: no baseline. */
	assert_string_equal(nt->runs[0].base, BASE);
	assert_int_equal(nt->runs[0].nr, 2);
	assert_true(nt->runs[0].worse);
	assert_string_equal(nt->runs[1].base, "");
	assert_int_equal(nt->runs[1].nr, 0);
	assert_true(fabs(nt->runs[0].lat_ms - 30.6) < 1e-9);
	assert_true(fabs(nt->runs[0].goodput_mbps - 51) < 1e-9);

	j = load_json(nt->dir, "summary.json");
	assert_string_equal(jstr(j, "status"), "regressed");
	assert_string_equal(jstr(j, "plan"), "t");
	assert_string_equal(jstr(j, "reason"), "");
	assert_int_equal(json_integer_value(json_object_get(j, "regressions")),
			 1);
	snprintf(dir, sizeof(dir), "%s/report/index.html", nt->dir);
	assert_string_equal(jstr(j, "report"), dir);
	r = json_array_get(json_object_get(j, "runs"), 0);
	assert_string_equal(jstr(r, "id"), TONIGHT);
	assert_string_equal(jstr(r, "status"), "complete");
	assert_string_equal(jstr(r, "baseline"), BASE);
	assert_true(json_is_true(json_object_get(r, "regressed")));
	r = json_array_get(json_object_get(r, "comparisons"), 0);
	assert_string_equal(jstr(r, "metric"), "latency");
	assert_string_equal(jstr(r, "verdict"), "worse");
	assert_true(fabs(json_number_value(json_object_get(r, "change")) - 2) <
		    1e-9);
	r = json_array_get(json_object_get(j, "runs"), 1);
	assert_true(json_is_null(json_object_get(r, "baseline")));
	assert_int_equal(json_array_size(json_object_get(r, "comparisons")), 0);
	json_decref(j);

	snprintf(dir, sizeof(dir), "%s/junit.xml", nt->dir);
	junit = slurp(dir);
	assert_has(junit, "<testsuite name=\"airlab-nightly\" tests=\"2\" "
			  "failures=\"1\" errors=\"0\">");
	assert_has(junit, "<testcase classname=\"ping.v\" name=\"" TONIGHT
			  "\" time=\"42.0\"><failure message=\"worse than " BASE
			  ": latency +200.0%\"/></testcase>");
	assert_has(junit, "<testcase classname=\"ping.v\" name=\"" SECOND
			  "\" time=\"41.0\"></testcase>");
	free(junit);
	j = load_json(nt->dir, "progress.json");
	assert_string_equal(jstr(j, "status"), "done");
	json_decref(j);
	night_free(nt);
	refused(NULL, "stored", NIGHT_AT_PLAN, true, "the night has ended");
}

/* The night's status: the lab, then a regression, then the worst run (a
 * failed one over a partial one). */
static void status_of_runs(void **state)
{
	const struct {
		int codes[3], worse, lab_failed;
		enum night_status want;
	} cases[] = {
	    {{0, 0, 0}, 0, 0, NIGHT_OK},
	    {{0, 3, 0}, 0, 0, NIGHT_PARTIAL},
	    {{3, 4, 3}, 0, 0, NIGHT_FAILED},
	    {{2, 3, 0}, 0, 0, NIGHT_FAILED},
	    {{3, 0, 4}, 1, 0, NIGHT_REGRESSED},
	    {{0, 0, 0}, 1, 1, NIGHT_LAB_FAILED},
	};
	struct night *nt = night_new();

	(void)state;
	assert_non_null(nt);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nt->n = 3;
		nt->lab_failed = cases[i].lab_failed;
		for (int k = 0; k < 3; k++) {
			nt->runs[k].exit_code = cases[i].codes[k];
			nt->runs[k].worse = k == 1 && cases[i].worse;
		}
		if (night_status(nt) != cases[i].want)
			fail_msg("case %zu: status %d, want %d", i,
				 night_status(nt), cases[i].want);
	}
	nt->runs[0] = (struct night_run){.exit_code = NIGHT_CODE_PARTIAL};
	assert_string_equal(night_run_status(&nt->runs[0]), "partial");
	nt->runs[0].exit_code = NIGHT_CODE_REFUSED;
	assert_string_equal(night_run_status(&nt->runs[0]), "failed");
	nt->runs[0].lab_failed = 1;
	assert_string_equal(night_run_status(&nt->runs[0]), "lab-failed");
	night_free(nt);
}

/* ---- a night whose lab fails ---- */

static void lab_fails(void **state)
{
	char *junit, path[4700];
	struct night *nt;
	json_t *j, *r;

	(void)state;
	nt = start("plan3.yaml", NULL);
	night_run_all(nt);
	/* The first run finds the lab failed: the night stops there. */
	assert_int_equal(nt->n, 1);
	assert_true(nt->lab_failed);
	assert_has(nt->why, "the cell did not come up for ping on v: dut1: "
			    "power get: ");
	assert_has(nt->why, "no power here");
	assert_true(nt->runs[0].lab_failed);
	assert_int_equal(nt->runs[0].exit_code, NIGHT_CODE_FAILED);
	assert_string_equal(night_run_status(&nt->runs[0]), "lab-failed");
	assert_non_null(strstr(nt->runs[0].id, "-ping-v"));
	j = load_json(nt->runs[0].dir, "run.json");
	assert_string_equal(jstr(j, "status"), "lab-failed");
	json_decref(j);
	j = load_json(nt->dir, "progress.json");
	assert_string_equal(jstr(j, "status"), "running");
	assert_int_equal(json_array_size(json_object_get(j, "runs")), 1);
	json_decref(j);

	assert_int_equal(night_finish(nt), NIGHT_LAB_FAILED);
	assert_true(isnan(nt->runs[0].lat_ms));
	j = load_json(nt->dir, "summary.json");
	assert_string_equal(jstr(j, "status"), "lab-failed");
	assert_string_equal(jstr(j, "reason"), nt->why);
	r = json_array_get(json_object_get(j, "runs"), 0);
	assert_string_equal(jstr(r, "status"), "lab-failed");
	assert_true(json_is_null(json_object_get(r, "baseline")));
	json_decref(j);
	snprintf(path, sizeof(path), "%s/junit.xml", nt->dir);
	junit = slurp(path);
	assert_has(junit, "tests=\"1\" failures=\"1\" errors=\"1\">");
	assert_has(junit, "<testcase classname=\"lab\" name=\"bring-up\">"
			  "<error message=\"the cell did not come up for "
			  "ping on v: dut1: power get: &#39;");
	assert_has(junit, "<failure message=\"run lab-failed\"/>");
	free(junit);
	j = load_json(nt->dir, "progress.json");
	assert_string_equal(jstr(j, "status"), "done");
	json_decref(j);
	night_free(nt);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/airlab-test-nightly.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(results, sizeof(results), "%s/res", root);
	snprintf(lab, sizeof(lab), "%s/lab.yaml", root);
	snprintf(topo, sizeof(topo), "%s/topology.yaml", root);
	snprintf(kernel, sizeof(kernel), "%s/kernel", root);
	mkdir(kernel, 0755);
	/* Shells nobody answers (port 1): nothing gets that far. */
	write_file("lab.yaml",
		   "lab: nightly-test\nstate_dir: %s/state\nimage_dir: %s\n"
		   "hosts:\n"
		   "  dut1:\n"
		   "    power: {driver: command, on: \"true\", off: \"true\", "
		   "get: \"echo no power here >&2; exit 3\"}\n"
		   "    shell: {driver: ssh, host: 127.0.0.1, port: 1, "
		   "user: root}\n"
		   "    ap: {driver: hostapd, state_dir: %s/ap, wired: lo}\n"
		   "  box1:\n"
		   "    shell: {driver: ssh, host: 127.0.0.1, port: 1, "
		   "user: root}\n",
		   root, root, root);
	write_file("topology.yaml",
		   "cell: nightly-test\n"
		   "ap: {host: dut1, radio: radio0, ssid: test-cell, "
		   "passphrase: test-passphrase, channel: 6}\n"
		   "server: {host: dut1, link: veth}\n"
		   "stations:\n"
		   "  - {name: sta1, host: box1, radio: wlan1, path: p1, "
		   "base_loss_db: 40, address: 10.42.0.63/24}\n");
	write_file("kernel/v.yaml", "variant: v\nkernel: \"6.1\"\n");
	write_plan("plan3.yaml", "{name: ping, length: 3}", 3);
	return 0;
}

static int remove_one(const char *path, const struct stat *sb, int flag,
		      struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(progress_round_trip),
	    cmocka_unit_test(refusals),
	    cmocka_unit_test(lock_live_and_dead),
	    cmocka_unit_test(summary_and_junit),
	    cmocka_unit_test(status_of_runs),
	    cmocka_unit_test(lab_fails),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
