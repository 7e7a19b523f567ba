/* Stations on station hosts: a topology station whose `host:` is not the
 * AP's runs on that lab host, which airlab reaches over its shell driver
 * (a Linux box with radios, reached over SSH). Per station, in
 * STAHOST_DIR/<station>/ on that host: wpa.conf, the wpa_supplicant pid
 * and log (-t: its first line stamps the start, its first
 * CTRL-EVENT-CONNECTED the association), the interface it drives (iface)
 * and, when airlab created that interface on a phy, its name (created);
 * ctrl/ is the control interface directory.
 *
 * A station's `radio:` names a wireless interface (wlan1), used as it is,
 * or a phy (phy2), on which airlab adds a managed interface named after
 * the station. Association is read with wpa_cli and iw and reported as the
 * same key=value rows the AP host prints (stations_parse). */
#ifndef AIRLAB_STAHOST_H
#define AIRLAB_STAHOST_H

#include "cell.h"
#include "dut.h"

#define STAHOST_DIR "/run/airlab-sta"
/* Where airlab puts its agent on a station host for a run. */
#define STAHOST_AGENT	  STAHOST_DIR "/airlab-agent"
#define STAHOST_IFACE_MAX 16 /* IFNAMSIZ */

/* ---- pure parts ---- */

/* The first station of c on a station host, or NULL. */
const struct topo_station *stahost_first_remote(const struct cell *c);

/* Renders station s's wpa_supplicant configuration. */
int stahost_wpa_conf(const struct topology *t, const struct topo_station *s,
		     char *buf, size_t len, struct al_err *err);

/* The shell command that (re)starts station s on its host, reading the
 * configuration from stdin. With keep, a station already running with
 * that configuration and address is left as it is: the command exits
 * STAHOST_KEPT. */
#define STAHOST_KEPT 10
int stahost_start_cmd(const struct topo_station *s, bool keep, char *buf,
		      size_t len, struct al_err *err);
/* The shell command that stops station s (wpa_supplicant killed by its
 * pidfile, an interface airlab created deleted, the directory removed). */
int stahost_stop_cmd(const struct topo_station *s, char *buf, size_t len,
		     struct al_err *err);
/* The shell command that reports every station of t on host. */
int stahost_status_cmd(const struct topology *t, const char *host, char *buf,
		       size_t len, struct al_err *err);
/* Turns the status command's output into station rows (one
 * "station=NAME associated=..." line each), appended to f; returns the
 * rows written and how many are associated in *nassoc, or -1. */
int stahost_report_rows(const char *report, FILE *f, int *nassoc,
			struct al_err *err);

/* ---- over the station hosts' shells ---- */

struct stahost_set {
	struct dut hosts[LAB_MAX_HOSTS];
	int nstations[LAB_MAX_HOSTS]; /* of the cell, on each host */
	int n;
};

/* Opens every station host of c (lock: as dut_open, else dut_observe);
 * none is fine (n = 0). */
int stahost_open(struct stahost_set *set, const struct cell *c, bool lock,
		 struct al_err *err);
void stahost_close(struct stahost_set *set);

/* Starts every station-host station of c. A station that cannot start
 * is reported on stderr (station, host, interface, command) and the
 * others still start: returns how many did not start, or -1 (a host that
 * does not answer, err naming it). */
int stahost_start(struct stahost_set *set, const struct cell *c, bool keep,
		  struct al_err *err);
/* Waits up to wait_s (progress on stderr) for them to associate and
 * appends their rows to *text (malloc'd, may be NULL on entry). A host
 * that does not answer is an error naming it. */
int stahost_report(struct stahost_set *set, const struct cell *c, double wait_s,
		   char **text, struct al_err *err);
/* wpa_cli reassociate for one station-host station. */
int stahost_reassociate(struct stahost_set *set, const struct cell *c,
			const char *station, struct al_err *err);
/* For traffic (airlab run, sweep): each station-host station must have an
 * address: (else -1, err naming the first without, file:line). */
int stahost_check_traffic(const struct cell *c, struct al_err *err);
/* Copies the local airlab-agent to STAHOST_AGENT on host h (any lab host
 * with a shell: the traffic server's too). */
int stahost_agent_copy(struct dut *h, const char *local, struct al_err *err);
/* Copies the local airlab-agent to STAHOST_AGENT on every station host
 * (progress on stderr). */
int stahost_agent_install(struct stahost_set *set, const char *local,
			  struct al_err *err);
/* The interface each station-host station of c drives, as its start left
 * it in STAHOST_DIR/<station>/iface: ifaces[i] for topology station i
 * ("" for a station on the AP's host). A station without one (not
 * started) is an error naming it. */
int stahost_ifaces(struct stahost_set *set, const struct cell *c,
		   char (*ifaces)[STAHOST_IFACE_MAX], struct al_err *err);
/* Host k of set that carries station s, or NULL. */
struct dut *stahost_of(struct stahost_set *set, const struct topo_station *s);

/* Stops every station-host station of c; -1 when any could not be
 * stopped (the others still are). */
int stahost_stop(struct stahost_set *set, const struct cell *c,
		 struct al_err *err);

#endif
