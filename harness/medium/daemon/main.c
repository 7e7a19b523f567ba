/* airlab-medium: the virtual lab's wireless medium. Registers with
 * mac80211_hwsim as its medium, runs every transmitted frame through the
 * model in harness/medium/ (airtime, contention, A-MPDU, PER, retries),
 * delivers frames and tx status on CLOCK_MONOTONIC timers at the
 * simulated completion times, and serves the control socket. One thread,
 * one poll loop. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../../util/cell_conf.h"
#include "../ctrl.h"
#include "../medium.h"
#include "hwsim_nl.h"

#define PROG	       "airlab-medium"
#define MAX_CLIENTS    16
#define CLIENT_OUT_MAX (128 * 1024)
#define NL_BATCH       16 /* recvmmsg calls per poll round (32 datagrams each) */

struct client {
	int fd;
	char in[MED_CTRL_LINE_MAX + 2];
	size_t inlen;
	int discarding; /* rest of an over-long line */
	char *out;
	size_t outlen, outoff;
};

struct daemon {
	struct medium m;
	struct hwsim_nl nl;
	int tfd, sfd, lfd;
	struct client cl[MAX_CLIENTS];
	const char *sock_path;
	int verbose;
	uint64_t status_sent, delivered;
	/* Medium time runs time_scale times slower than the host's clock
	 * (-T): every airtime, backoff and delivery takes that much longer
	 * in wall time, so the simulated air, not the guest's CPU, is what
	 * the stack queues behind. From t0 on. */
	double time_scale;
	int64_t t0;
};

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Now in medium time, and a medium time as a host clock time. */
static int64_t med_now(const struct daemon *dm)
{
	return dm->t0 +
	       (int64_t)((double)(mono_ns() - dm->t0) / dm->time_scale);
}

static int64_t wall_of(const struct daemon *dm, int64_t t)
{
	return dm->t0 + (int64_t)((double)(t - dm->t0) * dm->time_scale);
}

/* ---- cell.conf ------------------------------------------------------- */

/* Spare radios (the image's spare<j>, after the stations' radios): the
 * stations of a station host that drive them, with their paths. */
#define MAX_SPARE 32

struct conf_ctx {
	struct med_conf *mc;
	int nsta;
	int nspare;
	struct med_radio_conf spare[MAX_SPARE + 1];
};

static int conf_key(void *ctx, const char *key, const char *value, char *err,
		    size_t errlen)
{
	struct conf_ctx *c = ctx;
	char field[32], *end;
	int i;

	if (strcmp(key, "AIRLAB_NSTA") == 0) {
		long n = strtol(value, &end, 10);
		if (end == value || *end || n < 0 || n >= MED_MAX_RADIOS - 1) {
			snprintf(err, errlen, "AIRLAB_NSTA='%s' is not 0..%d",
				 value, MED_MAX_RADIOS - 2);
			return -1;
		}
		c->nsta = (int)n;
		return 0;
	}
	if (strcmp(key, "AIRLAB_SPARE_RADIOS") == 0) {
		long n = strtol(value, &end, 10);
		if (end == value || *end || n < 0 || n > MAX_SPARE) {
			snprintf(err, errlen,
				 "AIRLAB_SPARE_RADIOS='%s' is not 0..%d", value,
				 MAX_SPARE);
			return -1;
		}
		c->nspare = (int)n;
		return 0;
	}
	struct med_radio_conf *r;
	if (sscanf(key, "AIRLAB_SPARE_%d_%31s", &i, field) == 2) {
		if (i < 1 || i > MAX_SPARE) {
			snprintf(err, errlen, "%s: spare index out of 1..%d",
				 key, MAX_SPARE);
			return -1;
		}
		r = &c->spare[i];
	} else if (sscanf(key, "AIRLAB_STA_%d_%31s", &i, field) == 2) {
		if (i < 1 || i >= MED_MAX_RADIOS) {
			snprintf(err, errlen, "%s: station index out of 1..%d",
				 key, MED_MAX_RADIOS - 1);
			return -1;
		}
		r = &c->mc->radio[i];
	} else {
		return 0; /* other keys belong to the init */
	}
	if (strcmp(field, "NAME") == 0) {
		snprintf(r->name, sizeof(r->name), "%s", value);
	} else if (strcmp(field, "PATH") == 0) {
		snprintf(r->path, sizeof(r->path), "%s", value);
	} else if (strcmp(field, "LOSS_DB") == 0) {
		double d = strtod(value, &end);
		if (end == value || *end || d < 0 || d > 300) {
			snprintf(err, errlen, "%s='%s' is not 0..300 dB", key,
				 value);
			return -1;
		}
		r->base_loss_db = d;
	}
	return 0;
}

static int load_conf(const char *path, struct med_conf *mc)
{
	static struct conf_ctx ctx;
	char err[300];
	static char text[65536];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f) {
		logf_("cell config %s: %s", path, strerror(errno));
		return -1;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.mc = mc;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	if (cell_conf_parse(text, conf_key, &ctx, err, sizeof(err)) < 0) {
		logf_("cell config %s: %s", path, err);
		return -1;
	}
	if (ctx.nsta + 1 + ctx.nspare > MED_MAX_RADIOS) {
		logf_("cell config %s: %d stations and %d spare radios exceed "
		      "%d radios",
		      path, ctx.nsta, ctx.nspare, MED_MAX_RADIOS);
		return -1;
	}
	mc->nradios = ctx.nsta + 1 + ctx.nspare;
	snprintf(mc->radio[0].name, sizeof(mc->radio[0].name), "ap");
	for (int i = 1; i <= ctx.nsta; i++)
		if (!mc->radio[i].name[0])
			snprintf(mc->radio[i].name, sizeof(mc->radio[i].name),
				 "sta%d", i);
	/* Spare radio j is hwsim radio nsta + j (the init's order). */
	for (int j = 1; j <= ctx.nspare; j++) {
		struct med_radio_conf *r = &mc->radio[ctx.nsta + j];

		*r = ctx.spare[j];
		if (!r->name[0])
			snprintf(r->name, sizeof(r->name), "spare%d", j);
	}
	return 0;
}

/* ---- radios ------------------------------------------------------------ */

static int parse_mac(const char *s, uint8_t a[6])
{
	unsigned v[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		a[i] = (uint8_t)v[i];
	return 0;
}

/* Maps hwsim radios to cell radios: /sys/class/ieee80211/PHY/device links
 * to the hwsim device "hwsimK" (K = hwsim's radio index, in creation
 * order), macaddress is the radio's permanent address (hwsim's
 * addresses[0]); the medium address is that with 0x40 set in the first
 * octet. Radio K is the AP for K = 0 and station K otherwise, as the
 * init assigns them. */
static int scan_sysfs(struct medium *m, int verbose)
{
	const char *base = "/sys/class/ieee80211";
	DIR *d = opendir(base);
	struct dirent *e;
	int found = 0;

	if (!d) {
		logf_("%s: %s (radios will be learned from their frames)", base,
		      strerror(errno));
		return 0;
	}
	while ((e = readdir(d))) {
		char p[PATH_MAX], link[PATH_MAX], mac[32];
		uint8_t vif[6], hw[6];
		ssize_t n;
		const char *dev;
		int k;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/device", base, e->d_name);
		n = readlink(p, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = 0;
		dev = strrchr(link, '/');
		dev = dev ? dev + 1 : link;
		if (sscanf(dev, "hwsim%d", &k) != 1 || k < 0 ||
		    k >= MED_MAX_RADIOS)
			continue;
		snprintf(p, sizeof(p), "%s/%s/macaddress", base, e->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (!fgets(mac, sizeof(mac), f) || parse_mac(mac, vif) < 0) {
			fclose(f);
			continue;
		}
		fclose(f);
		memcpy(hw, vif, 6);
		hw[0] |= 0x40;
		med_radio_set(m, k, hw, vif);
		found++;
		if (verbose)
			logf_("radio %d: %s %s (%s)", k, e->d_name, dev,
			      k < m->conf.nradios ? m->conf.radio[k].name
						  : "not in the cell");
	}
	closedir(d);
	return found;
}

/* ---- medium callbacks -------------------------------------------------- */

static void on_deliver(void *ctx, int rx, const struct med_frame *f,
		       int signal_dbm, int rx_rate_idx)
{
	struct daemon *dm = ctx;

	if (hwsim_nl_deliver(&dm->nl, dm->m.radio[rx].hwaddr, f->data, f->len,
			     rx_rate_idx, signal_dbm, f->freq) == 0)
		dm->delivered++;
}

static void on_status(void *ctx, const struct med_frame *f, bool acked,
		      const struct med_try used[MED_NRATES], int ack_signal)
{
	struct daemon *dm = ctx;
	uint32_t flags =
	    f->hwflags & (MED_TX_CTL_REQ_TX_STATUS | MED_TX_CTL_NO_ACK);

	/* mac80211 needs every frame back: without status it never frees
	 * the skb from hwsim's pending list. */
	if (acked)
		flags |= MED_TX_STAT_ACK;
	if (hwsim_nl_tx_info(&dm->nl, dm->m.radio[f->tx].hwaddr, flags,
			     f->cookie, ack_signal, used, f->airtime_us) == 0)
		dm->status_sent++;
}

static void on_nl_msg(void *ctx, const struct hwsim_msg *msg)
{
	struct daemon *dm = ctx;
	int tx;

	if (!msg->transmitter)
		return;
	tx = med_radio_of_hwaddr(&dm->m, msg->transmitter, true);
	if (tx < 0) {
		dm->m.unknown_tx++;
		return;
	}
	switch (msg->cmd) {
	case HWSIM_CMD_FRAME:
		if (!msg->frame || !msg->have_tx_info)
			return;
		med_frame_in(&dm->m, med_now(dm), tx, msg->frame,
			     msg->frame_len, msg->flags, msg->freq, msg->cookie,
			     msg->tries);
		break;
	case HWSIM_CMD_ADD_MAC_ADDR:
		if (msg->receiver)
			med_radio_add_vif(&dm->m, tx, msg->receiver);
		break;
	case HWSIM_CMD_DEL_MAC_ADDR:
		if (msg->receiver)
			med_radio_del_vif(&dm->m, tx, msg->receiver);
		break;
	}
}

/* ---- control socket ---------------------------------------------------- */

static int listen_unix(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		logf_("control socket path %s is too long", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		logf_("control socket %s: socket: %s", path, strerror(errno));
		return -1;
	}
	unlink(path); /* a stale socket of an earlier run */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, 0600) < 0 || listen(fd, 8) < 0) {
		logf_("control socket %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void client_close(struct client *c)
{
	close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static void client_flush(struct client *c)
{
	while (c->outoff < c->outlen) {
		ssize_t n =
		    send(c->fd, c->out + c->outoff, c->outlen - c->outoff,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			client_close(c);
			return;
		}
		c->outoff += (size_t)n;
	}
	c->outoff = c->outlen = 0;
}

static void client_reply(struct daemon *dm, struct client *c, const char *line)
{
	static char reply[CLIENT_OUT_MAX];
	size_t n;

	if (line) {
		n = med_ctrl_handle(&dm->m, line, med_now(dm), reply,
				    sizeof(reply));
		/* The daemon's own netlink counters (since it started),
		 * before the medium's closing "ok". */
		if (!strcmp(line, "stats") && n >= 3 &&
		    !strcmp(reply + n - 3, "ok\n"))
			n = n - 3 +
			    (size_t)snprintf(
				reply + n - 3, sizeof(reply) - (n - 3),
				"netlink messages=%llu sends=%llu lost=%llu "
				"kernel_errors=%llu overruns=%llu\nok\n",
				(unsigned long long)dm->nl.sent,
				(unsigned long long)dm->nl.batches,
				(unsigned long long)dm->nl.send_errors,
				(unsigned long long)dm->nl.kernel_errors,
				(unsigned long long)dm->nl.overruns);
		if (n >= sizeof(reply))
			n = sizeof(reply) - 1;
	} else
		n = (size_t)snprintf(reply, sizeof(reply),
				     "error: command longer than %d bytes\n",
				     MED_CTRL_LINE_MAX);
	if (c->outlen + n > CLIENT_OUT_MAX) {
		client_close(c); /* not reading its replies */
		return;
	}
	if (!c->out && !(c->out = malloc(CLIENT_OUT_MAX))) {
		client_close(c);
		return;
	}
	memcpy(c->out + c->outlen, reply, n);
	c->outlen += n;
	client_flush(c);
}

static void client_read(struct daemon *dm, struct client *c)
{
	char buf[1024];
	ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		client_close(c);
		return;
	}
	for (ssize_t i = 0; i < n && c->fd >= 0; i++) {
		char ch = buf[i];
		if (ch == '\n') {
			if (c->discarding)
				c->discarding = 0;
			else {
				c->in[c->inlen] = 0;
				client_reply(dm, c, c->in);
			}
			c->inlen = 0;
			continue;
		}
		if (c->discarding)
			continue;
		if (c->inlen == MED_CTRL_LINE_MAX + 1) {
			client_reply(dm, c, NULL);
			c->discarding = 1;
			c->inlen = 0;
			continue;
		}
		c->in[c->inlen++] = ch;
	}
}

/* ---- main loop --------------------------------------------------------- */

static void arm_timer(struct daemon *dm, int64_t deadline)
{
	struct itimerspec its = {0};

	if (deadline > 0) {
		its.it_value.tv_sec = deadline / 1000000000LL;
		its.it_value.tv_nsec = deadline % 1000000000LL;
	}
	timerfd_settime(dm->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void flush_nl(struct daemon *dm)
{
	if (hwsim_nl_flush(&dm->nl) < 0 && dm->verbose)
		logf_("netlink send: %s", strerror(errno));
}

static int run(struct daemon *dm)
{
	static uint8_t buf[HWSIM_NL_RECV_MAX * HWSIM_NL_SLOT];
	struct pollfd p[4 + MAX_CLIENTS];
	int64_t armed = -2;

	for (;;) {
		int64_t now = med_now(dm), dl;
		int np = 0, cmap[MAX_CLIENTS];

		med_advance(&dm->m, now);
		/* What came due goes out now, in one sendto. */
		flush_nl(dm);
		dl = med_next_deadline(&dm->m);
		if (dl >= 0 && dl <= med_now(dm))
			continue; /* already due: no sleep */
		if (dl != armed) {
			arm_timer(dm, dl < 0 ? 0 : wall_of(dm, dl));
			armed = dl;
		}
		p[np++] = (struct pollfd){dm->nl.fd, POLLIN, 0};
		p[np++] = (struct pollfd){dm->tfd, POLLIN, 0};
		p[np++] = (struct pollfd){dm->sfd, POLLIN, 0};
		p[np++] = (struct pollfd){dm->lfd, POLLIN, 0};
		for (int i = 0; i < MAX_CLIENTS; i++) {
			cmap[i] = -1;
			if (dm->cl[i].fd < 0)
				continue;
			cmap[i] = np;
			p[np++] = (struct pollfd){
			    dm->cl[i].fd,
			    (short)(POLLIN | (dm->cl[i].outlen ? POLLOUT : 0)),
			    0};
		}
		if (poll(p, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			logf_("poll: %s", strerror(errno));
			return 1;
		}
		if (p[1].revents & POLLIN) {
			uint64_t exp;
			if (read(dm->tfd, &exp, sizeof(exp)) < 0 &&
			    errno != EAGAIN)
				logf_("timerfd read: %s", strerror(errno));
			armed = -2; /* expired: re-arm next round */
		}
		if (p[0].revents & (POLLIN | POLLERR)) {
			/* Run due events between batches so timers keep
			 * their place while frames pour in. */
			for (int i = 0; i < NL_BATCH; i++) {
				int r = hwsim_nl_recv(&dm->nl, buf, sizeof(buf),
						      on_nl_msg, dm);
				if (r < 0) {
					logf_("netlink recv: %s",
					      strerror(errno));
					return 1;
				}
				if (r == 0)
					break;
				med_advance(&dm->m, med_now(dm));
				flush_nl(dm);
			}
		}
		if (p[2].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(dm->sfd, &si, sizeof(si)) == sizeof(si)) {
				logf_("signal %u: exiting", si.ssi_signo);
				return 0;
			}
		}
		if (p[3].revents & POLLIN) {
			int fd = accept4(dm->lfd, NULL, NULL,
					 SOCK_NONBLOCK | SOCK_CLOEXEC);
			int slot = -1;
			for (int i = 0; fd >= 0 && i < MAX_CLIENTS; i++)
				if (dm->cl[i].fd < 0) {
					slot = i;
					break;
				}
			if (fd >= 0 && slot < 0) {
				const char *busy = "error: too many clients\n";
				(void)!write(fd, busy, strlen(busy));
				close(fd);
			} else if (fd >= 0) {
				dm->cl[slot].fd = fd;
			}
		}
		for (int i = 0; i < MAX_CLIENTS; i++) {
			if (cmap[i] < 0 || dm->cl[i].fd < 0)
				continue;
			short re = p[cmap[i]].revents;
			if (re & POLLOUT)
				client_flush(&dm->cl[i]);
			if (dm->cl[i].fd >= 0 &&
			    (re & (POLLIN | POLLHUP | POLLERR)))
				client_read(dm, &dm->cl[i]);
		}
	}
}

/* Client mode: sends one command to a running daemon and prints the
 * reply; exit status 0 for "ok", 1 for "error: ..." or no reply. */
static int client_command(const char *path, const char *line)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {5, 0};
	char buf[8192], last[MED_CTRL_LINE_MAX + 64] = "";
	size_t ll = 0;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		logf_("control socket path %s is too long", path);
		return 1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		logf_("control socket %s: connect: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (dprintf(fd, "%s\n", line) < 0) {
		logf_("control socket %s: send: %s", path, strerror(errno));
		close(fd);
		return 1;
	}
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			logf_("control socket %s: %s waiting for the reply to "
			      "'%s'",
			      path, n < 0 ? strerror(errno) : "closed", line);
			close(fd);
			return 1;
		}
		fwrite(buf, 1, (size_t)n, stdout);
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (ll < sizeof(last) - 1)
					last[ll++] = buf[i];
				continue;
			}
			last[ll] = 0;
			ll = 0;
			if (strcmp(last, "ok") == 0 ||
			    strncmp(last, "error: ", 7) == 0) {
				close(fd);
				return last[0] == 'o' ? 0 : 1;
			}
		}
	}
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " PROG " [options]\n"
	    "  -c, --conf FILE        cell config (/etc/airlab/cell.conf)\n"
	    "  -s, --socket PATH      control socket "
	    "(/run/airlab/medium.sock)\n"
	    "  -p, --tx-power DBM     transmit power of every radio (20)\n"
	    "  -A, --no-ampdu         send every MPDU in its own PPDU\n"
	    "  -n, --ampdu-max N      subframes per A-MPDU (32, at most %d)\n"
	    "  -L, --ampdu-max-us US  A-MPDU airtime limit (4000)\n"
	    "  -q, --queue-limit N    frames queued per radio (200)\n"
	    "  -S, --seed N           random seed (default: from the clock)\n"
	    "  -w, --wait MS          wait for mac80211_hwsim this long (0)\n"
	    "  -T, --time-scale K     medium time runs K times slower than "
	    "the host's (1)\n"
	    "  -m, --mic-bytes N      bytes a radio's crypto engine appends "
	    "to a protected frame\n"
	    "                         on air (hwsim hwcrypto: 8 for CCMP) "
	    "(0)\n"
	    "  -R, --new-radios N     create N radios beyond hwsim's radios= "
	    "(which stops at\n"
	    "                         100) before registering (0)\n"
	    "  -v, --verbose\n"
	    "  -C, --command LINE     send LINE to a running daemon, print "
	    "the reply\n",
	    MED_AMPDU_MAX);
}

static int parse_num(const char *opt, const char *v, double lo, double hi,
		     double *out)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || d < lo || d > hi) {
		logf_("%s '%s': want a number in %g..%g", opt, v, lo, hi);
		return -1;
	}
	*out = d;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"conf", 1, 0, 'c'},	{"socket", 1, 0, 's'},
	    {"tx-power", 1, 0, 'p'},	{"no-ampdu", 0, 0, 'A'},
	    {"ampdu-max", 1, 0, 'n'},	{"ampdu-max-us", 1, 0, 'L'},
	    {"queue-limit", 1, 0, 'q'}, {"seed", 1, 0, 'S'},
	    {"wait", 1, 0, 'w'},	{"verbose", 0, 0, 'v'},
	    {"help", 0, 0, 'h'},	{"command", 1, 0, 'C'},
	    {"time-scale", 1, 0, 'T'},	{"mic-bytes", 1, 0, 'm'},
	    {"new-radios", 1, 0, 'R'},	{0, 0, 0, 0}};
	const char *command = NULL;
	static struct daemon dm;
	const char *conf = "/etc/airlab/cell.conf";
	struct med_conf mc;
	struct med_ops ops = {on_deliver, on_status, &dm};
	double v, wait_ms = 0, new_radios = 0;
	char err[512];
	sigset_t ss;
	int o, rc;

	med_conf_defaults(&mc);
	mc.seed = (uint64_t)mono_ns() ^ ((uint64_t)getpid() << 32);
	dm.sock_path = "/run/airlab/medium.sock";
	dm.time_scale = 1;
	while ((o = getopt_long(argc, argv, "c:s:p:An:L:q:S:w:vhC:T:m:R:", lo,
				NULL)) != -1) {
		switch (o) {
		case 'c':
			conf = optarg;
			break;
		case 's':
			dm.sock_path = optarg;
			break;
		case 'p':
			if (parse_num("--tx-power", optarg, -30, 40,
				      &mc.tx_power_dbm) < 0)
				return 2;
			break;
		case 'A':
			mc.ampdu = false;
			break;
		case 'n':
			if (parse_num("--ampdu-max", optarg, 1, MED_AMPDU_MAX,
				      &v) < 0)
				return 2;
			mc.ampdu_max = (int)v;
			break;
		case 'L':
			if (parse_num("--ampdu-max-us", optarg, 100, 10000,
				      &v) < 0)
				return 2;
			mc.ampdu_max_us = (int)v;
			break;
		case 'q':
			if (parse_num("--queue-limit", optarg, 1, 100000, &v) <
			    0)
				return 2;
			mc.queue_limit = (int)v;
			break;
		case 'S':
			if (parse_num("--seed", optarg, 1, 1e15, &v) < 0)
				return 2;
			mc.seed = (uint64_t)v;
			break;
		case 'w':
			if (parse_num("--wait", optarg, 0, 600000, &wait_ms) <
			    0)
				return 2;
			break;
		case 'v':
			dm.verbose = 1;
			break;
		case 'T':
			if (parse_num("--time-scale", optarg, 1, 1000,
				      &dm.time_scale) < 0)
				return 2;
			mc.time_scale = dm.time_scale;
			break;
		case 'm':
			if (parse_num("--mic-bytes", optarg, 0, 16, &v) < 0)
				return 2;
			mc.mic_bytes = (int)v;
			break;
		case 'R':
			if (parse_num("--new-radios", optarg, 0, MED_MAX_RADIOS,
				      &new_radios) < 0)
				return 2;
			break;
		case 'C':
			command = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (command)
		return client_command(dm.sock_path, command);
	if (load_conf(conf, &mc) < 0)
		return 1;
	dm.t0 = mono_ns();
	if (med_init(&dm.m, &mc, &ops, med_now(&dm), err, sizeof(err)) < 0) {
		logf_("%s: %s", conf, err);
		return 1;
	}
	for (int i = 0; i < MAX_CLIENTS; i++)
		dm.cl[i].fd = -1;

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	dm.sfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
	dm.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (dm.sfd < 0 || dm.tfd < 0) {
		logf_("signalfd/timerfd: %s", strerror(errno));
		return 1;
	}
	dm.lfd = listen_unix(dm.sock_path);
	if (dm.lfd < 0)
		return 1;
	if (hwsim_nl_open(&dm.nl, (int)wait_ms, (int)new_radios, err,
			  sizeof(err)) < 0) {
		logf_("mac80211_hwsim: %s", err);
		unlink(dm.sock_path);
		return 1;
	}
	int nr = scan_sysfs(&dm.m, dm.verbose);
	logf_("registered with %s (family %u): %d cell radios, %d in sysfs, "
	      "%d paths, A-MPDU %s, control %s",
	      HWSIM_FAMILY_NAME, dm.nl.family, mc.nradios, nr, dm.m.npaths,
	      mc.ampdu ? "on" : "off", dm.sock_path);
	rc = run(&dm);
	flush_nl(&dm);
	logf_("frames in %llu, delivered %llu, status %llu, netlink messages "
	      "%llu in %llu sends (%llu lost), kernel errors %llu "
	      "(last: %s), netlink overruns %llu",
	      (unsigned long long)dm.m.frames_in,
	      (unsigned long long)dm.delivered,
	      (unsigned long long)dm.status_sent,
	      (unsigned long long)dm.nl.sent, (unsigned long long)dm.nl.batches,
	      (unsigned long long)dm.nl.send_errors,
	      (unsigned long long)dm.nl.kernel_errors,
	      dm.nl.last_kernel_errno ? strerror(dm.nl.last_kernel_errno) : "-",
	      (unsigned long long)dm.nl.overruns);
	hwsim_nl_close(&dm.nl);
	unlink(dm.sock_path);
	med_free(&dm.m);
	return rc;
}
