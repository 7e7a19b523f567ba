/* Topology parser: the repo's cell-4sta against the repo's lab, generated
 * 32- and 128-station cells, and malformed cells with their exact
 * "file:line: message". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lab/lab.h"
#include "../lab/topology.h"
#include "fixture_repo.h"

/* The repo's lab, loaded once: unknown-host checks run against it. */
static struct lab *repo_lab;
static struct topology *topo;

static int setup(void **state)
{
	char path[PATH_MAX];
	struct al_err err;

	(void)state;
	repo_lab = calloc(1, sizeof(*repo_lab));
	topo = calloc(1, sizeof(*topo));
	if (!repo_lab || !topo)
		return -1;
	repo_path(path, sizeof(path), "lab/virtual.yaml");
	if (lab_load(repo_lab, path, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	lab_free(repo_lab);
	free(repo_lab);
	free(topo);
	return 0;
}

static void cell_4sta_parses(void **state)
{
	char path[PATH_MAX];
	struct al_err err;

	(void)state;
	repo_path(path, sizeof(path), "topology/cell-4sta.yaml");
	if (topology_load(topo, path, repo_lab, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(topo->path, path);
	assert_string_equal(topo->name, "cell-4sta");
	assert_string_equal(topo->ap.host, "dut1");
	assert_string_equal(topo->ap.radio, "radio0");
	assert_string_equal(topo->ap.ssid, "airlab-cell");
	assert_string_equal(topo->ap.passphrase, "airlab-virtual-psk");
	assert_int_equal(topo->ap.channel, 6);
	assert_int_equal(topo->ap.line, 3);
	assert_string_equal(topo->server.host, "dut1");
	assert_string_equal(topo->server.link, "veth");
	assert_int_equal(topo->server.line, 9);
	assert_int_equal(topo->nstations, 4);
	for (int i = 0; i < 4; i++) {
		const struct topo_station *s = &topo->stations[i];
		char want[32];

		snprintf(want, sizeof(want), "sta%d", i + 1);
		assert_string_equal(s->name, want);
		assert_string_equal(s->host, "dut1");
		snprintf(want, sizeof(want), "radio%d", i + 1);
		assert_string_equal(s->radio, want);
		snprintf(want, sizeof(want), "path%d", i + 1);
		assert_string_equal(s->path, want);
		assert_int_equal(s->line, 13 + i);
	}
	assert_true(topo->stations[2].base_loss_db == 60.0);
	assert_true(topo->stations[3].base_loss_db == 65.0);

	/* Without a lab there is nothing to check hosts against. */
	if (topology_load(topo, path, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(topo->nstations, 4);
}

static void block_fixture_parses(void **state)
{
	char path[PATH_MAX];
	struct al_err err;

	(void)state;
	data_path(path, sizeof(path), "topology/good-block.yaml");
	if (topology_load(topo, path, repo_lab, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(topo->name, "block_5g");
	assert_int_equal(topo->ap.channel, 149);
	assert_string_equal(topo->ap.ssid, "five g");
	assert_string_equal(topo->ap.radio, "wlan-ap");
	assert_string_equal(topo->server.link, "eth1");
	assert_int_equal(topo->nstations, 2);
	assert_string_equal(topo->stations[0].name, "a");
	assert_true(topo->stations[0].base_loss_db == 0.0);
	assert_int_equal(topo->stations[0].line, 6);
	assert_string_equal(topo->stations[1].name, "sta_long-name15");
	assert_string_equal(topo->stations[1].radio, "phy2");
	assert_string_equal(topo->stations[1].path, "rf1.b");
	assert_true(topo->stations[1].base_loss_db == 72.5);
	assert_int_equal(topo->stations[1].line, 11);
}

/* n stations on dut1, block (one key a line) or flow (one station a line)
 * style. Stations start on line 5. */
static char *gen_topology(int n, int block)
{
	size_t cap = 256 + (size_t)n * 128;
	char *s = malloc(cap);
	size_t off = 0;

	assert_non_null(s);
	off += (size_t)snprintf(
	    s + off, cap - off,
	    "cell: gen\n"
	    "ap: {host: dut1, radio: radio0, ssid: gen, passphrase: "
	    "generated-psk, channel: 36}\n"
	    "server: {host: dut1, link: veth}\n"
	    "stations:\n");
	for (int i = 1; i <= n; i++) {
		if (block)
			off += (size_t)snprintf(
			    s + off, cap - off,
			    "  - name: sta%d\n    host: dut1\n    radio: "
			    "radio%d\n    path: path%d\n    base_loss_db: "
			    "%d.25\n",
			    i, i, i, 40 + i % 100);
		else
			off += (size_t)snprintf(
			    s + off, cap - off,
			    "  - {name: sta%d, host: dut1, radio: radio%d, "
			    "path: path%d, base_loss_db: %d.25}\n",
			    i, i, i, 40 + i % 100);
	}
	assert_true(off < cap);
	return s;
}

static void check_generated(int n, int block)
{
	char *s = gen_topology(n, block);
	const struct topo_station *last;
	struct al_err err;

	if (topology_load_buf(topo, "gen.yaml", s, strlen(s), repo_lab, &err) <
	    0)
		fail_msg("%s", err.msg);
	free(s);
	assert_int_equal(topo->nstations, n);
	assert_int_equal(topo->ap.channel, 36);
	last = &topo->stations[n - 1];
	assert_int_equal(last->line, 4 + 1 + (n - 1) * (block ? 5 : 1));
	assert_true(last->base_loss_db == 40 + n % 100 + 0.25);
	{
		char want[16];

		snprintf(want, sizeof(want), "sta%d", n);
		assert_string_equal(last->name, want);
	}
}

static void generated_32_block(void **state)
{
	(void)state;
	check_generated(32, 1);
}

static void generated_128_flow(void **state)
{
	(void)state;
	check_generated(TOPO_MAX_STATIONS, 0);
	check_generated(TOPO_MAX_STATIONS, 1);
}

static void generated_129_is_too_many(void **state)
{
	char *s = gen_topology(TOPO_MAX_STATIONS + 1, 0);
	struct al_err err;

	(void)state;
	assert_int_equal(
	    topology_load_buf(topo, "gen.yaml", s, strlen(s), repo_lab, &err),
	    -1);
	free(s);
	assert_err_at(&err, "gen.yaml", 5 + TOPO_MAX_STATIONS,
		      "too many stations (at most 128)");
}

/* ap and station lines around one changed field. */
static int load_with(const char *ap_channel, const char *loss,
		     struct al_err *err)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "cell: c\n"
		 "ap: {host: dut1, radio: radio0, ssid: s, passphrase: "
		 "12345678, channel: %s}\n"
		 "server: {host: dut1, link: veth}\n"
		 "stations:\n"
		 "  - {name: s1, host: dut1, radio: radio1, path: p, "
		 "base_loss_db: %s}\n",
		 ap_channel, loss);
	return topology_load_buf(topo, "one.yaml", text, strlen(text), repo_lab,
				 err);
}

static void channels_and_numbers(void **state)
{
	static const char *const good_ch[] = {"1",   "6",   "13",  "14",
					      "36",  "64",  "100", "144",
					      "149", "165", "177"};
	static const char *const bad_ch[] = {"0",   "15",  "35",  "38",
					     "68",  "96",  "150", "178",
					     "6.0", "0x6", " 6",  "-1"};
	static const char *const good_loss[] = {"0", "200", "60.5", "1e1",
						"\"60\""};
	static const char *const bad_loss[] = {"-0.5",	"200.01", "nan",
					       "inf",	"60dB",	  "\" 60\"",
					       "1e400", "50.0.1"};
	struct al_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(good_ch) / sizeof(good_ch[0]); i++)
		if (load_with(good_ch[i], "50", &err) < 0)
			fail_msg("channel %s: %s", good_ch[i], err.msg);
	for (size_t i = 0; i < sizeof(bad_ch) / sizeof(bad_ch[0]); i++) {
		char quoted[16];

		snprintf(quoted, sizeof(quoted), "\"%s\"", bad_ch[i]);
		if (load_with(quoted, "50", &err) == 0)
			fail_msg("channel '%s' was accepted", bad_ch[i]);
		assert_err_at(&err, "one.yaml", 2, "is not a WiFi channel");
	}
	for (size_t i = 0; i < sizeof(good_loss) / sizeof(good_loss[0]); i++)
		if (load_with("6", good_loss[i], &err) < 0)
			fail_msg("loss %s: %s", good_loss[i], err.msg);
	for (size_t i = 0; i < sizeof(bad_loss) / sizeof(bad_loss[0]); i++) {
		if (load_with("6", bad_loss[i], &err) == 0)
			fail_msg("base_loss_db %s was accepted", bad_loss[i]);
		assert_err_at(&err, "one.yaml", 5, "in 0..200");
	}
}

/* ap basic_rates (Mb/s, legacy rates of the band) and station ht. */
static int load_rates(int channel, const char *rates, const char *ht,
		      struct al_err *err)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "cell: c\n"
		 "ap: {host: dut1, radio: radio0, ssid: s, passphrase: "
		 "12345678, channel: %d, basic_rates: \"%s\"}\n"
		 "server: {host: dut1, link: veth}\n"
		 "stations:\n"
		 "  - {name: s1, host: dut1, radio: radio1, path: p, "
		 "base_loss_db: 50%s%s}\n",
		 channel, rates, ht ? ", ht: " : "", ht ? ht : "");
	return topology_load_buf(topo, "one.yaml", text, strlen(text), repo_lab,
				 err);
}

static void basic_rates_and_ht(void **state)
{
	static const char *const bad_2g[] = {
	    "7",   "54M", "6 100",
	    "0x6", "",	  "1 2 5.5 11 6 9 12 18 24 36 48 54 6"};
	struct al_err err;

	(void)state;
	if (load_rates(6, "6 12 24 54", NULL, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(topo->ap.nbasic_rates, 4);
	assert_int_equal(topo->ap.basic_rates[0], 60);
	assert_int_equal(topo->ap.basic_rates[3], 540);
	assert_int_equal(topo->stations[0].ht, 1);
	if (load_rates(1, "1, 5.5", "false", &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(topo->ap.basic_rates[1], 55);
	assert_int_equal(topo->stations[0].ht, 0);
	for (size_t i = 0; i < sizeof(bad_2g) / sizeof(bad_2g[0]); i++) {
		if (load_rates(6, bad_2g[i], NULL, &err) == 0)
			fail_msg("basic_rates '%s' was accepted", bad_2g[i]);
		assert_err_at(&err, "one.yaml", 2, "ap: ");
	}
	/* No DSSS/CCK at 5 GHz. */
	assert_int_equal(load_rates(36, "6 11", NULL, &err), -1);
	assert_err_at(&err, "one.yaml", 2,
		      "basic rate '11' is not a legacy rate of channel 36");
	assert_int_equal(load_rates(6, "6", "yes", &err), -1);
	assert_err_at(&err, "one.yaml", 5,
		      "station s1: ht 'yes' is not true or false");
}

/* Two hosts: the same radio name on different hosts is fine. */
static void station_passphrase(void **state)
{
	static const char text[] =
	    "cell: own\n"
	    "ap: {host: dut1, radio: radio0, ssid: s, passphrase: 12345678, "
	    "channel: 1}\n"
	    "server: {host: dut1, link: veth}\n"
	    "stations:\n"
	    "  - {name: s1, host: dut1, radio: r1, path: p1, base_loss_db: 1, "
	    "passphrase: \"not the AP's\"}\n"
	    "  - {name: s2, host: dut1, radio: r2, path: p2, base_loss_db: "
	    "2}\n";
	struct al_err err;

	(void)state;
	if (topology_load_buf(topo, "own.yaml", text, strlen(text), NULL,
			      &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(topo->stations[0].passphrase, "not the AP's");
	assert_string_equal(topo->stations[1].passphrase, "");
}

/* The station list text after a fixed AP and server. */
static int load_stations(const char *stations, struct al_err *err)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "cell: c\n"
		 "ap: {host: dut1, radio: radio0, ssid: s, passphrase: "
		 "12345678, channel: 6}\n"
		 "server: {host: dut1, link: veth}\n"
		 "stations:\n%s",
		 stations);
	return topology_load_buf(topo, "cell.yaml", text, strlen(text),
				 repo_lab, err);
}

/* address: and gateway: (the station's traffic source and router). */
static int load_addr(const char *extra, struct al_err *err)
{
	char line[256];

	snprintf(line, sizeof(line),
		 "  - {name: s1, host: dut1, radio: r1, path: p1, "
		 "base_loss_db: 1%s}\n",
		 extra);
	return load_stations(line, err);
}

static void station_address(void **state)
{
	struct al_err err;

	(void)state;
	if (load_addr(", address: 10.42.0.63/24, gateway: 10.42.0.1", &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(topo->stations[0].address, "10.42.0.63/24");
	assert_string_equal(topo->stations[0].gateway, "10.42.0.1");
	assert_int_equal(load_addr("", &err), 0);
	assert_string_equal(topo->stations[0].address, "");
	assert_int_equal(load_addr(", address: 10.42.0.63", &err), -1);
	assert_err_at(&err, "cell.yaml", 5,
		      "station s1: address '10.42.0.63' is not an IPv4 "
		      "address/prefix (10.42.0.63/24)");
	assert_int_equal(load_addr(", address: 10.42.0.300/24", &err), -1);
	assert_int_equal(load_addr(", address: 10.42.0.3/33", &err), -1);
	assert_int_equal(load_addr(", address: 10.42.0.3/", &err), -1);
	assert_int_equal(
	    load_addr(", address: 10.42.0.3/24, gateway: router", &err), -1);
	assert_err_at(&err, "cell.yaml", 5,
		      "station s1: gateway 'router' is not an IPv4 address");
	assert_int_equal(load_addr(", gateway: 10.42.0.1", &err), -1);
	assert_err_at(&err, "cell.yaml", 5,
		      "station s1: gateway: needs address:");

	/* The traffic server's address. */
	static const char srv[] =
	    "cell: srv\n"
	    "ap: {host: dut1, radio: radio0, ssid: s, passphrase: 12345678, "
	    "channel: 1}\n"
	    "server: {host: srv1, link: eth1, address: %s}\n"
	    "stations:\n"
	    "  - {name: s1, host: dut1, radio: r1, path: p1, base_loss_db: "
	    "1}\n";
	char text[512];

	snprintf(text, sizeof(text), srv, "192.168.1.2");
	if (topology_load_buf(topo, "srv.yaml", text, strlen(text), NULL,
			      &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(topo->server.address, "192.168.1.2");
	snprintf(text, sizeof(text), srv, "192.168.1.2/24");
	assert_int_equal(
	    topology_load_buf(topo, "srv.yaml", text, strlen(text), NULL, &err),
	    -1);
	assert_err_at(&err, "srv.yaml", 3,
		      "server: address '192.168.1.2/24' is not an IPv4 "
		      "address");
}

static void radios_are_per_host(void **state)
{
	struct lab *lab = calloc(1, sizeof(*lab));
	static const char lab_text[] = "lab: two\n"
				       "state_dir: /tmp/two\n"
				       "hosts:\n"
				       "  ap1: {shell: {driver: ssh}}\n"
				       "  sta-host: {shell: {driver: ssh}}\n";
	static const char topo_text[] =
	    "cell: two\n"
	    "ap: {host: ap1, radio: wlan0, ssid: s, passphrase: 12345678, "
	    "channel: 1}\n"
	    "server: {host: ap1, link: eth0}\n"
	    "stations:\n"
	    "  - {name: s1, host: sta-host, radio: wlan0, path: p1, "
	    "base_loss_db: 1}\n"
	    "  - {name: s2, host: ap1, radio: wlan1, path: p2, base_loss_db: "
	    "2}\n"
	    "  - {name: s3, host: nowhere, radio: wlan1, path: p3, "
	    "base_loss_db: 2}\n";
	struct al_err err;

	(void)state;
	assert_non_null(lab);
	if (lab_load_buf(lab, "two.yaml", lab_text, strlen(lab_text), &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(topology_load_buf(topo, "two-cell.yaml", topo_text,
					   strlen(topo_text), lab, &err),
			 -1);
	/* s1 and s2 passed; s3 names a host the lab lacks. */
	assert_err_at(&err, "two-cell.yaml", 7,
		      "station s3: unknown host 'nowhere' (lab file two.yaml "
		      "has: ap1, sta-host)");
	lab_free(lab);
	free(lab);
}

/* "count:" writes one station per position, $n the 1-based position in
 * the whole list; an entry after it goes on numbering. */
static void station_count_expands(void **state)
{
	struct al_err err;

	(void)state;
	if (load_stations("  - count: 29\n"
			  "    name: sta$n\n"
			  "    host: dut1\n"
			  "    radio: radio$n\n"
			  "    path: path$n\n"
			  "    base_loss_db: 50\n"
			  "  - {name: edge, host: dut1, radio: radio$n, path: "
			  "p$nx, base_loss_db: 112, count: 1}\n",
			  &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(topo->nstations, 30);
	assert_string_equal(topo->stations[0].name, "sta1");
	assert_string_equal(topo->stations[28].name, "sta29");
	assert_string_equal(topo->stations[28].radio, "radio29");
	assert_string_equal(topo->stations[28].path, "path29");
	assert_int_equal(topo->stations[28].line, 5);
	assert_true(topo->stations[28].base_loss_db == 50);
	assert_string_equal(topo->stations[29].name, "edge");
	assert_string_equal(topo->stations[29].radio, "radio30");
	assert_string_equal(topo->stations[29].path, "p30x");
	assert_int_equal(topo->stations[29].line, 11);

	/* 128 in one entry; one more is too many, at the entry's line. */
	if (load_stations("  - {count: 128, name: s$n, host: dut1, radio: "
			  "radio$n, path: p$n, base_loss_db: 1}\n",
			  &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(topo->nstations, 128);
	assert_string_equal(topo->stations[127].radio, "radio128");
	assert_int_equal(load_stations("  - {count: 100, name: s$n, host: "
				       "dut1, radio: radio$n, path: p$n, "
				       "base_loss_db: 1}\n"
				       "  - {count: 29, name: t$n, host: "
				       "dut1, radio: radio$n, path: p$n, "
				       "base_loss_db: 1}\n",
				       &err),
			 -1);
	assert_err_at(&err, "cell.yaml", 6, "too many stations (at most 128)");
}

static void station_count_refused(void **state)
{
	static const struct {
		const char *entry, *fragment;
	} bad[] = {
	    {"{count: 0, name: s$n, host: dut1, radio: r$n, path: p, "
	     "base_loss_db: 1}",
	     "station 1: count '0' is not a number of stations in 1..128"},
	    {"{count: 129, name: s$n, host: dut1, radio: r$n, path: p, "
	     "base_loss_db: 1}",
	     "count '129' is not a number of stations"},
	    {"{count: two, name: s$n, host: dut1, radio: r$n, path: p, "
	     "base_loss_db: 1}",
	     "count 'two' is not a number of stations"},
	    {"{count: 3, name: s, host: dut1, radio: r$n, path: p, "
	     "base_loss_db: 1}",
	     "station 1: count: 3 needs $n (the station's position) in "
	     "name 's'"},
	    /* Same radio for all three: the second is refused. */
	    {"{count: 3, name: s$n, host: dut1, radio: r, path: p, "
	     "base_loss_db: 1}",
	     "station s2: radio 'r' on host dut1 is already used by station "
	     "s1 (line 5)"},
	    {"{count: 2, name: s$n, host: dut1, radio: r$n, path: p, "
	     "base_loss_db: 1, address: 10.42.0.63/24}",
	     "address: names one station's address"},
	    {"{count: 100, name: station-abcde$n, host: dut1, radio: r$n, "
	     "path: p, base_loss_db: 1}",
	     "station 1: name 'station-abcde$n' is too long for station 100 "
	     "(at "
	     "most 15 characters)"},
	    {"{count: 2, name: s$x, host: dut1, radio: r$n, path: p, "
	     "base_loss_db: 1}",
	     "count: 2 needs $n"},
	};
	struct al_err err;
	char entry[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(entry, sizeof(entry), "  - %s\n", bad[i].entry);
		assert_int_equal(load_stations(entry, &err), -1);
		assert_err_at(&err, "cell.yaml", 5, bad[i].fragment);
	}
}

static void unknown_host_names_lab(void **state)
{
	char path[PATH_MAX], want[PATH_MAX + 128];
	struct al_err err;

	(void)state;
	data_path(path, sizeof(path), "topology/unknown-host.yaml");
	assert_int_equal(topology_load(topo, path, repo_lab, &err), -1);
	snprintf(want, sizeof(want),
		 "station sta2: unknown host 'dut2' (lab file %s has: dut1)",
		 repo_lab->path);
	assert_err_at(&err, path, 12, want);
	/* No lab given: the same file is fine. */
	if (topology_load(topo, path, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(topo->nstations, 2);
}

static const struct bad_case bad_topologies[] = {
    {"topology/syntax.yaml", 12, "YAML syntax error"},
    {"topology/missing-ap.yaml", 2, "topology: 'ap' is missing"},
    {"topology/ap-not-map.yaml", 3, "ap must be a map, not a list"},
    {"topology/unknown-host.yaml", 12, "unknown host 'dut2'"},
    {"topology/dup-station.yaml", 13,
     "duplicate station name 'sta1' (first at line 11)"},
    {"topology/dup-radio.yaml", 12,
     "radio 'radio1' on host dut1 is already used by station sta1 (line "
     "11)"},
    {"topology/ap-radio.yaml", 11, "is the AP's radio"},
    {"topology/bad-station-name.yaml", 11, "name 'Sta1' must be 1..15"},
    {"topology/long-station-name.yaml", 11,
     "'name' is longer than 15 characters"},
    {"topology/short-passphrase.yaml", 7, "passphrase must be 8..63"},
    {"topology/station-passphrase.yaml", 11,
     "station sta1: passphrase must be 8..63"},
    {"topology/long-ssid.yaml", 6, "'ssid' is longer than 32"},
    {"topology/bad-channel.yaml", 8, "channel '38' is not a WiFi channel"},
    {"topology/channel-not-number.yaml", 8,
     "channel '6a' is not a WiFi channel"},
    {"topology/bad-number.yaml", 16, "base_loss_db '60dB' is not a number"},
    {"topology/loss-range.yaml", 11, "base_loss_db '250'"},
    {"topology/no-stations.yaml", 10, "at least one station"},
    {"topology/station-not-map.yaml", 11, "station 1 must be a map"},
    {"topology/unknown-station-key.yaml", 11, "unknown key 'base_los_db'"},
    {"topology/missing-radio.yaml", 11, "station sta1: 'radio' is missing"},
    {"topology/dup-key.yaml", 9,
     "ap: duplicate key 'channel' (first at line 7)"},
    {"topology/empty.yaml", 1, "empty file"},
};

static void bad_topology_fails_at_line(void **state)
{
	const struct bad_case *c = *state;
	char path[PATH_MAX];
	struct al_err err;

	data_path(path, sizeof(path), c->file);
	assert_int_equal(topology_load(topo, path, repo_lab, &err), -1);
	assert_err_at(&err, path, c->line, c->fragment);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(cell_4sta_parses),
	    cmocka_unit_test(block_fixture_parses),
	    cmocka_unit_test(basic_rates_and_ht),
	    cmocka_unit_test(generated_32_block),
	    cmocka_unit_test(generated_128_flow),
	    cmocka_unit_test(generated_129_is_too_many),
	    cmocka_unit_test(channels_and_numbers),
	    cmocka_unit_test(radios_are_per_host),
	    cmocka_unit_test(station_address),
	    cmocka_unit_test(station_passphrase),
	    cmocka_unit_test(station_count_expands),
	    cmocka_unit_test(station_count_refused),
	    cmocka_unit_test(unknown_host_names_lab),
	};
	enum {
		NFIXED = sizeof(fixed) / sizeof(fixed[0]),
		NBAD = sizeof(bad_topologies) / sizeof(bad_topologies[0])
	};
	struct CMUnitTest tests[NFIXED + NBAD];

	memcpy(tests, fixed, sizeof(fixed));
	for (int i = 0; i < NBAD; i++)
		tests[NFIXED + i] = (struct CMUnitTest){
		    .name = bad_topologies[i].file,
		    .test_func = bad_topology_fails_at_line,
		    .initial_state = (void *)&bad_topologies[i],
		};
	return _cmocka_run_group_tests("topology", tests, NFIXED + NBAD, setup,
				       teardown);
}
