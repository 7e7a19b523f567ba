/* Per-station airtime: parsing the medium's stats and the AP's station
 * dump, the before/after difference, shares and Jain's index. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../cell/airtime.h"

static struct topology topo;

static const char cell3[] =
    "cell: c3\n"
    "ap: {host: dut1, radio: radio0, ssid: s, passphrase: 12345678, "
    "channel: 6}\n"
    "server: {host: dut1, link: veth}\n"
    "stations:\n"
    "  - {name: sta1, host: dut1, radio: radio1, path: p1, base_loss_db: 50}\n"
    "  - {name: sta2, host: dut1, radio: radio2, path: p2, base_loss_db: 55}\n"
    "  - {name: sta3, host: dut1, radio: radio3, path: p3, base_loss_db: "
    "60}\n";

static int setup(void **state)
{
	struct al_err err;

	(void)state;
	if (topology_load_buf(&topo, "c3.yaml", cell3, strlen(cell3), NULL,
			      &err) < 0)
		fail_msg("%s", err.msg);
	return 0;
}

/* As airlab-medium prints it (one radio line shortened). */
static const char medium_stats[] =
    "medium freq=2437 elapsed_us=8109560 busy_us=7204930\n"
    "frames_in=21426 elapsed_us=8109560\n"
    "radio 0 name=ap path=- addr=42:00:00:00:00:00 known=1 tx_frames=9 "
    "tx_airtime_us=357328 tx_queue=11 rx_airtime_us=2814508 rx_rate=MCS15/20\n"
    "radio 1 name=sta1 path=path1 tx_frames=5341 tx_airtime_us=544374 "
    "tx_queue=16 tx_rate=MCS15/20 rx_frames=2485 rx_airtime_us=50344\n"
    "radio 2 name=sta2 path=path2 tx_airtime_us=868870 rx_airtime_us=69636\n"
    "radio 3 name=sta3 path=path3 tx_airtime_us=1401264 "
    "rx_airtime_us=98940 tx_ppdus=517\n"
    "ok\n";

static void medium_stats_parse(void **state)
{
	struct airtime_snap s;
	char msg[256];

	(void)state;
	assert_int_equal(
	    airtime_from_medium(&topo, medium_stats, &s, msg, sizeof(msg)), 3);
	assert_int_equal(s.n, 3);
	assert_true(s.sta[0].have);
	assert_true(s.sta[0].tx_us == 544374 && s.sta[0].rx_us == 50344);
	assert_true(s.sta[2].tx_us == 1401264 && s.sta[2].rx_us == 98940);
	/* The channel line: a medium from before -T is at scale 1. */
	assert_true(s.chan_have);
	assert_true(s.chan_elapsed_us == 8109560 && s.chan_busy_us == 7204930);
	assert_true(s.time_scale == 1);

	/* Two reads of a scaled medium: busy over the run between them. */
	struct airtime_snap s0, s1, d;
	assert_int_equal(
	    airtime_from_medium(&topo,
				"medium freq=2437 elapsed_us=1000000 "
				"busy_us=100000 time_scale=4\n",
				&s0, msg, sizeof(msg)),
	    0);
	assert_int_equal(
	    airtime_from_medium(&topo,
				"medium freq=2437 elapsed_us=3000000 "
				"busy_us=1900000 time_scale=4\n",
				&s1, msg, sizeof(msg)),
	    0);
	airtime_delta(&s0, &s1, &d);
	assert_true(d.chan_have && d.time_scale == 4);
	assert_true(d.chan_busy_us / d.chan_elapsed_us == 0.9);
	/* A reset between them: no channel figure. */
	airtime_delta(&s1, &s0, &d);
	assert_false(d.chan_have);

	/* A station the medium does not list is simply absent. */
	const char *two = "radio 1 name=sta1 tx_airtime_us=1 rx_airtime_us=2\n"
			  "radio 3 name=sta3 tx_airtime_us=3 rx_airtime_us=4\n";
	assert_int_equal(airtime_from_medium(&topo, two, &s, msg, sizeof(msg)),
			 2);
	assert_false(s.sta[1].have);

	/* Bad counters are an error naming the station. */
	static const char *const bad[] = {
	    "radio 2 name=sta2 tx_airtime_us=12x rx_airtime_us=1\n",
	    "radio 2 name=sta2 tx_airtime_us=-1 rx_airtime_us=1\n",
	    "radio 2 name=sta2 tx_airtime_us=5\n",
	    "radio 2 name=sta2 tx_airtime_us= rx_airtime_us=1\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
		    airtime_from_medium(&topo, bad[i], &s, msg, sizeof(msg)),
		    -1);
		assert_non_null(strstr(msg, "station sta2"));
	}
	/* "name=sta10" is not sta1. */
	assert_int_equal(
	    airtime_from_medium(&topo,
				"radio 1 name=sta10 "
				"tx_airtime_us=1 rx_airtime_us=2\n",
				&s, msg, sizeof(msg)),
	    0);
}

/* iw 5.19's station dump on the AP (fields trimmed). */
static const char station_dump[] = "Station 02:00:00:00:03:00 (on wlan0)\n"
				   "\tinactive time:\t40 ms\n"
				   "\trx bytes:\t1291532\n"
				   "\ttx duration:\t2884913 us\n"
				   "\trx duration:\t120 us\n"
				   "\tairtime weight: 256\n"
				   "Station 02:00:00:00:01:00 (on wlan0)\n"
				   "\ttx duration:\t1955415 us\n"
				   "\trx duration:\t77 us\n"
				   "Station 02:00:00:00:04:00 (on wlan0)\n"
				   "\ttx duration:\t2980 us\n"
				   "\trx duration:\t0 us\n";

static const char addrs[TOPO_MAX_STATIONS][18] = {
    "02:00:00:00:01:00", "02:00:00:00:02:00", "02:00:00:00:03:00"};

static void station_dump_parse(void **state)
{
	struct airtime_snap s;
	char msg[256];
	char upper[TOPO_MAX_STATIONS][18] = {"02:00:00:00:01:00", "",
					     "02:00:00:00:03:00"};

	(void)state;
	assert_int_equal(airtime_from_station_dump(&topo, addrs, station_dump,
						   &s, msg, sizeof(msg)),
			 2);
	/* The AP's tx duration is the station's downlink (rx). */
	assert_true(s.sta[0].rx_us == 1955415 && s.sta[0].tx_us == 77);
	assert_false(s.sta[1].have); /* not associated: not in the dump */
	assert_true(s.sta[2].rx_us == 2884913 && s.sta[2].tx_us == 120);

	/* Addresses compare in any case; an unknown address maps nothing. */
	upper[0][15] = 'A';
	memcpy(upper[2], "02:00:00:00:03:00", 18);
	assert_int_equal(airtime_from_station_dump(&topo, upper, station_dump,
						   &s, msg, sizeof(msg)),
			 1);

	/* Only one of the two counters: left out. */
	assert_int_equal(
	    airtime_from_station_dump(&topo, addrs,
				      "Station 02:00:00:00:01:00 (on wlan0)\n"
				      "\ttx duration:\t5 us\n",
				      &s, msg, sizeof(msg)),
	    0);
	assert_false(s.sta[0].have);

	assert_int_equal(
	    airtime_from_station_dump(&topo, addrs,
				      "Station 02:00:00:00:02:00 (on wlan0)\n"
				      "\trx duration:\t5 ms\n",
				      &s, msg, sizeof(msg)),
	    -1);
	assert_non_null(strstr(msg, "sta2: malformed"));
}

static void delta_shares_jain(void **state)
{
	struct airtime_snap a = {.n = 3}, b = {.n = 3}, d;
	double share[3];

	(void)state;
	for (int i = 0; i < 3; i++) {
		a.sta[i] = (struct airtime_sta){true, 100, 100};
		b.sta[i] = (struct airtime_sta){true, 100 + 1000, 100 + 2000};
	}
	airtime_delta(&a, &b, &d);
	assert_true(d.sta[1].have && d.sta[1].tx_us == 1000 &&
		    d.sta[1].rx_us == 2000);
	assert_true(fabs(airtime_shares(&d, share) - 1.0) < 1e-12);
	assert_true(fabs(share[0] - 1.0 / 3) < 1e-12);

	/* Counters that went backwards (a reassociation) are left out. */
	b.sta[2].rx_us = 50;
	airtime_delta(&a, &b, &d);
	assert_false(d.sta[2].have);
	assert_true(fabs(airtime_shares(&d, share) - 1.0) < 1e-12);
	assert_true(fabs(share[0] - 0.5) < 1e-12);
	assert_true(isnan(share[2]));

	/* One station with all the airtime: Jain's index 1/n. */
	b.sta[2].rx_us = 100;
	b.sta[0] = a.sta[0];
	b.sta[1] = a.sta[1];
	b.sta[2].tx_us = 5000;
	airtime_delta(&a, &b, &d);
	assert_true(fabs(airtime_shares(&d, share) - 1.0 / 3) < 1e-12);
	assert_true(share[2] == 1.0);

	/* No airtime at all: no index. */
	airtime_delta(&a, &a, &d);
	assert_true(isnan(airtime_shares(&d, share)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(medium_stats_parse),
	    cmocka_unit_test(station_dump_parse),
	    cmocka_unit_test(delta_shares_jain),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
