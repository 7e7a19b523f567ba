/* A test cell brought to life: the lab, the topology and the stack variant
 * a run names, plus the DUT host that carries the AP. */
#ifndef AIRLAB_CELL_H
#define AIRLAB_CELL_H

#include <stdbool.h>
#include <stdio.h>

#include "../drivers/driver.h"
#include "../lab/lab.h"
#include "../lab/topology.h"
#include "../lab/variant.h"

struct cell {
	struct lab lab;
	struct topology topo;
	struct variant variant;
	const struct lab_host *ap_host;
};

struct cell_paths {
	const char *lab;	 /* lab/virtual.yaml */
	const char *topology;	 /* topology/cell-4sta.yaml */
	const char *variant;	 /* variant name or file */
	const char *variant_dir; /* kernel/ */
};

int cell_load(struct cell *c, const struct cell_paths *p, struct al_err *err);
void cell_free(struct cell *c);

/* Whether station s sits on the AP's host (brought up by the DUT from
 * cell.conf) rather than on a station host (stahost.h). */
bool cell_station_local(const struct cell *c, const struct topo_station *s);

/* Whether the AP's host brings the AP and its own stations up itself
 * from cell.conf (its AP driver has a stations op: the virtual DUT),
 * rather than the lab's AP driver setting the AP up over its shell. */
bool cell_ap_by_image(const struct cell *c);

/* Renders the DUT's /etc/airlab/cell.conf (shell KEY='value' lines),
 * listing the stations on the AP's host only. */
int cell_conf_render(const struct cell *c, char *buf, size_t len,
		     struct al_err *err);

/* One station as the DUT reports it. Unknown figures are NAN / "". */
struct station_row {
	char name[16];
	bool associated;
	double assoc_s;
	double signal_dbm;
	double txrate_mbps;
	char wpa_state[32];
	char bssid[18];
	char addr[18]; /* the station's MAC, "" unknown */
};

/* Parses `airlab-guest stations` output; returns rows parsed or -1 with
 * the offending line in err. Rows for topology stations that the DUT did
 * not report are added as not associated. */
int stations_parse(const struct topology *t, const char *text,
		   struct station_row *rows, int max, struct al_err *err);
void stations_print(FILE *f, const struct station_row *rows, int n);

#endif
