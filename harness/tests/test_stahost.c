/* Station hosts: the wpa_supplicant configuration, the remote commands
 * (valid sh), the status report turned into station rows, and cell.conf
 * keeping only the AP host's stations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cell/stahost.h"

/* AP and sta1 on dut1; sta2 (ht: false) and sta3 (own passphrase) on
 * box1. */
static struct cell *make_cell(void)
{
	struct cell *c = calloc(1, sizeof(*c));
	static const char *const hosts[] = {"dut1", "box1", "box1"};
	static const char *const radios[] = {"radio1", "wlan1", "phy2"};

	assert_non_null(c);
	snprintf(c->variant.name, sizeof(c->variant.name), "stock-6.1");
	snprintf(c->topo.name, sizeof(c->topo.name), "cell-test");
	snprintf(c->topo.path, sizeof(c->topo.path), "topology/test.yaml");
	snprintf(c->topo.ap.host, sizeof(c->topo.ap.host), "dut1");
	/* dut1: the virtual DUT, whose image runs the AP and its stations. */
	c->lab.nhosts = 1;
	snprintf(c->lab.hosts[0].name, sizeof(c->lab.hosts[0].name), "dut1");
	snprintf(c->lab.hosts[0].ap.driver, sizeof(c->lab.hosts[0].ap.driver),
		 "virtual");
	c->ap_host = &c->lab.hosts[0];
	snprintf(c->topo.ap.ssid, sizeof(c->topo.ap.ssid), "ab\"c");
	snprintf(c->topo.ap.passphrase, sizeof(c->topo.ap.passphrase),
		 "pass\"word 1");
	c->topo.ap.channel = 6;
	c->topo.nstations = 3;
	for (int i = 0; i < 3; i++) {
		struct topo_station *s = &c->topo.stations[i];
		snprintf(s->name, sizeof(s->name), "sta%d", i + 1);
		snprintf(s->host, sizeof(s->host), "%s", hosts[i]);
		snprintf(s->radio, sizeof(s->radio), "%s", radios[i]);
		snprintf(s->path, sizeof(s->path), "path%d", i + 1);
		s->ht = i != 1;
	}
	snprintf(c->topo.stations[2].passphrase,
		 sizeof(c->topo.stations[2].passphrase), "other-passphrase");
	return c;
}

static void wpa_conf_renders(void **state)
{
	(void)state;
	struct cell *c = make_cell();
	char conf[2048];
	struct al_err err;

	assert_int_equal(stahost_wpa_conf(&c->topo, &c->topo.stations[1], conf,
					  sizeof(conf), &err),
			 0);
	assert_non_null(strstr(conf, "ctrl_interface=/run/airlab-sta/sta2/"
				     "ctrl\n"));
	/* "ab\"c" in hex */
	assert_non_null(strstr(conf, "\tssid=61622263\n"));
	assert_non_null(strstr(conf, "\tpsk=\"pass\"word 1\"\n"));
	assert_non_null(strstr(conf, "\tscan_freq=2437\n"));
	assert_non_null(strstr(conf, "\tdisable_ht=1\n"));
	assert_int_equal(conf[strlen(conf) - 2], '}');

	/* ht and a station's own passphrase */
	assert_int_equal(stahost_wpa_conf(&c->topo, &c->topo.stations[2], conf,
					  sizeof(conf), &err),
			 0);
	assert_null(strstr(conf, "disable_ht"));
	assert_non_null(strstr(conf, "\tpsk=\"other-passphrase\"\n"));
	assert_null(strstr(conf, "pass\"word"));

	/* 5 GHz */
	c->topo.ap.channel = 36;
	assert_int_equal(stahost_wpa_conf(&c->topo, &c->topo.stations[2], conf,
					  sizeof(conf), &err),
			 0);
	assert_non_null(strstr(conf, "\tfreq_list=5180\n"));

	assert_int_equal(
	    stahost_wpa_conf(&c->topo, &c->topo.stations[2], conf, 64, &err),
	    -1);
	assert_non_null(strstr(err.msg, "sta3"));
	free(c);
}

/* Runs `sh -n` on cmd: the remote commands must at least be valid sh. */
static int sh_syntax_ok(const char *cmd)
{
	char path[] = "/tmp/airlab-test-stahost.XXXXXX", sh[128];
	int fd = mkstemp(path), rc;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(cmd, f);
	fclose(f);
	snprintf(sh, sizeof(sh), "sh -n %s", path);
	rc = system(sh);
	unlink(path);
	return rc == 0;
}

static void commands_are_sh(void **state)
{
	(void)state;
	struct cell *c = make_cell();
	static char cmd[8192];
	struct al_err err;

	assert_int_equal(stahost_start_cmd(&c->topo.stations[1], false, cmd,
					   sizeof(cmd), &err),
			 0);
	assert_true(sh_syntax_ok(cmd));
	assert_null(strstr(cmd, "exit 10"));
	assert_non_null(strstr(cmd, "n='sta2' r='wlan1' "
				    "d='/run/airlab-sta/sta2' h='box1'"));
	assert_non_null(strstr(cmd, "wpa_supplicant -B -D nl80211 -i $i"));
	assert_non_null(strstr(cmd, "iw phy \"$r\" interface add"));

	assert_int_equal(
	    stahost_stop_cmd(&c->topo.stations[2], cmd, sizeof(cmd), &err), 0);
	assert_true(sh_syntax_ok(cmd));
	assert_non_null(strstr(cmd, "d='/run/airlab-sta/sta3'"));

	/* Only box1's stations, in topology order. */
	assert_int_equal(
	    stahost_status_cmd(&c->topo, "box1", cmd, sizeof(cmd), &err), 0);
	assert_true(sh_syntax_ok(cmd));
	assert_non_null(strstr(cmd, "for n in 'sta2' 'sta3'; do"));
	assert_null(strstr(cmd, "'sta1'"));

	/* keep: a running station with this configuration stays */
	assert_int_equal(stahost_start_cmd(&c->topo.stations[1], true, cmd,
					   sizeof(cmd), &err),
			 0);
	assert_true(sh_syntax_ok(cmd));
	assert_non_null(strstr(cmd, "then exit 10; fi"));
	assert_int_equal(
	    stahost_start_cmd(&c->topo.stations[1], false, cmd, 100, &err), -1);
	free(c);
}

/* A status report as the remote command prints it: sta2 associated, sta3
 * stuck in the handshake (wrong passphrase), sta4 with no supplicant,
 * sta5 whose control socket does not answer. */
static const char report[] =
    "@station sta2\n"
    "@start 1765000000.250000000\n"
    "@connected 1765000003.500000\n"
    "@wpa bssid=02:00:00:00:00:00\n"
    "@wpa freq=2437\n"
    "@wpa ssid=airlab-cell\n"
    "@wpa wpa_state=COMPLETED\n"
    "@wpa address=02:00:00:00:03:00\n"
    "@link Connected to 02:00:00:00:00:00 (on wlan1)\n"
    "@link \tSSID: airlab-cell\n"
    "@link \tsignal: -42 dBm\n"
    "@link \trx bitrate: 65.0 MBit/s MCS 7\n"
    "@link \ttx bitrate: 58.5 MBit/s MCS 6\n"
    "@station sta3\n"
    "@start 1765000000.3\n"
    "@connected \n"
    "@wpa bssid=02:00:00:00:00:00\n"
    "@wpa wpa_state=4WAY_HANDSHAKE\n"
    "@wpa address=02:00:00:00:04:00\n"
    "@link Not connected.\n"
    "@station sta4\n"
    "@down\n"
    "@station sta5\n"
    "@start 1765000000.3\n"
    "@connected \n"
    "@wpa Failed to connect to non-global ctrl_ifname: sta5  error: No "
    "such file or directory\n"
    "@link Not connected.\n";

static void report_becomes_rows(void **state)
{
	(void)state;
	char *rows = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&rows, &len);
	struct al_err err;
	int nassoc = -1;

	assert_non_null(f);
	assert_int_equal(stahost_report_rows(report, f, &nassoc, &err), 4);
	fclose(f);
	assert_int_equal(nassoc, 1);
	assert_string_equal(
	    rows,
	    "station=sta2 associated=yes assoc_s=3.25 signal_dbm=-42 "
	    "txrate_mbps=58.5 bssid=02:00:00:00:00:00 wpa_state=COMPLETED "
	    "addr=02:00:00:00:03:00\n"
	    "station=sta3 associated=no assoc_s=- signal_dbm=- "
	    "txrate_mbps=- bssid=- wpa_state=4WAY_HANDSHAKE "
	    "addr=02:00:00:00:04:00\n"
	    "station=sta4 associated=no assoc_s=- signal_dbm=- "
	    "txrate_mbps=- bssid=- wpa_state=NOT_RUNNING addr=-\n"
	    "station=sta5 associated=no assoc_s=- signal_dbm=- "
	    "txrate_mbps=- bssid=- wpa_state=NO_CONTROL addr=-\n");

	/* The rows are what stations_parse reads, beside the DUT's. */
	struct topology *t = calloc(1, sizeof(*t));
	struct station_row r[8];
	char *all = NULL;

	assert_non_null(t);
	t->nstations = 6;
	for (int i = 0; i < 6; i++)
		snprintf(t->stations[i].name, sizeof(t->stations[i].name),
			 "sta%d", i + 1);
	assert_true(asprintf(&all,
			     "station=sta1 associated=yes assoc_s=1.00 "
			     "signal_dbm=-50 txrate_mbps=65.0 bssid=x "
			     "wpa_state=COMPLETED addr=-\n%s",
			     rows) > 0);
	assert_int_equal(stations_parse(t, all, r, 8, &err), 6);
	assert_true(r[1].associated);
	assert_true(fabs(r[1].assoc_s - 3.25) < 1e-9);
	assert_true(fabs(r[1].signal_dbm + 42) < 1e-9);
	assert_true(fabs(r[1].txrate_mbps - 58.5) < 1e-9);
	assert_string_equal(r[1].addr, "02:00:00:00:03:00");
	assert_false(r[2].associated);
	assert_string_equal(r[2].wpa_state, "4WAY_HANDSHAKE");
	assert_true(isnan(r[2].signal_dbm));
	assert_string_equal(r[3].wpa_state, "NOT_RUNNING");
	assert_string_equal(r[5].wpa_state, "NOT_REPORTED");
	free(all);
	free(t);
	free(rows);
}

static void report_rejects_garbage(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/null", "w");
	struct al_err err;
	int nassoc;

	assert_non_null(f);
	assert_int_equal(
	    stahost_report_rows("wpa_state=COMPLETED\n", f, &nassoc, &err), -1);
	assert_non_null(strstr(err.msg, "before any '@station'"));
	assert_int_equal(stahost_report_rows("@station sta1\nbash: wpa_cli: "
					     "not found\n",
					     f, &nassoc, &err),
			 -1);
	assert_non_null(strstr(err.msg, "sta1"));
	assert_non_null(strstr(err.msg, "wpa_cli: not found"));
	/* An empty report is no station, not an error. */
	assert_int_equal(stahost_report_rows("", f, &nassoc, &err), 0);
	fclose(f);
}

static void cell_conf_has_only_local_stations(void **state)
{
	(void)state;
	struct cell *c = make_cell();
	static char conf[8192];
	struct al_err err;

	assert_ptr_equal(stahost_first_remote(c), &c->topo.stations[1]);
	assert_int_equal(cell_conf_render(c, conf, sizeof(conf), &err), 0);
	assert_non_null(strstr(conf, "AIRLAB_NSTA='1'\n"));
	assert_non_null(strstr(conf, "AIRLAB_STA_1_NAME='sta1'\n"));
	assert_null(strstr(conf, "sta2"));
	assert_null(strstr(conf, "AIRLAB_STA_2_"));

	/* sta1 on box1 too: dut1 brings up no station. */
	snprintf(c->topo.stations[0].host, sizeof(c->topo.stations[0].host),
		 "box1");
	assert_ptr_equal(stahost_first_remote(c), &c->topo.stations[0]);
	assert_int_equal(cell_conf_render(c, conf, sizeof(conf), &err), 0);
	assert_non_null(strstr(conf, "AIRLAB_NSTA='0'\n"));
	assert_null(strstr(conf, "AIRLAB_STA_"));

	/* All on dut1: no station host. */
	for (int i = 0; i < 3; i++)
		snprintf(c->topo.stations[i].host,
			 sizeof(c->topo.stations[i].host), "dut1");
	assert_null(stahost_first_remote(c));
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(wpa_conf_renders),
	    cmocka_unit_test(commands_are_sh),
	    cmocka_unit_test(report_becomes_rows),
	    cmocka_unit_test(report_rejects_garbage),
	    cmocka_unit_test(cell_conf_has_only_local_stations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
