/* Test cell (topology/NAME.yaml): which AP, which stations, which RF path each
 * station sits on and that path's base loss, and where the traffic server
 * is wired. Hosts are names from the lab file. */
#ifndef AIRLAB_TOPOLOGY_H
#define AIRLAB_TOPOLOGY_H

#include "../util/err.h"
#include "lab.h"

#define TOPO_MAX_STATIONS 128

struct topo_station {
	char name[16]; /* [a-z0-9_-], 1..15 chars: also the netns name */
	char host[LAB_NAME_MAX];
	char radio[LAB_NAME_MAX];
	char path[LAB_NAME_MAX]; /* RF path (attenuator channel) */
	double base_loss_db;
	int ht; /* 0: "ht: false", an 802.11a/b/g station (disable_ht) */
	/* "passphrase:": the station's own (8..63), "" = the AP's. Only
	 * stations on a station host may set it (cell_load). */
	char passphrase[64];
	/* Station hosts only (cell_load): "address:" the IPv4 address/prefix
	 * the station's traffic leaves from ("" = none: it carries no
	 * traffic), "gateway:" the router to the traffic server ("" = the
	 * server is on the station's link). */
	char address[20];
	char gateway[16];
	int line;
};

struct topology {
	char path[4096];
	char name[LAB_NAME_MAX];
	struct {
		char host[LAB_NAME_MAX];
		char radio[LAB_NAME_MAX];
		char ssid[33];
		char passphrase[64]; /* WPA2-PSK, 8..63 chars */
		int channel;	     /* 2.4 GHz 1..14 or 5 GHz 36..177 */
		/* basic_rates: legacy rates in 100 kb/s (hostapd's unit), as
		 * given; none: hostapd's default for the band */
		int basic_rates[12];
		int nbasic_rates;
		int ht; /* 0: "ht: false", no 802.11n */
		/* "address:": IPv4/prefix the AP's driver gives its
		 * interface (ap: driver hostapd), "" none */
		char address[20];
		int line;
	} ap;
	struct {
		char host[LAB_NAME_MAX];
		char link[LAB_NAME_MAX]; /* "veth" (virtual) or an iface */
		/* where stations reach it; needed when the server is a host
		 * of its own, "" on the AP's host (the virtual DUT's server
		 * namespace) */
		char address[16];
		int line;
	} server;
	struct topo_station stations[TOPO_MAX_STATIONS];
	int nstations;
};

/* Parses and validates a topology; when lab is non-NULL, every host the
 * topology names must exist in it. Errors: "path:line: msg". */
int topology_load(struct topology *t, const char *path, const struct lab *lab,
		  struct al_err *err);
/* The same from memory (tests, fuzzers); name stands for the path. */
int topology_load_buf(struct topology *t, const char *name, const void *buf,
		      size_t len, const struct lab *lab, struct al_err *err);

#endif
