/* Stations on station hosts (stahost.h). */
#include "stahost.h"
#include "../util/clock.h"
#include "../util/shquote.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seconds a station host's shell may take to answer the first time. */
#define STAHOST_CONNECT_S 15
/* Pause between status polls while waiting for association. */
#define POLL_PAUSE_MS 500
/* A host's status command (every station of it named): on the heap. */
#define STATUS_CMD_MAX 8192

/* Prefix of every remote command: sbin tools for any login. */
#define REMOTE_PATH "PATH=$PATH:/usr/sbin:/sbin; "

const struct topo_station *stahost_first_remote(const struct cell *c)
{
	for (int i = 0; i < c->topo.nstations; i++)
		if (!cell_station_local(c, &c->topo.stations[i]))
			return &c->topo.stations[i];
	return NULL;
}

/* MHz of a channel (2.4 GHz 1..14, 5 GHz above). */
static int chan_mhz(int ch)
{
	if (ch == 14)
		return 2484;
	return ch <= 13 ? 2407 + 5 * ch : 5000 + 5 * ch;
}

/* The PATH and the shell variables a station's commands use: n (station),
 * r (radio), d (its directory on the host), h (host), a and g (its
 * address and gateway, may be empty). */
static int put_station_vars(char *buf, size_t len, size_t *off,
			    const struct topo_station *s)
{
	char dir[sizeof(STAHOST_DIR) + 32];
	int bad = 0;

	snprintf(dir, sizeof(dir), "%s/%s", STAHOST_DIR, s->name);
	bad |= sh_append(buf, len, off, "%s", REMOTE_PATH);
	bad |= sh_put_var(buf, len, off, "n", s->name);
	bad |= sh_put_var(buf, len, off, "r", s->radio);
	bad |= sh_put_var(buf, len, off, "d", dir);
	bad |= sh_put_var(buf, len, off, "h", s->host);
	bad |= sh_put_var(buf, len, off, "a", s->address);
	bad |= sh_put_var(buf, len, off, "g", s->gateway);
	return bad;
}

int stahost_wpa_conf(const struct topology *t, const struct topo_station *s,
		     char *buf, size_t len, struct al_err *err)
{
	const char *pass = s->passphrase[0] ? s->passphrase : t->ap.passphrase;
	int mhz = chan_mhz(t->ap.channel);
	size_t off = 0;
	int bad = 0;

	bad |= sh_append(buf, len, &off,
			 "# airlab station %s (cell %s) on %s\n"
			 "ctrl_interface=%s/%s/ctrl\n"
			 "update_config=0\n"
			 "ap_scan=1\n"
			 "# rescan every second while not associated\n"
			 "autoscan=periodic:1\n"
			 "network={\n"
			 "\tssid=",
			 s->name, t->name, s->host, STAHOST_DIR, s->name);
	/* Hex: an SSID may hold any bytes. */
	bad |= sh_append_hex(buf, len, &off, t->ap.ssid);
	/* wpa_supplicant takes a quoted passphrase up to its last quote, and
	 * the topology allows printable ASCII only. */
	bad |= sh_append(buf, len, &off,
			 "\n\tpsk=\"%s\"\n"
			 "\tkey_mgmt=WPA-PSK\n"
			 "\tproto=RSN\n"
			 "\tpairwise=CCMP\n"
			 "\tgroup=CCMP\n"
			 "\tscan_freq=%d\n"
			 "\tfreq_list=%d\n"
			 "%s"
			 "}\n",
			 pass, mhz, mhz, s->ht ? "" : "\tdisable_ht=1\n");
	if (bad)
		return al_errf(err,
			       "station %s: wpa_supplicant config does not "
			       "fit in %zu bytes",
			       s->name, len);
	return 0;
}

/* Ends the station's wpa_supplicant (from its pidfile; exit 1 when it
 * outlives SIGTERM by 5 s), takes back the address airlab gave and removes
 * the interface airlab added: what stop does, and what start does first to
 * an earlier instance. Needs $d (the station's directory), $h and $n (host
 * and station names). */
#define STOP_EARLIER                                                           \
	"if [ -s \"$d/pid\" ]; then p=$(cat \"$d/pid\"); kill \"$p\" "         \
	"2>/dev/null; k=0; while kill -0 \"$p\" 2>/dev/null && [ $k -lt 50 "   \
	"]; "                                                                  \
	"do sleep 0.1; k=$((k + 1)); done; if kill -0 \"$p\" 2>/dev/null; "    \
	"then echo \"airlab: $h: station $n: wpa_supplicant (pid $p) still "   \
	"runs 5 s after 'kill $p'\" >&2; exit 1; fi; fi; "                     \
	"[ -s \"$d/address\" ] && ip -4 addr flush dev \"$(cat "               \
	"\"$d/iface\")\" "                                                     \
	"2>/dev/null; "                                                        \
	"[ -s \"$d/created\" ] && iw dev \"$(cat \"$d/created\")\" del "       \
	"2>/dev/null; "

int stahost_start_cmd(const struct topo_station *s, bool keep, char *buf,
		      size_t len, struct al_err *err)
{
	size_t off = 0;
	int bad = put_station_vars(buf, len, &off, s);

	/* With keep, a supplicant that runs with this configuration and
	 * address stays (exit STAHOST_KEPT): its association, interface and
	 * rate mask are what a sweep set up. Otherwise an earlier instance
	 * goes first (as stahost_stop_cmd), then the interface: the radio as
	 * it is, or one added on the phy. */
	bad |=
	    sh_append(buf, len, &off, "%s",
		      "; say() { echo \"airlab: $h: station $n: $*\" >&2; }; "
		      "w=$(cat); ");
	if (keep)
		bad |= sh_append(
		    buf, len, &off,
		    "if [ -s \"$d/pid\" ] && kill -0 \"$(cat "
		    "\"$d/pid\")\" 2>/dev/null && [ \"$w\" = \"$(cat "
		    "\"$d/wpa.conf\" 2>/dev/null)\" ] && [ \"$a $g\" = "
		    "\"$(cat \"$d/net\" 2>/dev/null)\" ]; then exit %d; "
		    "fi; ",
		    STAHOST_KEPT);
	bad |= sh_append(
	    buf, len, &off, "%s%s", STOP_EARLIER,
	    "rm -rf \"$d\" && mkdir -p \"$d/ctrl\" || { say \"cannot create "
	    "$d\"; exit 3; }; "
	    "if [ -e \"/sys/class/net/$r/phy80211\" ]; then i=$r; "
	    "elif [ -e \"/sys/class/ieee80211/$r\" ]; then i=$n; "
	    "if [ ! -e \"/sys/class/net/$i\" ]; then "
	    "iw phy \"$r\" interface add \"$i\" type managed || { say \"radio "
	    "$r: 'iw phy $r interface add $i type managed' failed\"; exit 3; "
	    "}; fi; echo \"$i\" >\"$d/created\"; "
	    "else say \"radio '$r' is neither a wireless interface "
	    "(/sys/class/net) nor a phy (/sys/class/ieee80211)\"; exit 3; fi; "
	    "echo \"$i\" >\"$d/iface\"; printf '%s\\n' \"$w\" "
	    ">\"$d/wpa.conf\" && echo \"$a $g\" >\"$d/net\" || exit 3; "
	    /* The station's address, and what lets several stations of one
	     * box share a subnet: each answers ARP only for its own address
	     * (arp_ignore, arp_announce), and a reply that comes back on
	     * another radio than the route would pick is not dropped
	     * (rp_filter loose). The gateway route is per interface, found
	     * by traffic bound to it (agent dev=). */
	    "if [ -n \"$a\" ]; then "
	    "for k in arp_ignore=1 arp_announce=2 rp_filter=2; do "
	    "echo \"${k#*=}\" >\"/proc/sys/net/ipv4/conf/$i/${k%=*}\" || { "
	    "say \"interface $i: cannot set net.ipv4.conf.$i.${k%=*}\"; exit "
	    "3; }; done; "
	    "ip -4 addr flush dev \"$i\" && ip addr add \"$a\" dev \"$i\" && "
	    "echo \"$a\" >\"$d/address\" && ip link set \"$i\" up || { say "
	    "\"interface $i: 'ip addr add $a dev $i' failed\"; exit 3; }; "
	    "if [ -n \"$g\" ]; then m=$((1000 + $(cat "
	    "\"/sys/class/net/$i/ifindex\"))); ip route replace default via "
	    "\"$g\" dev \"$i\" metric $m || { say \"interface $i: 'ip route "
	    "replace default via $g dev $i metric $m' failed\"; exit 3; }; fi; "
	    "fi; "
	    "c=\"wpa_supplicant -B -D nl80211 -i $i -c $d/wpa.conf -P $d/pid "
	    "-t -f $d/log\"; "
	    "$c || { say \"interface $i: '$c' failed: $(tail -n 3 \"$d/log\" "
	    "2>/dev/null | tr '\\n' ' ')\"; exit 4; }");
	if (bad)
		return al_errf(err, "station %s: start command too long",
			       s->name);
	return 0;
}

int stahost_stop_cmd(const struct topo_station *s, char *buf, size_t len,
		     struct al_err *err)
{
	size_t off = 0;
	int bad = put_station_vars(buf, len, &off, s);

	/* Exit 1 when the process outlives SIGTERM by 5 s. */
	bad |=
	    sh_append(buf, len, &off, "%s%s%s", "; [ -d \"$d\" ] || exit 0; ",
		      STOP_EARLIER, "rm -rf \"$d\"");
	if (bad)
		return al_errf(err, "station %s: stop command too long",
			       s->name);
	return 0;
}

int stahost_status_cmd(const struct topology *t, const char *host, char *buf,
		       size_t len, struct al_err *err)
{
	size_t off = 0;
	int bad = 0;

	bad |= sh_append(buf, len, &off, "%sfor n in", REMOTE_PATH);
	for (int i = 0; i < t->nstations; i++)
		if (!strcmp(t->stations[i].host, host)) {
			bad |= sh_append(buf, len, &off, " ");
			bad |= sh_quote(buf, len, &off, t->stations[i].name);
		}
	/* wpa_cli before the log: a COMPLETED state always finds its
	 * CTRL-EVENT-CONNECTED line. Start is the log's first line (-t
	 * stamps: wpa_supplicant's own clock). */
	bad |= sh_append(
	    buf, len, &off, "; do d=%s/$n; echo \"@station $n\"; %s",
	    STAHOST_DIR,
	    "i=$(cat \"$d/iface\" 2>/dev/null); "
	    "if [ -n \"$i\" ] && [ -s \"$d/pid\" ] && kill -0 \"$(cat "
	    "\"$d/pid\")\" 2>/dev/null; then "
	    "wpa_cli -p \"$d/ctrl\" -i \"$i\" status 2>&1 | sed 's/^/@wpa "
	    "/'; "
	    "iw dev \"$i\" link 2>&1 | sed 's/^/@link /'; "
	    "echo \"@start $(head -n1 \"$d/log\" 2>/dev/null | cut -d: "
	    "-f1)\"; "
	    "echo \"@connected $(grep -m1 CTRL-EVENT-CONNECTED \"$d/log\" "
	    "2>/dev/null | cut -d: -f1)\"; "
	    "else echo @down; fi; done");
	if (bad)
		return al_errf(err, "%s: status command too long", host);
	return 0;
}

/* ---- the status report ---- */

struct sta_report {
	char name[32];
	char wpa_state[32], bssid[32], addr[32];
	double start, connected, signal, txrate;
	bool down, any_wpa;
};

static double num(const char *s)
{
	char *end;
	double d;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NAN;
	d = strtod(s, &end);
	return end == s ? NAN : d;
}

static void copy_word(char *out, size_t len, const char *v)
{
	size_t n = strcspn(v, " \t\r\n");

	if (n >= len)
		n = len - 1;
	memcpy(out, v, n);
	out[n] = 0;
}

static void put_num(FILE *f, const char *key, double v, const char *fmt)
{
	fprintf(f, " %s=", key);
	if (isnan(v))
		fputc('-', f);
	else
		fprintf(f, fmt, v);
}

static bool emit_row(FILE *f, const struct sta_report *r)
{
	const char *state = r->down	      ? "NOT_RUNNING"
			    : !r->any_wpa     ? "NO_CONTROL"
			    : r->wpa_state[0] ? r->wpa_state
					      : "UNKNOWN";
	bool assoc = !strcmp(state, "COMPLETED");
	double assoc_s = NAN;

	if (!isnan(r->start) && !isnan(r->connected) &&
	    r->connected >= r->start)
		assoc_s = r->connected - r->start;
	fprintf(f, "station=%s associated=%s", r->name, assoc ? "yes" : "no");
	put_num(f, "assoc_s", assoc_s, "%.2f");
	put_num(f, "signal_dbm", assoc ? r->signal : NAN, "%.0f");
	put_num(f, "txrate_mbps", assoc ? r->txrate : NAN, "%.1f");
	fprintf(f, " bssid=%s wpa_state=%s addr=%s\n",
		assoc && r->bssid[0] ? r->bssid : "-", state,
		r->addr[0] ? r->addr : "-");
	return assoc;
}

int stahost_report_rows(const char *report, FILE *f, int *nassoc,
			struct al_err *err)
{
	struct sta_report r;
	bool open = false;
	int n = 0;

	*nassoc = 0;
	for (const char *line = report; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t llen = eol ? (size_t)(eol - line) : strlen(line);
		char l[512];
		const char *v;

		if (llen >= sizeof(l))
			llen = sizeof(l) - 1;
		memcpy(l, line, llen);
		l[llen] = 0;
		line = eol ? eol + 1 : NULL;
		if (!strncmp(l, "@station ", 9)) {
			if (open) {
				*nassoc += emit_row(f, &r);
				n++;
			}
			memset(&r, 0, sizeof(r));
			r.start = r.connected = r.signal = r.txrate = NAN;
			copy_word(r.name, sizeof(r.name), l + 9);
			open = r.name[0] != 0;
			if (!open)
				return al_errf(err,
					       "station report: '@station' "
					       "without a name");
			continue;
		}
		if (!l[0])
			continue;
		if (!open)
			return al_errf(err,
				       "station report: '%s' before any "
				       "'@station' line",
				       l);
		if (!strcmp(l, "@down"))
			r.down = true;
		else if (!strncmp(l, "@start ", 7))
			r.start = num(l + 7);
		else if (!strncmp(l, "@connected ", 11))
			r.connected = num(l + 11);
		else if (!strncmp(l, "@wpa ", 5)) {
			v = l + 5;
			if (!strncmp(v, "wpa_state=", 10)) {
				copy_word(r.wpa_state, sizeof(r.wpa_state),
					  v + 10);
				r.any_wpa = true;
			} else if (!strncmp(v, "bssid=", 6))
				copy_word(r.bssid, sizeof(r.bssid), v + 6);
			else if (!strncmp(v, "address=", 8))
				copy_word(r.addr, sizeof(r.addr), v + 8);
		} else if (!strncmp(l, "@link ", 6)) {
			v = l + 6 + strspn(l + 6, " \t");
			if (!strncmp(v, "signal:", 7))
				r.signal = num(v + 7);
			else if (!strncmp(v, "tx bitrate:", 11))
				r.txrate = num(v + 11);
		} else
			return al_errf(err,
				       "station report for %s: unexpected "
				       "line '%s'",
				       r.name, l);
	}
	if (open) {
		*nassoc += emit_row(f, &r);
		n++;
	}
	return n;
}

/* ---- over the shells ---- */

static int host_index(const struct stahost_set *set, const char *name)
{
	for (int i = 0; i < set->n; i++)
		if (!strcmp(set->hosts[i].host->name, name))
			return i;
	return -1;
}

int stahost_open(struct stahost_set *set, const struct cell *c, bool lock,
		 struct al_err *err)
{
	memset(set, 0, sizeof(*set));
	for (int i = 0; i < c->topo.nstations; i++) {
		const struct topo_station *s = &c->topo.stations[i];
		int k;

		if (cell_station_local(c, s))
			continue;
		k = host_index(set, s->host);
		if (k >= 0) {
			set->nstations[k]++;
			continue;
		}
		k = set->n;
		if ((lock ? dut_open(&set->hosts[k], &c->lab, s->host, err)
			  : dut_observe(&set->hosts[k], &c->lab, s->host,
					err)) < 0) {
			dut_close(&set->hosts[k]);
			stahost_close(set);
			return al_err_prefix(err, "station host %s", s->host);
		}
		set->nstations[k] = 1;
		set->n++;
	}
	return 0;
}

void stahost_close(struct stahost_set *set)
{
	for (int i = 0; i < set->n; i++)
		dut_close(&set->hosts[i]);
	set->n = 0;
}

/* Runs cmd on a station host (stdin from in). */
static int host_run(struct dut *h, const char *cmd, const char *in, int *status,
		    struct al_err *err)
{
	/* The shell driver's errors name the host and its address. */
	if (dut_run(h, cmd, in, in ? strlen(in) : 0, STDERR_FILENO,
		    STDERR_FILENO, status, STAHOST_CONNECT_S, err) < 0)
		return al_err_prefix(err, "station host");
	return 0;
}

int stahost_start(struct stahost_set *set, const struct cell *c, bool keep,
		  struct al_err *err)
{
	/* 12 kB: on the heap, not the stack. */
	struct {
		char cmd[8192], conf[4096];
	} *b = malloc(sizeof(*b));
	int failed = 0;

	if (!b)
		return al_errf(err, "out of memory");
	for (int i = 0; i < c->topo.nstations; i++) {
		const struct topo_station *s = &c->topo.stations[i];
		int k = host_index(set, s->host), status;

		if (cell_station_local(c, s) || k < 0)
			continue;
		if (stahost_wpa_conf(&c->topo, s, b->conf, sizeof(b->conf),
				     err) < 0 ||
		    stahost_start_cmd(s, keep, b->cmd, sizeof(b->cmd), err) <
			0 ||
		    host_run(&set->hosts[k], b->cmd, b->conf, &status, err) <
			0) {
			failed = -1;
			break;
		}
		if (status == STAHOST_KEPT) {
			fprintf(stderr,
				"%s: station %s: wpa_supplicant on %s already "
				"runs with this configuration: kept\n",
				s->host, s->name, s->radio);
		} else if (status != 0) {
			fprintf(stderr,
				"airlab: %s: station %s (radio %s): starting "
				"wpa_supplicant failed with status %d (the "
				"reason is above)\n",
				s->host, s->name, s->radio, status);
			failed++;
		} else {
			fprintf(stderr,
				"%s: station %s: wpa_supplicant on %s\n",
				s->host, s->name, s->radio);
		}
	}
	free(b);
	return failed;
}

/* One status round for host k: rows into f, *nassoc associated. */
static int host_status(struct stahost_set *set, const struct cell *c, int k,
		       FILE *f, int *nassoc, struct al_err *err)
{
	struct dut *h = &set->hosts[k];
	char *cmd = malloc(STATUS_CMD_MAX), *out = NULL;
	int status, n;

	if (!cmd)
		return al_errf(err, "out of memory");
	if (stahost_status_cmd(&c->topo, h->host->name, cmd, STATUS_CMD_MAX,
			       err) < 0)
		n = -1;
	else if ((n = dut_run_capture(h, cmd, &out, &status, STAHOST_CONNECT_S,
				      err)) < 0)
		al_err_prefix(err, "station host");
	free(cmd);
	if (n < 0)
		return -1;
	n = stahost_report_rows(out, f, nassoc, err);
	free(out);
	if (n < 0)
		return al_err_prefix(err, "station host %s", h->host->name);
	if (status != 0)
		return al_errf(err,
			       "station host %s: the station report exited "
			       "with status %d",
			       h->host->name, status);
	return n;
}

/* "sta3 COMPLETED, sta4 SCANNING" from rows text. */
static void states_line(const char *rows, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (const char *l = rows; l && *l; l = strchr(l, '\n')) {
		const char *st = strstr(l, " wpa_state=");
		char name[32];

		if (*l == '\n')
			l++;
		if (!*l || strncmp(l, "station=", 8) || !st)
			continue;
		copy_word(name, sizeof(name), l + 8);
		if (sh_append(buf, len, &off, "%s%s ", off ? ", " : "", name) <
		    0)
			return;
		st += 11;
		if (sh_append(buf, len, &off, "%.*s", (int)strcspn(st, " \n"),
			      st) < 0)
			return;
	}
}

int stahost_report(struct stahost_set *set, const struct cell *c, double wait_s,
		   char **text, struct al_err *err)
{
	double t0 = mono_s();

	for (int k = 0; k < set->n; k++) {
		char *rows = NULL, last[1024] = "", now[1024];
		size_t len = 0;
		FILE *f;
		int nassoc, n;

		for (;;) {
			free(rows);
			rows = NULL;
			f = open_memstream(&rows, &len);
			if (!f)
				return al_errf(err, "open_memstream failed");
			n = host_status(set, c, k, f, &nassoc, err);
			fclose(f);
			if (n < 0) {
				free(rows);
				return -1;
			}
			if (nassoc >= n || mono_s() - t0 >= wait_s)
				break;
			states_line(rows, now, sizeof(now));
			if (strcmp(now, last) != 0)
				fprintf(stderr,
					"%s: %d/%d associated after %.1f s "
					"(%s)\n",
					set->hosts[k].host->name, nassoc, n,
					mono_s() - t0, now);
			snprintf(last, sizeof(last), "%s", now);
			sleep_ms(POLL_PAUSE_MS);
		}
		fprintf(stderr, "%s: %d/%d stations associated\n",
			set->hosts[k].host->name, nassoc, n);
		/* Append to *text. */
		size_t old = *text ? strlen(*text) : 0;
		char *grown = realloc(*text, old + len + 1);
		if (!grown) {
			free(rows);
			return al_errf(err, "out of memory");
		}
		memcpy(grown + old, rows, len + 1);
		*text = grown;
		free(rows);
	}
	return 0;
}

struct dut *stahost_of(struct stahost_set *set, const struct topo_station *s)
{
	int k = host_index(set, s->host);

	return k < 0 ? NULL : &set->hosts[k];
}

int stahost_check_traffic(const struct cell *c, struct al_err *err)
{
	for (int i = 0; i < c->topo.nstations; i++) {
		const struct topo_station *s = &c->topo.stations[i];

		if (!cell_station_local(c, s) && !s->address[0])
			return al_errf(err,
				       "%s:%d: station %s on station host %s "
				       "has no address: (the IPv4 "
				       "address/prefix its traffic leaves "
				       "from, e.g. address: 10.42.0.63/24, "
				       "with gateway: when the traffic "
				       "server is routed)",
				       c->topo.path, s->line, s->name, s->host);
	}
	return 0;
}

int stahost_agent_copy(struct dut *h, const char *local, struct al_err *err)
{
	int status;

	if (dut_run(h, "mkdir -p " STAHOST_DIR, NULL, 0, STDERR_FILENO,
		    STDERR_FILENO, &status, STAHOST_CONNECT_S, err) < 0)
		return -1;
	if (status != 0)
		return al_errf(err, "%s: 'mkdir -p %s' failed (status %d)",
			       h->host->name, STAHOST_DIR, status);
	if (dut_upload(h, local, STAHOST_AGENT, 0755, STAHOST_CONNECT_S, err) <
	    0)
		return al_err_prefix(err, "%s: installing the agent",
				     h->host->name);
	fprintf(stderr, "%s: agent copied to %s\n", h->host->name,
		STAHOST_AGENT);
	return 0;
}

int stahost_agent_install(struct stahost_set *set, const char *local,
			  struct al_err *err)
{
	for (int k = 0; k < set->n; k++)
		if (stahost_agent_copy(&set->hosts[k], local, err) < 0)
			return al_err_prefix(err, "station host");
	return 0;
}

int stahost_ifaces(struct stahost_set *set, const struct cell *c,
		   char (*ifaces)[STAHOST_IFACE_MAX], struct al_err *err)
{
	for (int i = 0; i < c->topo.nstations; i++) {
		const struct topo_station *s = &c->topo.stations[i];
		struct dut *h;
		char cmd[256], *out = NULL;
		int status;
		size_t n;

		ifaces[i][0] = 0;
		if (cell_station_local(c, s) || !(h = stahost_of(set, s)))
			continue;
		snprintf(cmd, sizeof(cmd), "cat %s/%s/iface", STAHOST_DIR,
			 s->name);
		if (dut_run_capture(h, cmd, &out, &status, STAHOST_CONNECT_S,
				    err) < 0)
			return al_err_prefix(err, "station host");
		n = out ? strcspn(out, "\n") : 0;
		if (status != 0 || n == 0 || n >= STAHOST_IFACE_MAX) {
			free(out);
			return al_errf(err,
				       "%s: station %s: no interface in "
				       "%s/%s/iface (was it started? "
				       "`airlab up`)",
				       s->host, s->name, STAHOST_DIR, s->name);
		}
		memcpy(ifaces[i], out, n);
		ifaces[i][n] = 0;
		free(out);
	}
	return 0;
}

static const struct topo_station *find_remote(const struct cell *c,
					      const char *name)
{
	for (int i = 0; i < c->topo.nstations; i++)
		if (!strcmp(c->topo.stations[i].name, name) &&
		    !cell_station_local(c, &c->topo.stations[i]))
			return &c->topo.stations[i];
	return NULL;
}

int stahost_reassociate(struct stahost_set *set, const struct cell *c,
			const char *station, struct al_err *err)
{
	const struct topo_station *s = find_remote(c, station);
	char cmd[1024];
	size_t off = 0;
	int k, status, bad;

	if (!s || (k = host_index(set, s->host)) < 0)
		return al_errf(err, "%s: no station '%s' on a station host",
			       c->topo.path, station);
	bad = put_station_vars(cmd, sizeof(cmd), &off, s);
	bad |=
	    sh_append(cmd, sizeof(cmd), &off, "%s",
		      "; r=$(wpa_cli -p \"$d/ctrl\" -i \"$(cat \"$d/iface\")\" "
		      "reassociate 2>&1); echo \"$r\"; [ \"$r\" = OK ]");
	if (bad)
		return al_errf(err, "station %s: command too long", s->name);
	if (host_run(&set->hosts[k], cmd, NULL, &status, err) < 0)
		return -1;
	if (status != 0)
		return al_errf(err,
			       "%s: station %s: 'wpa_cli -p %s/%s/ctrl "
			       "reassociate' failed (status %d)",
			       s->host, s->name, STAHOST_DIR, s->name, status);
	return 0;
}

int stahost_stop(struct stahost_set *set, const struct cell *c,
		 struct al_err *err)
{
	char cmd[4096];
	int failed = 0;

	for (int i = 0; i < c->topo.nstations; i++) {
		const struct topo_station *s = &c->topo.stations[i];
		int k = host_index(set, s->host), status;

		if (cell_station_local(c, s) || k < 0)
			continue;
		if (stahost_stop_cmd(s, cmd, sizeof(cmd), err) < 0 ||
		    host_run(&set->hosts[k], cmd, NULL, &status, err) < 0)
			return -1;
		if (status != 0) {
			fprintf(stderr,
				"airlab: %s: station %s: stopping failed with "
				"status %d\n",
				s->host, s->name, status);
			failed++;
		} else {
			fprintf(stderr, "%s: station %s stopped\n", s->host,
				s->name);
		}
	}
	if (failed)
		return al_errf(err, "%d station-host station%s not stopped",
			       failed, failed > 1 ? "s" : "");
	return 0;
}
