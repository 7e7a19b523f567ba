/* The AP's per-station link figures from its station dump: counters,
 * signal, bitrates, the before/after difference and the rate used. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../cell/link.h"

static struct topology topo;

static const char cell2[] =
    "cell: c2\n"
    "ap: {host: dut1, radio: radio0, ssid: s, passphrase: 12345678, "
    "channel: 6}\n"
    "server: {host: dut1, link: veth}\n"
    "stations:\n"
    "  - {name: sta1, host: dut1, radio: radio1, path: p1, base_loss_db: 50}\n"
    "  - {name: sta2, host: dut1, radio: radio2, path: p2, base_loss_db: "
    "55}\n";

static const char addrs[TOPO_MAX_STATIONS][18] = {"02:00:00:00:01:00",
						  "02:00:00:00:02:00"};

static int setup(void **state)
{
	struct al_err err;

	(void)state;
	if (topology_load_buf(&topo, "c2.yaml", cell2, strlen(cell2), NULL,
			      &err) < 0)
		fail_msg("%s", err.msg);
	return 0;
}

/* iw 5.19 on a mac80211_hwsim AP (some lines left out). */
static const char dump_before[] = "Station 02:00:00:00:01:00 (on wlan0)\n"
				  "\tinactive time:\t12 ms\n"
				  "\trx bytes:\t1000\n"
				  "\trx packets:\t10\n"
				  "\ttx bytes:\t2000\n"
				  "\ttx packets:\t20\n"
				  "\ttx retries:\t3\n"
				  "\ttx failed:\t1\n"
				  "\tsignal:  \t-50 [-50] dBm\n"
				  "\tsignal avg:\t-51 dBm\n"
				  "\ttx bitrate:\t52.0 MBit/s MCS 5\n"
				  "\trx bitrate:\t65.0 MBit/s MCS 7\n"
				  "\ttx duration:\t100 us\n";

static const char dump_after[] = "Station 02:00:00:00:01:00 (on wlan0)\n"
				 "\trx bytes:\t1251000\n"
				 "\trx packets:\t1010\n"
				 "\ttx bytes:\t252000\n"
				 "\ttx packets:\t220\n"
				 "\ttx retries:\t53\n"
				 "\ttx failed:\t4\n"
				 "\tsignal:  \t-71 dBm\n"
				 "\ttx bitrate:\t13.0 MBit/s MCS 1 short GI\n"
				 "\trx bitrate:\t6.5 MBit/s MCS 0\n"
				 "Station 02:00:00:00:02:00 (on wlan0)\n"
				 "\ttx bytes:\t7\n";

static void parse_fields(void **state)
{
	struct link_snap s;
	char msg[256];

	(void)state;
	assert_int_equal(link_from_station_dump(&topo, addrs, dump_before, &s,
						msg, sizeof(msg)),
			 1);
	assert_true(s.sta[0].have);
	assert_true(s.sta[0].rx_bytes == 1000 && s.sta[0].tx_bytes == 2000);
	assert_true(s.sta[0].tx_retries == 3 && s.sta[0].tx_failed == 1);
	/* "signal:", not "signal avg:"; per-chain figures ignored. */
	assert_true(s.sta[0].signal_dbm == -50);
	assert_true(s.sta[0].tx_bitrate_mbps == 52.0);
	assert_true(s.sta[0].rx_bitrate_mbps == 65.0);
	assert_string_equal(s.sta[0].tx_rate, "MCS 5");
	assert_false(s.sta[1].have);
	assert_true(isnan(s.sta[1].signal_dbm));

	assert_int_equal(link_from_station_dump(&topo, addrs, dump_after, &s,
						msg, sizeof(msg)),
			 2);
	assert_string_equal(s.sta[0].tx_rate, "MCS 1 short GI");
	/* A station with no signal line: NaN, not 0. */
	assert_true(s.sta[1].have && isnan(s.sta[1].signal_dbm));
}

static void malformed_lines(void **state)
{
	static const char *const bad[] = {
	    "Station 02:00:00:00:02:00 (on wlan0)\n\ttx bytes:\tmany\n",
	    "Station 02:00:00:00:02:00 (on wlan0)\n\ttx bitrate:\t54 Mb/s\n",
	    "Station 02:00:00:00:02:00 (on wlan0)\n\tsignal:\t-50dBm\n",
	    "Station 02:00:00:00:02:00 (on wlan0)\n\ttx retries:\t-1\n",
	};
	struct link_snap s;
	char msg[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		msg[0] = 0;
		assert_int_equal(link_from_station_dump(&topo, addrs, bad[i],
							&s, msg, sizeof(msg)),
				 -1);
		assert_non_null(strstr(msg, "sta2: malformed"));
	}
	/* Lines of a station the topology does not know are not read. */
	assert_int_equal(
	    link_from_station_dump(&topo, addrs,
				   "Station 02:00:00:00:09:00 (on wlan0)\n"
				   "\ttx bytes:\tmany\n",
				   &s, msg, sizeof(msg)),
	    0);
}

static void delta_and_rate(void **state)
{
	struct link_snap a, b, d;
	char msg[256];

	(void)state;
	assert_int_equal(link_from_station_dump(&topo, addrs, dump_before, &a,
						msg, sizeof(msg)),
			 1);
	assert_int_equal(link_from_station_dump(&topo, addrs, dump_after, &b,
						msg, sizeof(msg)),
			 2);
	link_delta(&a, &b, &d);
	assert_true(d.sta[0].have);
	assert_true(d.sta[0].rx_bytes == 1250000 &&
		    d.sta[0].tx_bytes == 250000);
	assert_true(d.sta[0].tx_retries == 50 && d.sta[0].tx_failed == 3);
	assert_true(d.sta[0].signal_dbm == -71); /* the later reading */
	/* In only one of the two: left out. */
	assert_false(d.sta[1].have);
	/* 1.5 MB in 0.5 s of airtime: 24 Mb/s. */
	assert_true(fabs(link_rate_mbps(&d.sta[0], 500000) - 24.0) < 1e-9);
	assert_true(isnan(link_rate_mbps(&d.sta[0], 0)));
	assert_true(isnan(link_rate_mbps(&d.sta[1], 500000)));
	/* Counters that went backwards (a reassociation): left out. */
	link_delta(&b, &a, &d);
	assert_false(d.sta[0].have);
}

/* A station's own dump: its one peer, the AP, with minstrel's estimate;
 * none when it is not associated. */
static void own_dump(void **state)
{
	struct link_sta l;
	char msg[256];

	(void)state;
	assert_int_equal(
	    link_from_own_dump("Station 02:00:00:00:00:00 (on wlan0)\n"
			       "\tsignal:  \t-85 dBm\n"
			       "\ttx bitrate:\t65.0 MBit/s MCS 7\n"
			       "\texpected throughput:\t10.162Mbps\n"
			       "Station 02:00:00:00:00:99 (on wlan0)\n"
			       "\texpected throughput:\t99.0Mbps\n",
			       "sta1", &l, msg, sizeof(msg)),
	    0);
	assert_true(l.have);
	assert_true(l.signal_dbm == -85 && l.tx_bitrate_mbps == 65.0);
	assert_true(fabs(l.expected_mbps - 10.162) < 1e-9);
	assert_int_equal(link_from_own_dump("", "sta1", &l, msg, sizeof(msg)),
			 0);
	assert_false(l.have);
	assert_true(isnan(l.expected_mbps));
	assert_int_equal(
	    link_from_own_dump("Station 02:00:00:00:00:00 (on wlan0)\n"
			       "\texpected throughput:\tfastMbps\n",
			       "sta1", &l, msg, sizeof(msg)),
	    -1);
	assert_non_null(strstr(msg, "sta1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_fields),
	    cmocka_unit_test(malformed_lines),
	    cmocka_unit_test(delta_and_rate),
	    cmocka_unit_test(own_dump),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
