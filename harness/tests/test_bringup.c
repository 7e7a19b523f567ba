/* The bring-up strategy and the hostapd AP driver, at the wire: a real
 * dropbear on loopback is the AP host's shell (this machine, which has no
 * radio), the command power driver its power. What is checked: the
 * refusals before anything is touched, the variant's knobs written and
 * read back over SSH (and a missing path named with the variant's
 * file:line), the hostapd driver's errors for a radio that is not there,
 * a missing program and a stop_command that fails, each leaving nothing
 * behind, and bringup_cell holding the DUT to the variant's kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/utsname.h>

#include "../drivers/ap/hostapd.h"
#include "../results/store.h"
#include "../strategy/bringup.h"
#include "../strategy/run.h"
#include "../strategy/sweep.h"
#include "fixture_dropbear.h"

#include <jansson.h>

static struct dropbear_fixture fx;
static int port;
static pid_t server;

static void write_text(const char *name, const char *text)
{
	char path[DB_PATH + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fx.dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int exists(const char *name)
{
	char path[DB_PATH + 64];

	snprintf(path, sizeof(path), "%s/%s", fx.dir, name);
	return access(path, F_OK) == 0;
}

/* A shell binding to the fixture's dropbear (port: a %d). */
#define FIXTURE_SHELL                                                          \
	"    shell:\n"                                                         \
	"      driver: ssh\n"                                                  \
	"      host: 127.0.0.1\n"                                              \
	"      port: %d\n"                                                     \
	"      user: root\n"                                                   \
	"      key: \"{images}/id_ed25519\"\n"                                 \
	"      known_host_key: \"{images}/host_key.pub\"\n"

/* lab.yaml with dut1 (command power, SSH to the fixture) and its ap:
 * binding (ap_lines, indented six), topology.yaml with station lines,
 * and variant file v.yaml, their paths in p. */
static char lab_path[DB_PATH + 16], topo_path[DB_PATH + 16],
    var_path[DB_PATH + 16];

static void write_cell(const char *ap_lines, const char *stations,
		       const char *ap_extra, const char *variant,
		       struct cell_paths *p)
{
	char text[4096];

	snprintf(text, sizeof(text),
		 "lab: bringup-test\n"
		 "state_dir: %s/state\n"
		 "image_dir: %s\n"
		 "hosts:\n"
		 "  dut1:\n"
		 "    power:\n"
		 "      driver: command\n"
		 "      on: \"echo on >{state}/pw\"\n"
		 "      off: \"echo off >{state}/pw\"\n"
		 "      get: \"cat {state}/pw 2>/dev/null || echo off\"\n"
		 "      boot_timeout_s: 10\n" FIXTURE_SHELL "%s"
		 "  box1:\n" FIXTURE_SHELL,
		 fx.dir, fx.dir, port, ap_lines, port);
	write_text("lab.yaml", text);
	snprintf(text, sizeof(text),
		 "cell: bringup-test\n"
		 "ap: {host: dut1, radio: airlab-none0, ssid: test-cell, "
		 "passphrase: test-passphrase, channel: 6%s}\n"
		 "server: {host: dut1, link: veth}\n"
		 "stations:\n%s",
		 ap_extra, stations);
	write_text("topology.yaml", text);
	write_text("v.yaml", variant);
	snprintf(lab_path, sizeof(lab_path), "%s/lab.yaml", fx.dir);
	snprintf(topo_path, sizeof(topo_path), "%s/topology.yaml", fx.dir);
	snprintf(var_path, sizeof(var_path), "%s/v.yaml", fx.dir);
	*p = (struct cell_paths){lab_path, topo_path, var_path, fx.dir};
}

/* The same, loaded with cell_load. */
static int load(struct cell *c, const char *ap_lines, const char *stations,
		const char *ap_extra, const char *variant, struct al_err *err)
{
	struct cell_paths p;

	write_cell(ap_lines, stations, ap_extra, variant, &p);
	return cell_load(c, &p, err);
}

#define BOX_STATION                                                            \
	"  - {name: sta1, host: box1, radio: wlan1, path: p1, "                \
	"base_loss_db: 40}\n"
/* One that takes traffic (a run's). */
#define TRAFFIC_STATION                                                        \
	"  - {name: sta1, host: box1, radio: wlan1, path: p1, "                \
	"base_loss_db: 40, address: 10.42.0.63/24}\n"
#define LOCAL_STATION                                                          \
	"  - {name: sta1, host: dut1, radio: radio1, path: p1, "               \
	"base_loss_db: 40}\n"

static char hostapd_ap[DB_PATH + 256];

/* bringup_check on a cell loads and refuses it with want in its error. */
static void refused(const char *ap, const char *stations, const char *extra,
		    const char *variant, const char *want)
{
	struct cell c;
	struct al_err err;
	const struct ap_ops *ops;

	assert_int_equal(load(&c, ap, stations, extra, variant, &err), 0);
	assert_int_equal(bringup_check(&c, &ops, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("got '%s', want '%s'", err.msg, want);
	cell_free(&c);
}

#define V61	  "variant: v\nkernel: \"6.1\"\n"
#define V61_WIRED V61 "knobs:\n  wired_qdisc: fq_codel\n"

static void refusals_before_the_lab_is_touched(void **state)
{
	struct cell c;
	struct al_err err;
	const struct ap_ops *ap;

	(void)state;
	refused("", BOX_STATION, "", V61,
		"lab.yaml:5: host dut1 carries the AP of ");
	refused("    ap:\n      driver: madwifi\n", BOX_STATION, "", V61,
		"dut1 ap: unknown ap driver 'madwifi' (known: hostapd, "
		"virtual)");
	/* A station on the host of an AP that runs none. */
	refused(hostapd_ap, LOCAL_STATION, "", V61,
		"topology.yaml:5: station sta1 is on the AP's host dut1");
	/* address: on the virtual DUT's AP. */
	refused("    ap:\n      driver: virtual\n", LOCAL_STATION,
		", address: 10.9.0.1/24", V61,
		"topology.yaml:2: ap: address: is for");
	/* A knob on the wired side of an AP without wired:. */
	refused("    ap:\n      driver: hostapd\n", BOX_STATION, "", V61_WIRED,
		"v.yaml:4: knob wired_qdisc needs the AP's wired side");
	/* A setting the hostapd driver does not know, and a bad one. */
	refused("    ap:\n      driver: hostapd\n      stop_cmd: wifi down\n",
		BOX_STATION, "", V61,
		"lab.yaml:21: dut1 ap (driver hostapd): unknown setting "
		"'stop_cmd'");
	refused("    ap:\n      driver: hostapd\n      state_dir: /\n",
		BOX_STATION, "", V61,
		"lab.yaml:21: dut1 ap (driver hostapd): state_dir '/' must be");
	/* Fine: a hostapd AP, a station-host station, knobs. */
	assert_int_equal(load(&c, hostapd_ap, BOX_STATION, "", V61_WIRED, &err),
			 0);
	if (bringup_check(&c, &ap, &err) < 0)
		fail_msg("%s", err.msg);
	assert_ptr_equal(ap, &ap_hostapd_ops);
	cell_free(&c);
}

static void hostapd_conf_renders(void **state)
{
	struct ap_hostapd_settings s = {0};
	const int rates[] = {60, 120, 240};
	struct ap_config cfg = {
	    "stock", "phy0", "a\"b", "pass phrase", 36, false, rates, 3, ""};
	char conf[2048];
	struct al_err err;

	(void)state;
	snprintf(s.state_dir, sizeof(s.state_dir), "/tmp/airlab-ap");
	snprintf(s.bridge, sizeof(s.bridge), "br-lan");
	snprintf(s.country, sizeof(s.country), "DE");
	assert_int_equal(ap_hostapd_conf(&s, &cfg, conf, sizeof(conf), &err),
			 0);
	assert_non_null(strstr(conf, "\nctrl_interface=/tmp/airlab-ap/ctrl\n"));
	assert_non_null(strstr(conf, "\nssid2=612262\n"));
	assert_non_null(
	    strstr(conf, "\nhw_mode=a\nchannel=36\nieee80211n=0\n"));
	assert_non_null(strstr(conf, "\nwpa_passphrase=pass phrase\n"));
	assert_non_null(strstr(conf, "\nbasic_rates=60 120 240\n"));
	assert_non_null(strstr(conf, "\nbridge=br-lan\n"));
	assert_non_null(strstr(conf, "\ncountry_code=DE\nieee80211d=1\n"));
	assert_null(strstr(conf, "\ninterface="));
	assert_int_not_equal(strncmp(conf, "interface=", 10), 0);
	assert_int_equal(ap_hostapd_conf(&s, &cfg, conf, 64, &err), -1);
	assert_non_null(strstr(err.msg, "does not fit"));
}

/* Knobs written and read back over SSH: files in the fixture's dir. */
static void knobs_over_ssh(void **state)
{
	struct cell c;
	struct dut d;
	struct al_err err;
	static struct cell_state st;
	struct ap_info info = {.iface = "lo", .phy = "phy9", .wired = "lo"};
	char variant[1024];

	(void)state;
	assert_int_equal(db_sh("mkdir -p '%s/knobs/phy9' '%s/knobs/adir' && "
			       "echo 0 >'%s/knobs/phy9/depth'",
			       fx.dir, fx.dir, fx.dir),
			 0);
	snprintf(variant, sizeof(variant),
		 "variant: v\nkernel: \"6.1\"\nknobs:\n  files:\n"
		 "    - {path: \"%s/knobs/{phy}/depth\", value: 64}\n"
		 "    - {path: \"%s/knobs/none\", value: 1}\n",
		 fx.dir, fx.dir);
	assert_int_equal(load(&c, hostapd_ap, BOX_STATION, "", variant, &err),
			 0);
	assert_int_equal(dut_open(&d, &c.lab, "dut1", &err), 0);
	assert_int_equal(bringup_knobs(&d, &c, &info, &st, &err), -1);
	/* The first took and reads back; the second names its file:line. */
	assert_int_equal(st.nknobs, 1);
	assert_string_equal(st.knobs[0].read, "64");
	assert_string_equal(st.knobs[0].name, "files[1]");
	assert_int_equal(st.knobs[0].line, 5);
	assert_non_null(strstr(st.knobs[0].target, "/knobs/phy9/depth"));
	assert_non_null(
	    strstr(err.msg, "v.yaml:6: knob files[2]: dut1 has no "));
	assert_non_null(strstr(err.msg, "/knobs/none"));
	dut_close(&d);
	cell_free(&c);

	/* A path that cannot be written: the exit and the DUT's words. */
	snprintf(variant, sizeof(variant),
		 "variant: v\nkernel: \"6.1\"\nknobs:\n  files:\n"
		 "    - {path: \"%s/knobs/adir\", value: 1}\n",
		 fx.dir);
	assert_int_equal(load(&c, hostapd_ap, BOX_STATION, "", variant, &err),
			 0);
	assert_int_equal(dut_open(&d, &c.lab, "dut1", &err), 0);
	assert_int_equal(bringup_knobs(&d, &c, &info, &st, &err), -1);
	assert_non_null(
	    strstr(err.msg, "v.yaml:5: knob files[1]: writing on "));
	assert_non_null(strstr(err.msg, "failed (exit 4)"));
	dut_close(&d);
	cell_free(&c);
}

static int ap_run(struct cell *c, const char *what, struct ap_info *info,
		  struct al_err *err)
{
	const struct ap_ops *ap;
	struct drv_target t;
	struct ap_config cfg;
	struct ap_env env;
	struct dut d;
	int rc;

	assert_int_equal(bringup_check(c, &ap, err), 0);
	assert_int_equal(dut_open(&d, &c->lab, "dut1", err), 0);
	t = (struct drv_target){&c->lab, c->ap_host, &c->ap_host->ap};
	bringup_ap_config(c, &cfg);
	bringup_ap_env(&d, &env);
	if (!strcmp(what, "start"))
		rc = ap->start(&t, &env, &cfg, info, err);
	else if (!strcmp(what, "status"))
		rc = ap->status(&t, &env, &cfg, info, err);
	else
		rc = ap->stop(&t, &env, &cfg, err);
	dut_close(&d);
	return rc;
}

static void hostapd_driver_errors(void **state)
{
	struct cell c;
	struct al_err err;
	struct ap_info info;
	char ap[DB_PATH + 512];
	const char *v = "variant: v\nkernel: \"6.1\"\n";

	(void)state;
	/* This machine has no radio named airlab-none0. */
	assert_int_equal(load(&c, hostapd_ap, BOX_STATION, "", v, &err), 0);
	assert_int_equal(ap_run(&c, "start", &info, &err), -1);
	assert_string_equal(err.msg,
			    "dut1: ap (hostapd): radio 'airlab-none0' is "
			    "neither a wireless interface "
			    "(/sys/class/net/airlab-none0) nor a phy "
			    "(/sys/class/ieee80211/airlab-none0) on this host");
	assert_false(exists("ap"));
	/* Nothing runs: status says so, stop has nothing to do. */
	assert_int_equal(ap_run(&c, "status", &info, &err), 0);
	assert_string_equal(info.state, "");
	assert_int_equal(ap_run(&c, "stop", &info, &err), 0);
	cell_free(&c);

	/* A program that is not there. */
	snprintf(ap, sizeof(ap), "%s      hostapd: /nonexistent/hostapd\n",
		 hostapd_ap);
	assert_int_equal(load(&c, ap, BOX_STATION, "", v, &err), 0);
	assert_int_equal(ap_run(&c, "start", &info, &err), -1);
	assert_non_null(strstr(err.msg, "dut1: ap (hostapd): no program "
					"'/nonexistent/hostapd' on this host"));
	assert_false(exists("ap"));
	cell_free(&c);

	/* What holds the radio will not let go. */
	snprintf(ap, sizeof(ap),
		 "%s      stop_command: echo radio busy >&2; exit 3\n",
		 hostapd_ap);
	assert_int_equal(load(&c, ap, BOX_STATION, "", v, &err), 0);
	assert_int_equal(ap_run(&c, "start", &info, &err), -1);
	assert_string_equal(err.msg,
			    "dut1: ap (hostapd): stop_command 'echo radio busy "
			    ">&2; exit 3' failed (exit 3): radio busy");
	cell_free(&c);

	/* stop undoes an earlier start's state and runs start_command. */
	assert_int_equal(db_sh("mkdir -p '%s/ap' && echo x >'%s/ap/variant'",
			       fx.dir, fx.dir),
			 0);
	snprintf(ap, sizeof(ap), "%s      start_command: touch %s/given-back\n",
		 hostapd_ap, fx.dir);
	assert_int_equal(load(&c, ap, BOX_STATION, "", v, &err), 0);
	assert_int_equal(ap_run(&c, "stop", &info, &err), 0);
	assert_false(exists("ap"));
	assert_true(exists("given-back"));
	cell_free(&c);
}

/* The whole sequence against this machine as the DUT: power on, SSH,
 * the kernel check, then the AP, whose radio is not here. */
static void bringup_holds_the_dut_to_the_variant(void **state)
{
	struct cell c;
	struct dut d;
	struct al_err err;
	static struct cell_state st;
	const struct bringup_opts o = {5, false, NULL};
	struct utsname u;
	char variant[256], series[32];
	int major, minor;

	(void)state;
	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%d.%d", &major, &minor), 2);
	/* A kernel series this machine does not run. */
	snprintf(series, sizeof(series), "%d.%d", major + 1, minor);
	snprintf(variant, sizeof(variant), "variant: v\nkernel: \"%s\"\n",
		 series);
	assert_int_equal(load(&c, hostapd_ap, BOX_STATION, "", variant, &err),
			 0);
	assert_int_equal(dut_open(&d, &c.lab, "dut1", &err), 0);
	assert_int_equal(bringup_cell(&c, &d, &o, &st, &err), -1);
	if (!strstr(err.msg, "dut1 booted kernel '"))
		fail_msg("%s", err.msg);
	assert_non_null(strstr(err.msg, series));
	assert_string_equal(st.failure, err.msg);
	assert_string_equal(st.release, u.release);
	dut_close(&d);
	cell_free(&c);

	/* The right series: on to the AP, which fails on the radio. */
	snprintf(variant, sizeof(variant), "variant: v\nkernel: \"%d.%d\"\n",
		 major, minor);
	assert_int_equal(load(&c, hostapd_ap, BOX_STATION, "", variant, &err),
			 0);
	assert_int_equal(dut_open(&d, &c.lab, "dut1", &err), 0);
	assert_int_equal(bringup_cell(&c, &d, &o, &st, &err), -1);
	assert_non_null(strstr(st.failure, "radio 'airlab-none0' is neither"));
	assert_string_equal(st.ap_driver, "hostapd");
	assert_false(exists("ap"));
	dut_close(&d);
	cell_free(&c);
	assert_true(bringup_kernel_matches("6.1", "6.1.0-40-amd64"));
	assert_false(bringup_kernel_matches("6.1", "6.12.1"));
	assert_true(bringup_kernel_matches("5.15", "5.15.150"));
}

/* A variant whose kernel series this machine does not run: bring-up
 * fails on the kernel check after power-on, a lab failure. */
static void variant_not_running(char *buf, size_t len)
{
	struct utsname u;
	int major, minor;

	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%d.%d", &major, &minor), 2);
	snprintf(buf, len, "variant: v\nkernel: \"%d.%d\"\n", major + 1, minor);
}

static int count_entries(const char *dir)
{
	char cmd[DB_PATH + 64];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static int count_run(void *ctx, const struct store_run *r)
{
	(void)r;
	++*(int *)ctx;
	return 0;
}

/* The run strategy refuses bad input before anything is touched or
 * written, and keeps a lab that failed as a lab-failed record, indexed,
 * a second one beside it (nothing overwritten). */
static void run_refusals_and_lab_failed_records(void **state)
{
	char variant[256], out[DB_PATH + 16], rj[4700], first[4600];
	struct run_request rq = {.root = fx.dir, .suite = "ping", .wait_s = 5};
	struct run_result r;
	struct al_err err;
	struct store *db;
	json_t *j;
	int n = 0;

	(void)state;
	variant_not_running(variant, sizeof(variant));
	write_cell(hostapd_ap, TRAFFIC_STATION, "", variant, &rq.cell);
	snprintf(out, sizeof(out), "%s/results", fx.dir);
	rq.out_dir = out;

	rq.suite = "nosuch";
	assert_int_equal(run_suite(&rq, &r, &err), -1);
	assert_true(err.bad_input);
	assert_int_equal(r.status, RUN_REFUSED);
	assert_non_null(strstr(err.msg, "unknown suite 'nosuch'"));
	assert_int_equal(access(out, F_OK), -1);
	rq.suite = "ping";
	rq.out_dir = "/proc/airlab-results";
	assert_int_equal(run_suite(&rq, &r, &err), -1);
	assert_true(err.bad_input);
	if (!strstr(err.msg, "cannot write results there"))
		fail_msg("%s", err.msg);
	assert_string_equal(r.dir, "");
	rq.out_dir = out;
	/* A knob on a wired side the AP does not have: the cell's check. */
	write_cell("    ap:\n      driver: hostapd\n", TRAFFIC_STATION, "",
		   V61_WIRED, &rq.cell);
	assert_int_equal(run_suite(&rq, &r, &err), -1);
	assert_true(err.bad_input);
	assert_non_null(strstr(err.msg, "knob wired_qdisc needs"));
	assert_int_equal(access(out, F_OK), -1);

	write_cell(hostapd_ap, TRAFFIC_STATION, "", variant, &rq.cell);
	assert_int_equal(run_suite(&rq, &r, &err), -1);
	assert_false(err.bad_input);
	assert_int_equal(r.status, RUN_LAB_FAILED);
	if (!strstr(err.msg, "dut1 booted kernel '"))
		fail_msg("%s", err.msg);
	assert_string_equal(r.failure, err.msg);
	snprintf(rj, sizeof(rj), "%s/run.json", r.dir);
	j = json_load_file(rj, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "status")),
			    "lab-failed");
	assert_string_equal(json_string_value(json_object_get(j, "reasons")),
			    err.msg);
	assert_string_equal(json_string_value(json_object_get(j, "suite")),
			    "ping");
	json_decref(j);
	snprintf(first, sizeof(first), "%s", r.dir);

	assert_int_equal(run_suite(&rq, &r, &err), -1);
	assert_int_equal(r.status, RUN_LAB_FAILED);
	assert_string_not_equal(r.dir, first);
	snprintf(rj, sizeof(rj), "%s/run.json", first);
	assert_int_equal(access(rj, R_OK), 0);
	/* Two runs and the index. */
	assert_int_equal(count_entries(out), 3);
	assert_int_equal(store_open(&db, out, &err), 0);
	assert_int_equal(
	    store_runs(db, &(struct store_query){0}, count_run, &n, &err), 2);
	assert_int_equal(n, 2);
	store_close(db);
}

/* A rate sweep whose lab fails at the first variant's bring-up: the
 * record says lab-failed with no steps, and nothing else is written. */
static void sweep_on_a_failing_lab_records_it(void **state)
{
	char variant[256], out[DB_PATH + 16], file[4800];
	struct sweep_args a = {.rates = "mcs:7", .suite = "ping"};
	struct sweep *sw = calloc(1, sizeof(*sw));
	enum sweep_status status;
	struct al_err err;
	json_t *j;

	(void)state;
	assert_non_null(sw);
	variant_not_running(variant, sizeof(variant));
	write_cell(hostapd_ap, TRAFFIC_STATION, "", variant, &sw->cell);
	snprintf(out, sizeof(out), "%s/sweep-results", fx.dir);
	sw->root = fx.dir;
	sw->results = out;
	if (sweep_plan(sw, &a, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(sw->nwatch, 1);
	assert_int_equal(sweep_run(sw, &status, &err), 0);
	assert_int_equal(status, SWEEP_LAB_FAILED);
	snprintf(file, sizeof(file), "%s", sw->file);
	j = json_load_file(file, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "status")),
			    "lab-failed");
	assert_string_equal(json_string_value(json_object_get(j, "mode")),
			    "mcs");
	assert_int_equal(json_array_size(json_object_get(j, "steps")), 0);
	json_decref(j);
	/* the sweeps directory and the index, no run */
	assert_int_equal(count_entries(out), 2);
	free(sw);
}

static int group_setup(void **state)
{
	(void)state;
	if (db_up(&fx, &port, &server) < 0)
		return -1;
	snprintf(hostapd_ap, sizeof(hostapd_ap),
		 "    ap:\n      driver: hostapd\n      state_dir: %s/ap\n"
		 "      wired: lo\n",
		 fx.dir);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	db_stop(server);
	db_teardown(&fx);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(refusals_before_the_lab_is_touched),
	    cmocka_unit_test(hostapd_conf_renders),
	    cmocka_unit_test(knobs_over_ssh),
	    cmocka_unit_test(hostapd_driver_errors),
	    cmocka_unit_test(bringup_holds_the_dut_to_the_variant),
	    cmocka_unit_test(run_refusals_and_lab_failed_records),
	    cmocka_unit_test(sweep_on_a_failing_lab_records_it),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
