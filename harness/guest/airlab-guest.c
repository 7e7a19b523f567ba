/* airlab-guest: the DUT-side tool of the virtual lab. Reads the cell
 * configuration, talks to each station's wpa_supplicant over its control
 * socket and records association events. libc only. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/cell_conf.h"
#include "nl80211_netns.h"
#include "wpa_ctrl.h"

#define REQUEST_TIMEOUT_MS 2000
#define WAIT_POLL_MS	   150
#define ATTACH_RETRY_MS	   100
#define PING_EVERY_MS	   2000

static const char *conf_path(void)
{
	const char *p = getenv("AIRLAB_CELL_CONF");

	return p && *p ? p : "/etc/airlab/cell.conf";
}

static const char *run_dir(void)
{
	const char *p = getenv("AIRLAB_RUN_DIR");

	return p && *p ? p : "/run/airlab";
}

static void ctrl_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/wpa/%s/wlan0", run_dir(), name);
}

static double uptime_now(void)
{
	struct timespec ts;

	/* CLOCK_BOOTTIME is the clock /proc/uptime shows. */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int load_conf(struct cell_conf *c)
{
	char err[512];

	if (cell_conf_load(c, conf_path(), err, sizeof(err)) < 0) {
		fprintf(stderr, "airlab-guest: %s\n", err);
		return -1;
	}
	return 0;
}

/* Value of "key=" in a key=value-per-line reply, copied into out ("" when
 * absent). */
static void reply_value(const char *reply, const char *key, char *out,
			size_t size)
{
	size_t klen = strlen(key);
	const char *p = reply;

	out[0] = '\0';
	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			const char *v = p + klen + 1;
			size_t n = strcspn(v, "\n");

			if (n >= size)
				n = size - 1;
			memcpy(out, v, n);
			out[n] = '\0';
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

/* Reads the first number in path (e.g. a /proc/uptime copy). */
static int read_double_file(const char *path, double *out)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%lf", out) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Uptime of the first CTRL-EVENT-CONNECTED recorded by `watch`. */
static int first_connected(const char *name, double *out)
{
	char path[512], line[1024];
	FILE *f;
	int found = -1;

	snprintf(path, sizeof(path), "%s/sta/%s.events", run_dir(), name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		double t;
		char ev[64];

		if (sscanf(line, "%lf %63s", &t, ev) == 2 &&
		    strcmp(ev, "CTRL-EVENT-CONNECTED") == 0) {
			*out = t;
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

/* ---- stations -------------------------------------------------------- */

struct sta_state {
	struct wpa_ctrl ctrl;
	bool open;
	char wpa_state[32];
	char bssid[32];
	char addr[32]; /* the station's own MAC */
	char err[256];
};

/* Refreshes wpa_state/bssid with STATUS; false when unreachable. */
static bool sta_status(struct sta_state *s, const char *name)
{
	char path[256], reply[WPA_CTRL_REPLY_MAX];

	if (!s->open) {
		ctrl_path(path, sizeof(path), name);
		if (wpa_ctrl_open(&s->ctrl, path, s->err, sizeof(s->err)) < 0)
			goto unreachable;
		s->open = true;
	}
	if (wpa_ctrl_request(&s->ctrl, "STATUS", reply, sizeof(reply),
			     REQUEST_TIMEOUT_MS, s->err, sizeof(s->err)) < 0) {
		wpa_ctrl_close(&s->ctrl);
		s->open = false;
		goto unreachable;
	}
	reply_value(reply, "wpa_state", s->wpa_state, sizeof(s->wpa_state));
	reply_value(reply, "bssid", s->bssid, sizeof(s->bssid));
	reply_value(reply, "address", s->addr, sizeof(s->addr));
	s->err[0] = '\0';
	return true;
unreachable:
	s->wpa_state[0] = '\0';
	s->bssid[0] = '\0';
	s->addr[0] = '\0';
	return false;
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void print_station(struct sta_state *s, const char *name)
{
	char reply[WPA_CTRL_REPLY_MAX], rssi[16] = "", speed[16] = "";
	char assoc[32] = "";
	bool assoc_ok = strcmp(s->wpa_state, "COMPLETED") == 0;
	double start, conn;
	char path[512], err[256];

	if (assoc_ok && s->open &&
	    wpa_ctrl_request(&s->ctrl, "SIGNAL_POLL", reply, sizeof(reply),
			     REQUEST_TIMEOUT_MS, err, sizeof(err)) > 0 &&
	    strncmp(reply, "FAIL", 4) != 0) {
		reply_value(reply, "RSSI", rssi, sizeof(rssi));
		reply_value(reply, "LINKSPEED", speed, sizeof(speed));
	}
	snprintf(path, sizeof(path), "%s/sta/%s.start", run_dir(), name);
	if (read_double_file(path, &start) == 0 &&
	    first_connected(name, &conn) == 0 && conn >= start)
		snprintf(assoc, sizeof(assoc), "%.2f", conn - start);
	printf("station=%s associated=%s assoc_s=%s signal_dbm=%s "
	       "txrate_mbps=%s bssid=%s wpa_state=%s addr=%s\n",
	       name, assoc_ok ? "yes" : "no", or_dash(assoc), or_dash(rssi),
	       or_dash(speed), assoc_ok ? or_dash(s->bssid) : "-",
	       or_dash(s->wpa_state), or_dash(s->addr));
}

static int cmd_stations(int argc, char **argv)
{
	struct cell_conf conf;
	struct sta_state *st;
	double wait_s = 0;
	long long deadline;
	int i, done, rc;

	for (i = 1; i < argc; i++) {
		char *end;

		if (strcmp(argv[i], "--wait") == 0 && i + 1 < argc) {
			errno = 0;
			wait_s = strtod(argv[++i], &end);
			if (errno || *end || wait_s < 0 || wait_s > 86400) {
				fprintf(stderr,
					"airlab-guest: stations: --wait '%s' "
					"is not 0..86400 seconds\n",
					argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr,
				"airlab-guest: stations: unknown argument '%s' "
				"(usage: stations [--wait SECONDS])\n",
				argv[i]);
			return 2;
		}
	}
	if (load_conf(&conf) < 0)
		return 2;
	st = calloc(conf.nsta ? conf.nsta : 1, sizeof(*st));
	if (!st) {
		fprintf(stderr, "airlab-guest: stations: out of memory\n");
		return 2;
	}
	deadline = mono_ms() + (long long)(wait_s * 1000);
	for (;;) {
		done = 0;
		for (i = 0; i < conf.nsta; i++) {
			if (strcmp(st[i].wpa_state, "COMPLETED") != 0 ||
			    wait_s == 0)
				sta_status(&st[i], conf.sta[i].name);
			done += strcmp(st[i].wpa_state, "COMPLETED") == 0;
		}
		if (done == conf.nsta || mono_ms() >= deadline)
			break;
		usleep(WAIT_POLL_MS * 1000);
	}
	/* Re-read everyone once so the rows are current. */
	done = 0;
	for (i = 0; i < conf.nsta; i++) {
		if (wait_s > 0)
			sta_status(&st[i], conf.sta[i].name);
		if (st[i].err[0])
			fprintf(stderr, "airlab-guest: %s: %s\n",
				conf.sta[i].name, st[i].err);
		print_station(&st[i], conf.sta[i].name);
		done += strcmp(st[i].wpa_state, "COMPLETED") == 0;
	}
	fflush(stdout);
	rc = done == conf.nsta ? 0 : 1;
	for (i = 0; i < conf.nsta; i++)
		if (st[i].open)
			wpa_ctrl_close(&st[i].ctrl);
	free(st);
	return rc;
}

/* ---- sta NAME CMD... ------------------------------------------------- */

static int cmd_sta(int argc, char **argv)
{
	struct cell_conf conf;
	struct wpa_ctrl c;
	char path[256], cmd[1024], reply[WPA_CTRL_REPLY_MAX], err[512];
	size_t len = 0;
	int i, n;
	bool known = false;

	if (argc < 3) {
		fprintf(stderr,
			"airlab-guest: usage: sta NAME COMMAND [ARG...]\n");
		return 2;
	}
	if (load_conf(&conf) < 0)
		return 2;
	for (i = 0; i < conf.nsta; i++)
		known |= strcmp(conf.sta[i].name, argv[1]) == 0;
	if (!known) {
		fprintf(stderr, "airlab-guest: sta: no station '%s' in %s\n",
			argv[1], conf_path());
		return 2;
	}
	cmd[0] = '\0';
	for (i = 2; i < argc; i++) {
		n = snprintf(cmd + len, sizeof(cmd) - len, "%s%s",
			     i > 2 ? " " : "", argv[i]);
		if (n < 0 || (size_t)n >= sizeof(cmd) - len) {
			fprintf(stderr,
				"airlab-guest: sta %s: command longer than %zu "
				"bytes\n",
				argv[1], sizeof(cmd) - 1);
			return 2;
		}
		len += (size_t)n;
	}
	ctrl_path(path, sizeof(path), argv[1]);
	if (wpa_ctrl_open(&c, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "airlab-guest: sta %s: %s\n", argv[1], err);
		return 2;
	}
	n = wpa_ctrl_request(&c, cmd, reply, sizeof(reply), REQUEST_TIMEOUT_MS,
			     err, sizeof(err));
	wpa_ctrl_close(&c);
	if (n < 0) {
		fprintf(stderr, "airlab-guest: sta %s: %s\n", argv[1], err);
		return 2;
	}
	fputs(reply, stdout);
	if (n > 0 && reply[n - 1] != '\n')
		putchar('\n');
	return strncmp(reply, "FAIL", 4) == 0 ||
		       strncmp(reply, "UNKNOWN COMMAND", 15) == 0
		   ? 1
		   : 0;
}

/* ---- watch ----------------------------------------------------------- */

/* Events worth keeping for "did it associate, when, and why not". */
static const char *const watched_events[] = {
    "CTRL-EVENT-CONNECTED",	     "CTRL-EVENT-DISCONNECTED",
    "CTRL-EVENT-ASSOC-REJECT",	     "CTRL-EVENT-AUTH-REJECT",
    "CTRL-EVENT-SSID-TEMP-DISABLED", "CTRL-EVENT-TERMINATING",
};

struct watch_sta {
	struct wpa_ctrl ctrl;
	bool attached;
	bool connected_once;
	long long next_try_ms;
	long long last_ping_ms;
	int pings_unanswered;
};

static void record_connected(struct watch_sta *w, const char *name, double t,
			     double start, int *nconnected, int nsta);

static void append_event(const char *name, double t, const char *ev)
{
	char path[512], line[1200];
	int fd, n;

	snprintf(path, sizeof(path), "%s/sta/%s.events", run_dir(), name);
	n = snprintf(line, sizeof(line), "%.3f %s\n", t, ev);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "airlab-guest: watch: %s: %s\n", path,
			strerror(errno));
		return;
	}
	if (write(fd, line, (size_t)n) != n)
		fprintf(stderr, "airlab-guest: watch: %s: short write\n", path);
	close(fd);
}

static void watch_event(struct watch_sta *w, const char *name, char *msg,
			double start, int *nconnected, int nsta)
{
	const char *ev = msg;
	double t = uptime_now();
	size_t i;

	/* Strip "<level>". */
	if (*ev == '<') {
		const char *gt = strchr(ev, '>');

		if (gt)
			ev = gt + 1;
	}
	msg[strcspn(msg, "\n")] = '\0';
	for (i = 0; i < sizeof(watched_events) / sizeof(watched_events[0]);
	     i++) {
		size_t len = strlen(watched_events[i]);

		if (strncmp(ev, watched_events[i], len) == 0 &&
		    (ev[len] == ' ' || ev[len] == '\0'))
			break;
	}
	if (i == sizeof(watched_events) / sizeof(watched_events[0]))
		return;
	append_event(name, t, ev);
	if (i == 0)
		record_connected(w, name, t, start, nconnected, nsta);
}

/* Uptime of the first CTRL-EVENT-CONNECTED in the station's wpa_supplicant
 * log (-t: wall-clock stamps), for a connection made before we attached. */
static int connected_from_log(const char *name, double *out, char *ev,
			      size_t evsize)
{
	char path[512], line[1024];
	struct timespec rt, bt;
	FILE *f;
	int found = -1;

	snprintf(path, sizeof(path), "%s/sta/%s.log", run_dir(), name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *e = strstr(line, "CTRL-EVENT-CONNECTED");
		double wall;

		if (!e || sscanf(line, "%lf:", &wall) != 1)
			continue;
		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_BOOTTIME, &bt);
		*out = wall - ((double)rt.tv_sec + rt.tv_nsec / 1e9) +
		       ((double)bt.tv_sec + bt.tv_nsec / 1e9);
		snprintf(ev, evsize, "%.*s (from wpa_supplicant log)",
			 (int)strcspn(e, "\n"), e);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

static void record_connected(struct watch_sta *w, const char *name, double t,
			     double start, int *nconnected, int nsta)
{
	if (w->connected_once)
		return;
	w->connected_once = true;
	(*nconnected)++;
	if (start > 0)
		printf("airlab-guest: %s associated %.2f s after "
		       "wpa_supplicant start (uptime %.2f)\n",
		       name, t - start, t);
	else
		printf("airlab-guest: %s associated (uptime %.2f)\n", name, t);
	if (*nconnected == nsta)
		printf(
		    "airlab-guest: all %d stations associated (uptime %.2f)\n",
		    nsta, t);
	fflush(stdout);
}

/* Reads pending datagrams of an attached station; false when the socket
 * failed. */
static bool drain_events(struct watch_sta *w, const char *name, double start,
			 int *nconnected, int nsta)
{
	char msg[WPA_CTRL_REPLY_MAX], err[512];
	int n;

	while ((n = wpa_ctrl_recv(&w->ctrl, msg, sizeof(msg), err,
				  sizeof(err))) > 0) {
		if (strncmp(msg, "PONG", 4) == 0)
			w->pings_unanswered = 0;
		else if (msg[0] == '<')
			watch_event(w, name, msg, start, nconnected, nsta);
	}
	return n == 0;
}

/* Right after ATTACH: a station that completed before we attached gets its
 * CONNECTED time from the supplicant's log. */
static void catch_up(struct watch_sta *w, const char *name, double start,
		     int *nconnected, int nsta)
{
	struct sta_state st = {0};
	char ev[1100];
	double t;

	if (w->connected_once || first_connected(name, &t) == 0) {
		w->connected_once = true;
		return;
	}
	if (!sta_status(&st, name))
		return;
	wpa_ctrl_close(&st.ctrl);
	if (strcmp(st.wpa_state, "COMPLETED") != 0)
		return;
	/* An event queued meanwhile is the better record. */
	drain_events(w, name, start, nconnected, nsta);
	if (w->connected_once)
		return;
	if (connected_from_log(name, &t, ev, sizeof(ev)) < 0) {
		t = uptime_now();
		snprintf(ev, sizeof(ev),
			 "CTRL-EVENT-CONNECTED (already COMPLETED when watch "
			 "attached)");
	}
	append_event(name, t, ev);
	record_connected(w, name, t, start, nconnected, nsta);
}

static double station_start(const char *name)
{
	char path[512];
	double start;

	snprintf(path, sizeof(path), "%s/sta/%s.start", run_dir(), name);
	return read_double_file(path, &start) == 0 ? start : 0;
}

static int cmd_watch(int argc, char **argv)
{
	struct cell_conf conf;
	struct watch_sta *ws;
	struct pollfd *pfd;
	int *pidx;
	int i, nconnected = 0;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "airlab-guest: watch takes no arguments\n");
		return 2;
	}
	if (load_conf(&conf) < 0)
		return 2;
	ws = calloc(conf.nsta ? conf.nsta : 1, sizeof(*ws));
	pfd = calloc(conf.nsta ? conf.nsta : 1, sizeof(*pfd));
	pidx = calloc(conf.nsta ? conf.nsta : 1, sizeof(*pidx));
	if (!ws || !pfd || !pidx) {
		fprintf(stderr, "airlab-guest: watch: out of memory\n");
		free(ws);
		free(pfd);
		free(pidx);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		long long now = mono_ms();
		int npfd = 0, timeout = PING_EVERY_MS;

		for (i = 0; i < conf.nsta; i++) {
			struct watch_sta *w = &ws[i];
			char path[256], err[512];

			if (!w->attached && now >= w->next_try_ms) {
				ctrl_path(path, sizeof(path), conf.sta[i].name);
				/* The socket appears once wpa_supplicant
				 * is up: retry quietly until then. */
				if (wpa_ctrl_open(&w->ctrl, path, err,
						  sizeof(err)) == 0 &&
				    wpa_ctrl_attach(&w->ctrl,
						    REQUEST_TIMEOUT_MS, err,
						    sizeof(err)) == 0) {
					w->attached = true;
					w->last_ping_ms = now;
					w->pings_unanswered = 0;
					catch_up(
					    w, conf.sta[i].name,
					    station_start(conf.sta[i].name),
					    &nconnected, conf.nsta);
				} else {
					wpa_ctrl_close(&w->ctrl);
					w->next_try_ms = now + ATTACH_RETRY_MS;
				}
			}
			if (w->attached &&
			    now - w->last_ping_ms >= PING_EVERY_MS) {
				/* A vanished supplicant shows as a failed
				 * send or missing PONGs: re-attach. */
				if (w->pings_unanswered >= 3 ||
				    wpa_ctrl_send(&w->ctrl, "PING", err,
						  sizeof(err)) < 0) {
					wpa_ctrl_close(&w->ctrl);
					w->attached = false;
					w->next_try_ms = now + ATTACH_RETRY_MS;
				} else {
					w->pings_unanswered++;
					w->last_ping_ms = now;
				}
			}
			if (w->attached) {
				pfd[npfd].fd = w->ctrl.fd;
				pfd[npfd].events = POLLIN;
				pidx[npfd++] = i;
			} else if (timeout > ATTACH_RETRY_MS) {
				timeout = ATTACH_RETRY_MS;
			}
		}
		if (poll(pfd, (nfds_t)npfd, timeout) < 0 && errno != EINTR) {
			fprintf(stderr, "airlab-guest: watch: poll: %s\n",
				strerror(errno));
			sleep(1);
			continue;
		}
		for (i = 0; i < npfd; i++) {
			struct watch_sta *w = &ws[pidx[i]];
			const char *name = conf.sta[pidx[i]].name;

			if (!(pfd[i].revents & (POLLIN | POLLERR | POLLHUP)))
				continue;
			if (!drain_events(w, name, station_start(name),
					  &nconnected, conf.nsta)) {
				wpa_ctrl_close(&w->ctrl);
				w->attached = false;
				w->next_try_ms = mono_ms() + ATTACH_RETRY_MS;
			}
		}
	}
}

/* ---- phy-netns PHY NETNS... ------------------------------------------- */

static int cmd_phy_netns(int argc, char **argv)
{
	struct nl80211_sock nl;
	char err[512];
	int i, failed = 0;

	if (argc < 3 || (argc - 1) % 2) {
		fprintf(stderr, "airlab-guest: usage: phy-netns PHY NETNS [PHY "
				"NETNS...]\n");
		return 2;
	}
	if (nl80211_open(&nl, err, sizeof(err)) < 0) {
		fprintf(stderr, "airlab-guest: phy-netns: %s\n", err);
		return 2;
	}
	for (i = 1; i + 1 < argc; i += 2) {
		const char *phy = argv[i], *ns = argv[i + 1];
		char path[512];
		double idx;
		int fd;

		snprintf(path, sizeof(path), "/sys/class/ieee80211/%s/index",
			 phy);
		if (strchr(phy, '/') || read_double_file(path, &idx) < 0) {
			fprintf(stderr,
				"airlab-guest: phy-netns: %s: cannot read %s\n",
				phy, path);
			failed = 1;
			continue;
		}
		if (strchr(ns, '/'))
			snprintf(path, sizeof(path), "%s", ns);
		else
			snprintf(path, sizeof(path), "/run/netns/%s", ns);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr,
				"airlab-guest: phy-netns: %s: open %s: %s\n",
				phy, path, strerror(errno));
			failed = 1;
			continue;
		}
		if (nl80211_set_wiphy_netns(&nl, (unsigned)idx, fd, err,
					    sizeof(err)) < 0) {
			fprintf(stderr,
				"airlab-guest: phy-netns: %s (wiphy %u) to %s: "
				"%s\n",
				phy, (unsigned)idx, path, err);
			failed = 1;
		}
		close(fd);
	}
	nl80211_close(&nl);
	return failed;
}

/* ---- main ------------------------------------------------------------ */

static int cmd_help(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *description;
} subcommands[] = {
    {"watch", cmd_watch, "watch",
     "ATTACH to every station's wpa_supplicant and append association "
     "events to <run>/sta/<name>.events"},
    {"stations", cmd_stations, "stations [--wait SECONDS]",
     "print one key=value line per station; exit 0 when all are "
     "associated, 1 when some are not, 2 on error"},
    {"sta", cmd_sta, "sta NAME COMMAND [ARG...]",
     "send a control command (e.g. REASSOCIATE) to a station's "
     "wpa_supplicant and print the reply"},
    {"phy-netns", cmd_phy_netns, "phy-netns PHY NETNS [...]",
     "move wiphys into network namespaces (/run/netns/NETNS), like "
     "`iw phy PHY set netns name NETNS`, in one process"},
    {"help", cmd_help, "--help", "show this help"},
};

static int cmd_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	printf("Usage: airlab-guest <subcommand> [<args>]\n\n"
	       "Available subcommands:\n");
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		printf("  %-28s %s\n", subcommands[i].usage,
		       subcommands[i].description);
	printf(
	    "\nEnvironment: AIRLAB_CELL_CONF (default /etc/airlab/cell.conf),\n"
	    "AIRLAB_RUN_DIR (default /run/airlab; sockets are "
	    "<run>/wpa/<name>/wlan0).\n");
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		cmd_help(0, NULL);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(argc - 1, argv + 1);
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return subcommands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "airlab-guest: unknown subcommand '%s' (try --help)\n",
		argv[1]);
	return 2;
}
