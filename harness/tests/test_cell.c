/* cell.conf rendering (checked by sourcing it with the real /bin/sh) and
 * parsing of the DUT's station report. */
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

#include "../cell/cell.h"

static struct cell *make_cell(int nsta)
{
	struct cell *c = calloc(1, sizeof(*c));
	assert_non_null(c);
	snprintf(c->variant.name, sizeof(c->variant.name), "stock-6.1");
	snprintf(c->variant.root_qdisc, sizeof(c->variant.root_qdisc),
		 "pfifo limit 1000");
	c->variant.txring = 250;
	c->variant.aql = -1;
	snprintf(c->topo.name, sizeof(c->topo.name), "cell-test");
	snprintf(c->topo.path, sizeof(c->topo.path), "topology/test.yaml");
	/* A quote and shell metacharacters must survive sourcing. */
	snprintf(c->topo.ap.ssid, sizeof(c->topo.ap.ssid), "it's $HOME `x`");
	snprintf(c->topo.ap.passphrase, sizeof(c->topo.ap.passphrase),
		 "pass'word;rm");
	c->topo.ap.channel = 11;
	c->topo.ap.ht = 1;
	/* The AP host: the virtual DUT, whose image runs the AP. */
	c->lab.nhosts = 1;
	snprintf(c->lab.hosts[0].name, sizeof(c->lab.hosts[0].name), "dut1");
	snprintf(c->lab.hosts[0].ap.driver, sizeof(c->lab.hosts[0].ap.driver),
		 "virtual");
	c->ap_host = &c->lab.hosts[0];
	snprintf(c->topo.ap.host, sizeof(c->topo.ap.host), "dut1");
	c->topo.nstations = nsta;
	for (int i = 0; i < nsta; i++) {
		struct topo_station *s = &c->topo.stations[i];
		snprintf(s->host, sizeof(s->host), "dut1");
		snprintf(s->name, sizeof(s->name), "sta%d", i + 1);
		snprintf(s->path, sizeof(s->path), "path%d", i + 1);
		s->base_loss_db = 40 + i * 0.5;
	}
	return c;
}

/* Sources conf in /bin/sh and prints the expansion of expr. */
static char *sh_eval(const char *conf, const char *expr)
{
	char path[] = "/tmp/airlab-test-conf.XXXXXX", cmd[512];
	static char out[1024];
	int fd = mkstemp(path);
	FILE *f, *p;
	size_t n;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(conf, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "sh -c '. %s && printf %%s \"%s\"'", path,
		 expr);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	assert_int_equal(pclose(p), 0);
	unlink(path);
	return out;
}

static void conf_survives_sh(void **state)
{
	(void)state;
	struct cell *c = make_cell(3);
	static char conf[8192];
	struct al_err err;

	assert_int_equal(cell_conf_render(c, conf, sizeof(conf), &err), 0);
	assert_string_equal(sh_eval(conf, "$AIRLAB_SSID"), "it's $HOME `x`");
	assert_string_equal(sh_eval(conf, "$AIRLAB_PSK"), "pass'word;rm");
	assert_string_equal(sh_eval(conf, "$AIRLAB_NSTA"), "3");
	assert_string_equal(sh_eval(conf, "$AIRLAB_CHANNEL"), "11");
	assert_string_equal(sh_eval(conf, "$AIRLAB_ROOT_QDISC"),
			    "pfifo limit 1000");
	assert_string_equal(sh_eval(conf, "$AIRLAB_STA_3_NAME"), "sta3");
	assert_string_equal(sh_eval(conf, "$AIRLAB_STA_2_LOSS_DB"), "40.5");
	assert_string_equal(sh_eval(conf, "[$AIRLAB_DEFAULT_QDISC]"), "[]");
	assert_string_equal(sh_eval(conf, "$AIRLAB_TXRING"), "250");
	assert_string_equal(sh_eval(conf, "[${AIRLAB_AQL-unset}]"), "[unset]");
	assert_string_equal(sh_eval(conf, "$AIRLAB_AP $AIRLAB_AP_HT"), "1 1");
	free(c);
}

/* An AP that the lab's driver sets up (hostapd): the image makes only the
 * hardware, and the spare radios that station-host stations drive sit on
 * those stations' paths in the medium. */
static void conf_for_a_driven_ap(void **state)
{
	(void)state;
	struct cell *c = make_cell(3);
	static char conf[8192];
	struct al_err err;
	const char *radios[] = {"spare2", "sparephy1", "wlan5"};

	snprintf(c->lab.hosts[0].ap.driver, sizeof(c->lab.hosts[0].ap.driver),
		 "hostapd");
	c->topo.ap.ht = 0;
	for (int i = 0; i < 3; i++) {
		snprintf(c->topo.stations[i].host,
			 sizeof(c->topo.stations[i].host), "stabox");
		snprintf(c->topo.stations[i].radio,
			 sizeof(c->topo.stations[i].radio), "%s", radios[i]);
	}
	assert_int_equal(cell_conf_render(c, conf, sizeof(conf), &err), 0);
	assert_string_equal(sh_eval(conf, "$AIRLAB_AP $AIRLAB_AP_HT"), "0 0");
	assert_string_equal(sh_eval(conf, "$AIRLAB_NSTA"), "0");
	assert_string_equal(sh_eval(conf, "$AIRLAB_SPARE_2_NAME "
					  "$AIRLAB_SPARE_2_PATH "
					  "$AIRLAB_SPARE_2_LOSS_DB"),
			    "sta1 path1 40");
	assert_string_equal(sh_eval(conf, "$AIRLAB_SPARE_1_NAME "
					  "$AIRLAB_SPARE_1_PATH"),
			    "sta2 path2");
	/* wlan5 is no spare radio of the image: nothing for it. */
	assert_null(strstr(conf, "sta3"));
	free(c);
}

static void conf_too_small_is_an_error(void **state)
{
	(void)state;
	struct cell *c = make_cell(32);
	char conf[256];
	struct al_err err;

	assert_int_equal(cell_conf_render(c, conf, sizeof(conf), &err), -1);
	assert_non_null(strstr(err.msg, "does not fit"));
	free(c);
}

static void stations_report_parses(void **state)
{
	(void)state;
	struct cell *c = make_cell(3);
	struct station_row rows[8];
	struct al_err err;
	const char *report =
	    "station=sta2 associated=yes assoc_s=3.25 signal_dbm=-30 "
	    "txrate_mbps=54.0 bssid=02:00:00:00:00:00 wpa_state=COMPLETED\n"
	    "station=sta1 associated=no assoc_s=- signal_dbm=- "
	    "txrate_mbps=- wpa_state=SCANNING\n";

	assert_int_equal(stations_parse(&c->topo, report, rows, 8, &err), 3);
	assert_string_equal(rows[0].name, "sta1");
	assert_false(rows[0].associated);
	assert_true(isnan(rows[0].assoc_s));
	assert_string_equal(rows[0].wpa_state, "SCANNING");
	assert_true(rows[1].associated);
	assert_true(fabs(rows[1].assoc_s - 3.25) < 1e-9);
	assert_true(fabs(rows[1].signal_dbm + 30) < 1e-9);
	assert_true(fabs(rows[1].txrate_mbps - 54) < 1e-9);
	assert_string_equal(rows[1].bssid, "02:00:00:00:00:00");
	/* sta3 was not reported at all: it is a row saying so, not lost. */
	assert_false(rows[2].associated);
	assert_string_equal(rows[2].wpa_state, "NOT_REPORTED");
	free(c);
}

static void stations_report_rejects_strangers(void **state)
{
	(void)state;
	struct cell *c = make_cell(2);
	struct station_row rows[8];
	struct al_err err;

	assert_int_equal(stations_parse(&c->topo,
					"station=sta9 associated=yes\n", rows,
					8, &err),
			 -1);
	assert_non_null(strstr(err.msg, "sta9"));
	assert_int_equal(
	    stations_parse(&c->topo, "garbage line\n", rows, 8, &err), -1);
	assert_non_null(strstr(err.msg, "garbage line"));
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(conf_survives_sh),
	    cmocka_unit_test(conf_for_a_driven_ap),
	    cmocka_unit_test(conf_too_small_is_an_error),
	    cmocka_unit_test(stations_report_parses),
	    cmocka_unit_test(stations_report_rejects_strangers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
