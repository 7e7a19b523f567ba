/* The agent's event loop. Everything is non-blocking and driven by one
 * epoll set plus one timerfd armed at the next deadline (ns precision), so
 * hundreds of flows share one thread without a sender starving a probe. */
#include "agent.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "agent_proto.h"
#include "agent_stats.h"

#define NSEC		   1000000000LL
#define MSEC		   1000000LL
#define HDR_LEN		   64 /* flow header, fixed size */
#define BULK_CHUNK	   (128 * 1024)
#define CONNECT_TIMEOUT_NS (10 * NSEC)
#define LOSS_TIMEOUT_NS	   (4 * NSEC) /* a probe unanswered this long is lost */
#define LINGER_NS	   (4 * NSEC) /* end of run: wait for replies */
#define MAX_START_AHEAD_MS (3600LL * 1000)
#define UDP_HDR		   32 /* magic, seq, 3 timestamps */
#define MAX_EVENTS	   64

enum ent_type {
	ENT_STDIN,
	ENT_TIMER,
	ENT_LISTEN,
	ENT_UDP_SERVER,
	ENT_SRV_CONN,
	ENT_FLOW,
	ENT_PROBE,
};

/* Every epoll registration points at one of these (first member). */
struct ent {
	enum ent_type type;
	int fd;
};

enum flow_state {
	F_WAIT,
	F_CONNECTING,
	F_RUN,
	F_DONE,
	F_FAILED,
};

struct flow {
	struct ent e;
	struct agent_cmd c;
	enum flow_state state;
	struct sockaddr_storage sa;
	socklen_t salen;
	int64_t t_begin, t_end;
	char hdr[HDR_LEN];
	size_t hdr_sent;
	uint64_t bytes;	     /* goodput bytes so far */
	uint64_t last_bytes; /* at the previous sample */
	int64_t last_ns;     /* time of the previous sample */
	int64_t t_first;     /* first payload byte acked/read, 0 = none */
	int64_t t_connected;
};

enum probe_state {
	P_WAIT,
	P_RUN,
	P_DONE,
	P_FAILED,
};

struct probe {
	struct ent e;
	struct agent_cmd c;
	enum probe_state state;
	struct sockaddr_storage sa;
	socklen_t salen;
	int64_t t_begin, t_end, next_send;
	int raw; /* ICMP over SOCK_RAW: replies carry the IP header */
	uint16_t echo_id;
	struct probe_track tr;
	unsigned char *buf;
	struct agent *a;
};

enum conn_state {
	C_HDR,
	C_SINK,
	C_SOURCE,
};

struct srv_conn {
	struct ent e;
	enum conn_state state;
	char hdr[HDR_LEN];
	size_t got;
	struct srv_conn *next, *prev;
};

struct server {
	struct ent e;
	enum agent_kind kind;
	uint16_t port;
	int v6;
	struct server *next;
};

enum phase {
	PH_IDLE,
	PH_ARMED,
	PH_RUNNING,
	PH_LINGER,
};

struct agent {
	int ep;
	struct ent in, timer;
	FILE *out;
	char inbuf[AGENT_LINE_MAX * 4];
	size_t inlen;
	int discarding; /* inside an over-long line */
	int quit, in_eof, fatal;
	struct flow **flows;
	size_t n_flows, cap_flows;
	struct probe **probes;
	size_t n_probes, cap_probes;
	struct server *servers;
	struct srv_conn *conns, *dead;
	enum phase phase;
	int64_t t0, t_stop, t_linger, step_ns, next_step;
	int64_t wall_off; /* wall ns = mono ns + wall_off */
};

static char bulk[BULK_CHUNK];

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

static int64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static double wall_s(const struct agent *a, int64_t mono)
{
	return (double)(mono + a->wall_off) / 1e9;
}

static void say(struct agent *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(struct agent *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(a->out, fmt, ap);
	va_end(ap);
	fputc('\n', a->out);
}

static void event(struct agent *a, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void event(struct agent *a, const char *id, const char *fmt, ...)
{
	va_list ap;

	fprintf(a->out, "e %s %.6f ", id, wall_s(a, mono_ns()));
	va_start(ap, fmt);
	vfprintf(a->out, fmt, ap);
	va_end(ap);
	fputc('\n', a->out);
}

static int ep_add(struct agent *a, struct ent *e, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = e};

	return epoll_ctl(a->ep, EPOLL_CTL_ADD, e->fd, &ev);
}

static int ep_mod(struct agent *a, struct ent *e, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = e};

	return epoll_ctl(a->ep, EPOLL_CTL_MOD, e->fd, &ev);
}

static void close_ent(struct agent *a, struct ent *e)
{
	if (e->fd >= 0) {
		epoll_ctl(a->ep, EPOLL_CTL_DEL, e->fd, NULL);
		close(e->fd);
		e->fd = -1;
	}
}

static int resolve(const char *host, uint16_t port, int socktype,
		   struct sockaddr_storage *sa, socklen_t *len)
{
	struct addrinfo hints = {.ai_socktype = socktype,
				 .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
	struct addrinfo *res;
	char ps[8];
	int rc;

	snprintf(ps, sizeof(ps), "%u", port ? (unsigned)port : 1u);
	rc = getaddrinfo(host, ps, &hints, &res);
	if (rc)
		return rc;
	memcpy(sa, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* An IPv4 peer of a dual-stack (AF_INET6) socket: its packets are IPv4,
 * marked by IP_TOS; IPV6_TCLASS leaves them unmarked. */
static bool v4_mapped(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	return ss->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr);
}

/* Marks what fd sends to or from the address ss (the peer, or the
 * socket's own name: both say which IP version goes on the wire). */
static int set_tos(int fd, const struct sockaddr_storage *ss, int tos)
{
	if (tos < 0)
		return 0;
	if (ss->ss_family == AF_INET6 && !v4_mapped(ss))
		return setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos,
				  sizeof(tos));
	return setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
}

/* ---- TCP servers ---------------------------------------------------- */

/* Closed connections are freed after the epoll batch (conn_reap): a
 * later event of the same batch may still point at one. */
static void conn_close(struct agent *a, struct srv_conn *c)
{
	if (c->e.fd < 0)
		return;
	close_ent(a, &c->e);
	if (c->prev)
		c->prev->next = c->next;
	else
		a->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = NULL;
	c->next = a->dead;
	a->dead = c;
}

static void conn_reap(struct agent *a)
{
	while (a->dead) {
		struct srv_conn *c = a->dead;

		a->dead = c->next;
		free(c);
	}
}

/* Header: "AIRLAB1 up [tos=N]" or "AIRLAB1 down tos=N cc=NAME", NUL
 * padded. */
static int conn_header(struct srv_conn *c)
{
	char cc[AGENT_CC_MAX] = "";
	int tos = -1;
	char *p;

	c->hdr[HDR_LEN - 1] = '\0';
	if (strncmp(c->hdr, "AIRLAB1 ", 8))
		return -1;
	p = strstr(c->hdr, "tos=");
	if (p)
		tos = atoi(p + 4);
	if (!strncmp(c->hdr + 8, "up", 2)) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		/* The receiving end: its ACKs carry the flow's marking. */
		getsockname(c->e.fd, (struct sockaddr *)&ss, &sl);
		if (set_tos(c->e.fd, &ss, tos))
			return -1;
		c->state = C_SINK;
		return 0;
	}
	if (strncmp(c->hdr + 8, "down", 4))
		return -1;
	p = strstr(c->hdr, "cc=");
	if (p) {
		size_t n = strcspn(p + 3, " ");

		if (n >= sizeof(cc))
			return -1;
		memcpy(cc, p + 3, n);
		cc[n] = '\0';
	}
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	getsockname(c->e.fd, (struct sockaddr *)&ss, &sl);
	/* The sender picks marking and congestion control: for a download
	 * flow that is this side. A failure closes the connection, which the
	 * flow's owner reports. */
	if (set_tos(c->e.fd, &ss, tos))
		return -1;
	if (cc[0] && setsockopt(c->e.fd, IPPROTO_TCP, TCP_CONGESTION, cc,
				(socklen_t)strlen(cc)))
		return -1;
	c->state = C_SOURCE;
	return 0;
}

static void conn_io(struct agent *a, struct srv_conn *c, uint32_t ev)
{
	char buf[65536];

	if (c->state == C_HDR || c->state == C_SINK || (ev & EPOLLIN)) {
		for (int i = 0; i < 16; i++) {
			ssize_t n;

			if (c->state == C_HDR)
				n = read(c->e.fd, c->hdr + c->got,
					 HDR_LEN - c->got);
			else
				n = read(c->e.fd, buf, sizeof(buf));
			if (n == 0) {
				conn_close(a, c);
				return;
			}
			if (n < 0) {
				if (errno == EAGAIN || errno == EINTR)
					break;
				conn_close(a, c);
				return;
			}
			if (c->state == C_HDR) {
				c->got += (size_t)n;
				if (c->got < HDR_LEN)
					continue;
				if (conn_header(c)) {
					conn_close(a, c);
					return;
				}
				if (c->state == C_SOURCE) {
					ep_mod(a, &c->e, EPOLLIN | EPOLLOUT);
					break;
				}
			} else if (c->state == C_SOURCE) {
				break; /* the reader sends nothing after the
					  header */
			}
		}
	}
	if (c->state == C_SOURCE && (ev & EPOLLOUT)) {
		for (int i = 0; i < 8; i++) {
			ssize_t n = send(c->e.fd, bulk, sizeof(bulk),
					 MSG_NOSIGNAL | MSG_DONTWAIT);

			if (n < 0) {
				if (errno != EAGAIN && errno != EINTR)
					conn_close(a, c);
				return;
			}
		}
	}
	if (ev & (EPOLLERR | EPOLLHUP))
		conn_close(a, c);
}

static void server_accept(struct agent *a, struct server *s)
{
	for (;;) {
		int fd =
		    accept4(s->e.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct srv_conn *c;

		if (fd < 0)
			return;
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			return;
		}
		c->e.type = ENT_SRV_CONN;
		c->e.fd = fd;
		c->state = C_HDR;
		c->next = a->conns;
		if (a->conns)
			a->conns->prev = c;
		a->conns = c;
		if (ep_add(a, &c->e, EPOLLIN))
			conn_close(a, c);
	}
}

/* UDP echo: stamps receive and send times into the probe, reflects the
 * DSCP it arrived with. */
static void udp_echo(struct server *s)
{
	for (int i = 0; i < 64; i++) {
		unsigned char buf[65536];
		char cbuf[CMSG_SPACE(sizeof(int)) * 2];
		struct sockaddr_storage from;
		struct iovec iov = {buf, sizeof(buf)};
		struct msghdr m = {.msg_name = &from,
				   .msg_namelen = sizeof(from),
				   .msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = cbuf,
				   .msg_controllen = sizeof(cbuf)};
		ssize_t n = recvmsg(s->e.fd, &m, MSG_DONTWAIT);
		int64_t t_rx = clock_ns(CLOCK_REALTIME);
		int tos = -1;
		uint64_t v;

		if (n < 0)
			return;
		if (n < UDP_HDR || memcmp(buf, "ALP1", 4))
			continue;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c;
		     c = CMSG_NXTHDR(&m, c)) {
			if ((c->cmsg_level == IPPROTO_IP &&
			     c->cmsg_type == IP_TOS) ||
			    (c->cmsg_level == IPPROTO_IPV6 &&
			     c->cmsg_type == IPV6_TCLASS)) {
				if (c->cmsg_len >= CMSG_LEN(sizeof(int)))
					memcpy(&tos, CMSG_DATA(c), sizeof(int));
				else
					tos = *(unsigned char *)CMSG_DATA(c);
			}
		}
		v = htobe64((uint64_t)t_rx);
		memcpy(buf + 16, &v, 8);
		v = htobe64((uint64_t)clock_ns(CLOCK_REALTIME));
		memcpy(buf + 24, &v, 8);

		struct msghdr o = {.msg_name = &from,
				   .msg_namelen = m.msg_namelen,
				   .msg_iov = &iov,
				   .msg_iovlen = 1};
		char obuf[CMSG_SPACE(sizeof(int))];

		iov.iov_len = (size_t)n;
		if (tos > 0) {
			struct cmsghdr *c;

			memset(obuf, 0, sizeof(obuf));
			o.msg_control = obuf;
			o.msg_controllen = sizeof(obuf);
			c = CMSG_FIRSTHDR(&o);
			c->cmsg_len = CMSG_LEN(sizeof(int));
			if (from.ss_family == AF_INET6 && !v4_mapped(&from)) {
				c->cmsg_level = IPPROTO_IPV6;
				c->cmsg_type = IPV6_TCLASS;
			} else {
				c->cmsg_level = IPPROTO_IP;
				c->cmsg_type = IP_TOS;
			}
			memcpy(CMSG_DATA(c), &tos, sizeof(int));
		}
		if (sendmsg(s->e.fd, &o, MSG_DONTWAIT) < 0 && tos > 0) {
			/* Some stacks refuse a TOS cmsg: echo unmarked. */
			o.msg_control = NULL;
			o.msg_controllen = 0;
			sendmsg(s->e.fd, &o, MSG_DONTWAIT);
		}
	}
}

static void cmd_serve(struct agent *a, const struct agent_cmd *c)
{
	int stype = c->kind == AGENT_TCP ? SOCK_STREAM : SOCK_DGRAM;
	const char *kind = agent_kind_name(c->kind);
	struct sockaddr_storage sa;
	socklen_t salen;
	const char *bind_to = c->bind[0] ? c->bind : "::";
	int fd, one = 1, zero = 0;
	struct server *s;
	int rc;

	for (s = a->servers; s; s = s->next)
		if (s->kind == c->kind && s->port == c->port) {
			say(a, "ok serve %s %u (already)", kind, c->port);
			return;
		}
	rc = resolve(bind_to, c->port, stype, &sa, &salen);
	fd = rc ? -1
		: socket(sa.ss_family, stype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 && !c->bind[0]) {
		/* No IPv6 in this namespace: plain IPv4 any. */
		rc = resolve("0.0.0.0", c->port, stype, &sa, &salen);
		fd = rc ? -1
			: socket(AF_INET, stype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				 0);
	}
	if (rc) {
		say(a, "err serve %s %u: bind address '%s': %s", kind, c->port,
		    bind_to, gai_strerror(rc));
		return;
	}
	if (fd < 0) {
		say(a, "err serve %s %u: socket: %s", kind, c->port,
		    strerror(errno));
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa.ss_family == AF_INET6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (stype == SOCK_DGRAM)
			setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one,
				   sizeof(one));
	}
	if (stype == SOCK_DGRAM)
		setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, salen) ||
	    (stype == SOCK_STREAM && listen(fd, 1024))) {
		say(a, "err serve %s %u: bind/listen on %s port %u: %s", kind,
		    c->port, sa.ss_family == AF_INET6 ? bind_to : "0.0.0.0",
		    c->port, strerror(errno));
		close(fd);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		say(a, "err serve %s %u: out of memory", kind, c->port);
		return;
	}
	s->e.type = stype == SOCK_STREAM ? ENT_LISTEN : ENT_UDP_SERVER;
	s->e.fd = fd;
	s->kind = c->kind;
	s->port = c->port;
	s->next = a->servers;
	a->servers = s;
	ep_add(a, &s->e, EPOLLIN);
	say(a, "ok serve %s %u", kind, c->port);
}

/* ---- flows ----------------------------------------------------------- */

static int flow_tcp_info(struct flow *f, struct tcp_info *ti)
{
	socklen_t len = sizeof(*ti);

	memset(ti, 0, sizeof(*ti));
	return getsockopt(f->e.fd, IPPROTO_TCP, TCP_INFO, ti, &len);
}

/* Upload goodput is what the receiver acknowledged, so the number means
 * the same as a receiver-side count (iperf3's) without a second agent. */
static void flow_update_acked(struct flow *f, const struct tcp_info *ti,
			      int64_t now)
{
	if (f->c.kind != AGENT_TCP_UP)
		return;
	if (ti->tcpi_bytes_acked > HDR_LEN) {
		f->bytes = ti->tcpi_bytes_acked - HDR_LEN;
		if (!f->t_first)
			f->t_first = now;
	}
}

static void flow_sample(struct agent *a, struct flow *f, int64_t now)
{
	struct tcp_info ti;
	double dur, mbps;
	int have_ti = flow_tcp_info(f, &ti) == 0;

	if (have_ti)
		flow_update_acked(f, &ti, now);
	dur = (double)(now - f->last_ns) / 1e9;
	if (dur <= 0)
		return;
	mbps = (double)(f->bytes - f->last_bytes) * 8 / dur / 1e6;
	fprintf(a->out, "s %s %.6f %.6f dur=%.4f bytes=%llu", f->c.id,
		wall_s(a, now), mbps, dur, (unsigned long long)f->bytes);
	if (have_ti) {
		fprintf(a->out,
			" tcp_rtt=%.3f tcp_rtt_var=%.3f tcp_cwnd=%u "
			"tcp_retrans=%u tcp_delivery_rate=%.6f",
			ti.tcpi_rtt / 1000.0, ti.tcpi_rttvar / 1000.0,
			ti.tcpi_snd_cwnd, ti.tcpi_total_retrans,
			(double)ti.tcpi_delivery_rate * 8 / 1e6);
		if (ti.tcpi_pacing_rate != ~0ULL && ti.tcpi_pacing_rate)
			fprintf(a->out, " tcp_pacing_rate=%.6f",
				(double)ti.tcpi_pacing_rate * 8 / 1e6);
		if (f->c.kind == AGENT_TCP_DOWN && ti.tcpi_rcv_rtt)
			fprintf(a->out, " tcp_rcv_rtt=%.3f",
				ti.tcpi_rcv_rtt / 1000.0);
	}
	fputc('\n', a->out);
	f->last_bytes = f->bytes;
	f->last_ns = now;
}

static void flow_fail(struct agent *a, struct flow *f, const char *what,
		      int err)
{
	char dst[AGENT_ADDR_MAX + 16];

	snprintf(dst, sizeof(dst), "%s port %u", f->c.dst, f->c.port);
	event(a, f->c.id, "error %s %s: %s", what, dst, strerror(err));
	if (f->state == F_RUN)
		flow_sample(a, f, mono_ns());
	close_ent(a, &f->e);
	f->state = F_FAILED;
}

/* SO_BINDTODEVICE when the command named a dev= (needs CAP_NET_RAW). */
static int bind_dev(int fd, const char *dev)
{
	if (!dev[0])
		return 0;
	return setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
			  (socklen_t)strlen(dev));
}

static void flow_begin(struct agent *a, struct flow *f, int64_t now)
{
	int fd;
	char what[AGENT_DEV_MAX + 40];

	fd = socket(f->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		flow_fail(a, f, "socket for", errno);
		return;
	}
	f->e.fd = fd;
	if (bind_dev(fd, f->c.dev)) {
		snprintf(what, sizeof(what), "SO_BINDTODEVICE %s for",
			 f->c.dev);
		flow_fail(a, f, what, errno);
		return;
	}
	/* Both ends carry the flow's marking, as netperf -Y X,X does in
	 * Flent's suites: the receiver's ACKs travel in the same access
	 * category as the data they acknowledge. */
	if (set_tos(fd, &f->sa, f->c.tos)) {
		flow_fail(a, f, "IP_TOS for", errno);
		return;
	}
	if (f->c.kind == AGENT_TCP_UP) {
		if (f->c.cc[0] &&
		    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, f->c.cc,
			       (socklen_t)strlen(f->c.cc))) {
			event(a, f->c.id,
			      "error TCP_CONGESTION %s: %s "
			      "(see net.ipv4.tcp_available_congestion_control)",
			      f->c.cc, strerror(errno));
			close_ent(a, &f->e);
			f->state = F_FAILED;
			return;
		}
	}
	memset(f->hdr, 0, sizeof(f->hdr));
	if (f->c.kind == AGENT_TCP_UP)
		snprintf(f->hdr, sizeof(f->hdr), "AIRLAB1 up tos=%d", f->c.tos);
	else
		snprintf(f->hdr, sizeof(f->hdr), "AIRLAB1 down tos=%d cc=%s",
			 f->c.tos, f->c.cc);
	f->state = F_CONNECTING;
	f->last_ns = now;
	if (connect(fd, (struct sockaddr *)&f->sa, f->salen) &&
	    errno != EINPROGRESS) {
		flow_fail(a, f, "connect to", errno);
		return;
	}
	ep_add(a, &f->e, EPOLLOUT);
}

static void flow_io(struct agent *a, struct flow *f, uint32_t ev)
{
	int64_t now = mono_ns();

	if (f->state == F_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		getsockopt(f->e.fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			flow_fail(a, f, "connect to", err);
			return;
		}
		if (!(ev & EPOLLOUT))
			return;
		while (f->hdr_sent < HDR_LEN) {
			ssize_t n = send(f->e.fd, f->hdr + f->hdr_sent,
					 HDR_LEN - f->hdr_sent,
					 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0) {
				if (errno == EAGAIN)
					return;
				flow_fail(a, f, "send header to", errno);
				return;
			}
			f->hdr_sent += (size_t)n;
		}
		f->state = F_RUN;
		f->t_connected = now;
		f->last_ns = now;
		event(a, f->c.id, "connected %.3f ms",
		      (double)(now - f->t_begin) / 1e6);
		ep_mod(a, &f->e,
		       f->c.kind == AGENT_TCP_UP ? EPOLLOUT : EPOLLIN);
		return;
	}
	if (f->state != F_RUN)
		return;
	if (f->c.kind == AGENT_TCP_UP) {
		for (int i = 0; i < 8; i++) {
			ssize_t n = send(f->e.fd, bulk, sizeof(bulk),
					 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0) {
				if (errno == EAGAIN || errno == EINTR)
					break;
				flow_fail(a, f, "send to", errno);
				return;
			}
		}
		if (!f->t_first) {
			struct tcp_info ti;

			if (flow_tcp_info(f, &ti) == 0)
				flow_update_acked(f, &ti, now);
		}
		return;
	}
	for (int i = 0; i < 16; i++) {
		char buf[65536];
		ssize_t n = read(f->e.fd, buf, sizeof(buf));

		if (n == 0) {
			event(a, f->c.id, "closed by %s port %u before the end",
			      f->c.dst, f->c.port);
			flow_sample(a, f, now);
			close_ent(a, &f->e);
			f->state = F_FAILED;
			return;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				flow_fail(a, f, "read from", errno);
			return;
		}
		if (!f->t_first)
			f->t_first = now;
		f->bytes += (uint64_t)n;
	}
}

static void flow_end(struct agent *a, struct flow *f, int64_t now)
{
	if (f->state == F_RUN)
		flow_sample(a, f, now);
	else if (f->state == F_CONNECTING)
		event(a, f->c.id,
		      "error connect to %s port %u: not "
		      "connected when the flow ended",
		      f->c.dst, f->c.port);
	else if (f->state == F_WAIT)
		event(a, f->c.id, "error never started (run stopped)");
	close_ent(a, &f->e);
	if (f->state == F_RUN)
		f->state = F_DONE;
	else if (f->state != F_DONE)
		f->state = F_FAILED;
}

/* ---- probes ---------------------------------------------------------- */

static uint16_t icmp_csum(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

static void probe_fail(struct agent *a, struct probe *p, const char *what,
		       int err)
{
	event(a, p->c.id, "error %s %s: %s", what, p->c.dst, strerror(err));
	close_ent(a, &p->e);
	p->state = P_FAILED;
}

static void probe_begin(struct agent *a, struct probe *p, int64_t now)
{
	int fd;
	char what[AGENT_DEV_MAX + 40];

	if (p->c.kind == AGENT_UDP) {
		fd = socket(p->sa.ss_family,
			    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	} else {
		/* Unprivileged ping sockets if net.ipv4.ping_group_range
		 * allows, else a raw socket (needs CAP_NET_RAW). */
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    IPPROTO_ICMP);
		if (fd < 0 && (errno == EACCES || errno == EPERM)) {
			fd = socket(AF_INET,
				    SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
				    IPPROTO_ICMP);
			p->raw = 1;
		}
	}
	if (fd < 0) {
		probe_fail(
		    a, p,
		    p->c.kind == AGENT_ICMP
			? "ICMP socket (ping_group_range or CAP_NET_RAW) for"
			: "UDP socket for",
		    errno);
		return;
	}
	p->e.fd = fd;
	if (bind_dev(fd, p->c.dev)) {
		snprintf(what, sizeof(what), "SO_BINDTODEVICE %s for",
			 p->c.dev);
		probe_fail(a, p, what, errno);
		return;
	}
	if (set_tos(fd, &p->sa, p->c.tos)) {
		probe_fail(a, p, "IP_TOS for", errno);
		return;
	}
	if (connect(fd, (struct sockaddr *)&p->sa, p->salen)) {
		probe_fail(a, p, "connect to", errno);
		return;
	}
	p->buf = calloc(1, p->c.size + 64);
	if (!p->buf) {
		probe_fail(a, p, "buffer for", ENOMEM);
		return;
	}
	p->state = P_RUN;
	p->next_send = now;
	ep_add(a, &p->e, EPOLLIN);
}

static void probe_send(struct agent *a, struct probe *p, int64_t now)
{
	int64_t seq = probe_track_send(&p->tr, now);
	size_t len;

	if (seq < 0) {
		probe_fail(a, p, "sequence table for", ENOMEM);
		return;
	}
	if (p->c.kind == AGENT_UDP) {
		uint32_t s = htonl((uint32_t)seq);
		uint64_t t = htobe64((uint64_t)(now + a->wall_off));

		len = p->c.size < UDP_HDR ? UDP_HDR : p->c.size;
		memset(p->buf, 0, len);
		memcpy(p->buf, "ALP1", 4);
		memcpy(p->buf + 4, &s, 4);
		memcpy(p->buf + 8, &t, 8);
	} else {
		struct icmphdr h = {.type = ICMP_ECHO};
		uint32_t s = htonl((uint32_t)seq);

		h.un.echo.id = htons(p->echo_id);
		h.un.echo.sequence = htons((uint16_t)seq);
		len = sizeof(h) + 8;
		memcpy(p->buf, &h, sizeof(h));
		memcpy(p->buf + sizeof(h), "ALPI", 4);
		memcpy(p->buf + sizeof(h) + 4, &s, 4);
		h.checksum = icmp_csum(p->buf, len);
		memcpy(p->buf, &h, sizeof(h));
	}
	if (send(p->e.fd, p->buf, len, MSG_DONTWAIT) < 0 && errno != EAGAIN &&
	    errno != ENOBUFS && errno != ECONNREFUSED &&
	    errno != EHOSTUNREACH && errno != ENETUNREACH)
		probe_fail(a, p, "send to", errno);
	/* A dropped send is a lost probe: the loss counter shows it. */
}

static void probe_reply(struct agent *a, struct probe *p, uint32_t seq,
			int64_t now, const unsigned char *udp)
{
	int64_t rtt;
	enum probe_reply r = probe_track_reply(&p->tr, seq, now, &rtt);
	double owd_up = 0, owd_down = 0, srv_ms = 0;
	int have_owd = 0;

	if (r == PROBE_REPLY_UNKNOWN || r == PROBE_REPLY_DUPLICATE)
		return;
	if (udp) {
		uint64_t c_tx, s_rx, s_tx;

		memcpy(&c_tx, udp + 8, 8);
		memcpy(&s_rx, udp + 16, 8);
		memcpy(&s_tx, udp + 24, 8);
		c_tx = be64toh(c_tx);
		s_rx = be64toh(s_rx);
		s_tx = be64toh(s_tx);
		/* Like irtt: the server's own processing time is not path. */
		if (s_tx >= s_rx && (int64_t)(s_tx - s_rx) < rtt) {
			srv_ms = (double)(s_tx - s_rx) / 1e6;
			rtt -= (int64_t)(s_tx - s_rx);
		}
		owd_up = ((double)s_rx - (double)c_tx) / 1e6;
		owd_down = ((double)(now + a->wall_off) - (double)s_tx) / 1e6;
		have_owd = 1;
	}
	fprintf(a->out, "s %s %.6f %.6f seq=%u", p->c.id, wall_s(a, now),
		(double)rtt / 1e6, seq);
	if (have_owd)
		fprintf(a->out, " owd_up=%.6f owd_down=%.6f srv_ms=%.6f",
			owd_up, owd_down, srv_ms);
	if (r == PROBE_REPLY_REORDERED)
		fputs(" reordered=1", a->out);
	if (r == PROBE_REPLY_LATE)
		fputs(" late=1", a->out);
	fputc('\n', a->out);
}

static void probe_io(struct agent *a, struct probe *p)
{
	for (int i = 0; i < 64; i++) {
		unsigned char buf[65536];
		ssize_t n = recv(p->e.fd, buf, sizeof(buf), MSG_DONTWAIT);
		int64_t now = mono_ns();
		uint32_t seq;

		if (n < 0)
			return;
		if (p->c.kind == AGENT_UDP) {
			if (n < UDP_HDR || memcmp(buf, "ALP1", 4))
				continue;
			memcpy(&seq, buf + 4, 4);
			probe_reply(a, p, ntohl(seq), now, buf);
			continue;
		}
		const unsigned char *ic = buf;
		size_t len = (size_t)n;

		if (p->raw) {
			size_t ihl = (size_t)(buf[0] & 0x0f) * 4;

			if (len < ihl + sizeof(struct icmphdr) + 8)
				continue;
			ic += ihl;
			len -= ihl;
		}
		struct icmphdr h;

		if (len < sizeof(h) + 8)
			continue;
		memcpy(&h, ic, sizeof(h));
		if (h.type != ICMP_ECHOREPLY ||
		    memcmp(ic + sizeof(h), "ALPI", 4))
			continue;
		if (p->raw && ntohs(h.un.echo.id) != p->echo_id)
			continue;
		memcpy(&seq, ic + sizeof(h) + 4, 4);
		probe_reply(a, p, ntohl(seq), now, NULL);
	}
}

static void on_lost(uint32_t seq, int64_t sent_ns, void *ctx)
{
	struct probe *p = ctx;

	fprintf(p->a->out, "l %s %.6f seq=%u\n", p->c.id, wall_s(p->a, sent_ns),
		seq);
}

static void probe_summary(struct agent *a, struct probe *p)
{
	say(a,
	    "sum %s sent=%llu received=%llu lost=%llu reordered=%llu "
	    "duplicates=%llu late=%llu failed=%d",
	    p->c.id, (unsigned long long)p->tr.sent,
	    (unsigned long long)p->tr.received, (unsigned long long)p->tr.lost,
	    (unsigned long long)p->tr.reordered,
	    (unsigned long long)p->tr.duplicates,
	    (unsigned long long)p->tr.late, p->state == P_FAILED);
}

static void flow_summary(struct agent *a, struct flow *f)
{
	fprintf(a->out, "sum %s bytes=%llu connected=%d failed=%d", f->c.id,
		(unsigned long long)f->bytes, f->t_connected != 0,
		f->state == F_FAILED);
	if (f->t_connected)
		fprintf(a->out, " connect_ms=%.3f",
			(double)(f->t_connected - f->t_begin) / 1e6);
	if (f->t_first)
		fprintf(a->out, " first_ms=%.3f",
			(double)(f->t_first - f->t_begin) / 1e6);
	fputc('\n', a->out);
}

/* ---- the run --------------------------------------------------------- */

static void run_reset(struct agent *a)
{
	for (size_t i = 0; i < a->n_flows; i++) {
		close_ent(a, &a->flows[i]->e);
		free(a->flows[i]);
	}
	for (size_t i = 0; i < a->n_probes; i++) {
		close_ent(a, &a->probes[i]->e);
		probe_track_free(&a->probes[i]->tr);
		free(a->probes[i]->buf);
		free(a->probes[i]);
	}
	a->n_flows = a->n_probes = 0;
	a->phase = PH_IDLE;
}

static void run_finish(struct agent *a)
{
	for (size_t i = 0; i < a->n_probes; i++) {
		struct probe *p = a->probes[i];

		probe_track_expire(&p->tr, INT64_MAX, 0, on_lost, p);
		probe_summary(a, p);
	}
	for (size_t i = 0; i < a->n_flows; i++)
		flow_summary(a, a->flows[i]);
	say(a, "done");
	run_reset(a);
}

/* Stops every flow and probe; the run ends after the linger time. */
static void run_stop(struct agent *a, int64_t now)
{
	for (size_t i = 0; i < a->n_flows; i++)
		if (a->flows[i]->state < F_DONE)
			flow_end(a, a->flows[i], now);
	for (size_t i = 0; i < a->n_probes; i++) {
		struct probe *p = a->probes[i];

		if (p->state == P_WAIT)
			event(a, p->c.id, "error never started (run stopped)");
		if (p->state == P_WAIT || p->state == P_RUN)
			p->state = P_DONE;
	}
	a->phase = PH_LINGER;
	a->t_linger = now + LINGER_NS;
}

static int outstanding(const struct agent *a)
{
	for (size_t i = 0; i < a->n_probes; i++) {
		const struct probe_track *t = &a->probes[i]->tr;

		if (a->probes[i]->e.fd >= 0 && t->received + t->lost < t->sent)
			return 1;
	}
	return 0;
}

static void tick(struct agent *a, int64_t now)
{
	if (a->phase == PH_ARMED && now >= a->t0) {
		a->phase = PH_RUNNING;
		a->next_step = a->t0 + a->step_ns;
	}
	if (a->phase == PH_LINGER) {
		for (size_t i = 0; i < a->n_probes; i++)
			probe_track_expire(&a->probes[i]->tr, now,
					   LOSS_TIMEOUT_NS, on_lost,
					   a->probes[i]);
		if (!outstanding(a) || now >= a->t_linger)
			run_finish(a);
		return;
	}
	if (a->phase != PH_RUNNING)
		return;
	for (size_t i = 0; i < a->n_flows; i++) {
		struct flow *f = a->flows[i];

		if (f->state == F_WAIT && now >= f->t_begin)
			flow_begin(a, f, now);
		if (f->state == F_CONNECTING &&
		    now >= f->t_begin + CONNECT_TIMEOUT_NS) {
			flow_fail(a, f, "connect (timed out after 10 s) to",
				  ETIMEDOUT);
		}
		if ((f->state == F_RUN || f->state == F_CONNECTING) &&
		    now >= f->t_end)
			flow_end(a, f, now);
	}
	for (size_t i = 0; i < a->n_probes; i++) {
		struct probe *p = a->probes[i];

		if (p->state == P_WAIT && now >= p->t_begin)
			probe_begin(a, p, now);
		if (p->state == P_RUN && now >= p->t_end) {
			p->state = P_DONE;
			continue;
		}
		if (p->state == P_RUN && now >= p->next_send) {
			probe_send(a, p, now);
			p->next_send += p->c.interval_ms * MSEC;
			/* Fell behind: keep the grid, skip the missed slots. */
			while (p->next_send <= now)
				p->next_send += p->c.interval_ms * MSEC;
		}
	}
	if (now >= a->next_step) {
		for (size_t i = 0; i < a->n_flows; i++)
			if (a->flows[i]->state == F_RUN)
				flow_sample(a, a->flows[i], now);
		for (size_t i = 0; i < a->n_probes; i++)
			if (a->probes[i]->e.fd >= 0)
				probe_track_expire(&a->probes[i]->tr, now,
						   LOSS_TIMEOUT_NS, on_lost,
						   a->probes[i]);
		while (a->next_step <= now)
			a->next_step += a->step_ns;
	}
	if (now >= a->t_stop)
		run_stop(a, now);
}

static int64_t min64(int64_t x, int64_t y)
{
	return x < y ? x : y;
}

static int64_t next_deadline(const struct agent *a)
{
	int64_t d = INT64_MAX;

	switch (a->phase) {
	case PH_IDLE:
		return INT64_MAX;
	case PH_ARMED:
		return a->t0;
	case PH_LINGER:
		return min64(a->t_linger, mono_ns() + 20 * MSEC);
	case PH_RUNNING:
		break;
	}
	d = min64(a->next_step, a->t_stop);
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct flow *f = a->flows[i];

		if (f->state == F_WAIT)
			d = min64(d, f->t_begin);
		else if (f->state == F_CONNECTING)
			d = min64(d, min64(f->t_end,
					   f->t_begin + CONNECT_TIMEOUT_NS));
		else if (f->state == F_RUN)
			d = min64(d, f->t_end);
	}
	for (size_t i = 0; i < a->n_probes; i++) {
		const struct probe *p = a->probes[i];

		if (p->state == P_WAIT)
			d = min64(d, p->t_begin);
		else if (p->state == P_RUN)
			d = min64(d, min64(p->next_send, p->t_end));
	}
	return d;
}

static void arm_timer(struct agent *a)
{
	int64_t d = next_deadline(a);
	struct itimerspec its = {0};

	if (d != INT64_MAX) {
		if (d <= 0)
			d = 1;
		its.it_value.tv_sec = d / NSEC;
		its.it_value.tv_nsec = d % NSEC;
	}
	timerfd_settime(a->timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static int id_taken(const struct agent *a, const char *id)
{
	for (size_t i = 0; i < a->n_flows; i++)
		if (!strcmp(a->flows[i]->c.id, id))
			return 1;
	for (size_t i = 0; i < a->n_probes; i++)
		if (!strcmp(a->probes[i]->c.id, id))
			return 1;
	return 0;
}

static int grow(void *arrp, size_t *cap, size_t n)
{
	void ***arr = arrp;

	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	void **na = realloc(*arr, nc * sizeof(*na));

	if (!na)
		return -1;
	*arr = na;
	*cap = nc;
	return 0;
}

static void cmd_flow(struct agent *a, const struct agent_cmd *c)
{
	struct flow *f;
	int rc;

	if (a->phase != PH_IDLE) {
		say(a, "err flow %s: a run is in progress", c->id);
		return;
	}
	if (id_taken(a, c->id)) {
		say(a, "err flow %s: id already in use", c->id);
		return;
	}
	f = calloc(1, sizeof(*f));
	if (!f || grow(&a->flows, &a->cap_flows, a->n_flows)) {
		free(f);
		say(a, "err flow %s: out of memory", c->id);
		return;
	}
	rc = resolve(c->dst, c->port, SOCK_STREAM, &f->sa, &f->salen);
	if (rc) {
		say(a, "err flow %s: address '%s': %s (numeric only)", c->id,
		    c->dst, gai_strerror(rc));
		free(f);
		return;
	}
	f->e.type = ENT_FLOW;
	f->e.fd = -1;
	f->c = *c;
	a->flows[a->n_flows++] = f;
	say(a, "ok flow %s", c->id);
}

static void cmd_probe(struct agent *a, const struct agent_cmd *c)
{
	struct probe *p;
	int rc;

	if (a->phase != PH_IDLE) {
		say(a, "err probe %s: a run is in progress", c->id);
		return;
	}
	if (id_taken(a, c->id)) {
		say(a, "err probe %s: id already in use", c->id);
		return;
	}
	p = calloc(1, sizeof(*p));
	if (!p || grow(&a->probes, &a->cap_probes, a->n_probes)) {
		free(p);
		say(a, "err probe %s: out of memory", c->id);
		return;
	}
	rc = resolve(c->dst, c->port, SOCK_DGRAM, &p->sa, &p->salen);
	if (!rc && c->kind == AGENT_ICMP && p->sa.ss_family != AF_INET)
		rc = EAI_FAMILY;
	if (rc) {
		say(a, "err probe %s: address '%s': %s (numeric only%s)", c->id,
		    c->dst, gai_strerror(rc),
		    c->kind == AGENT_ICMP ? ", ICMP is IPv4 only" : "");
		free(p);
		return;
	}
	p->e.type = ENT_PROBE;
	p->e.fd = -1;
	p->c = *c;
	p->a = a;
	p->echo_id = (uint16_t)((getpid() * 131 + (int)a->n_probes) & 0xffff);
	probe_track_init(&p->tr);
	a->probes[a->n_probes++] = p;
	say(a, "ok probe %s", c->id);
}

static void cmd_start(struct agent *a, const struct agent_cmd *c)
{
	int64_t now = mono_ns();
	int64_t wall_now_ms;

	if (a->phase != PH_IDLE) {
		say(a, "err start: a run is already in progress");
		return;
	}
	a->wall_off = clock_ns(CLOCK_REALTIME) - now;
	wall_now_ms = (now + a->wall_off) / MSEC;
	if (c->start_unix_ms > wall_now_ms + MAX_START_AHEAD_MS) {
		say(a,
		    "err start: start time %lld is %lld s ahead of this "
		    "host's clock (limit %lld s)",
		    (long long)c->start_unix_ms,
		    (long long)((c->start_unix_ms - wall_now_ms) / 1000),
		    MAX_START_AHEAD_MS / 1000);
		return;
	}
	a->t0 = c->start_unix_ms * MSEC - a->wall_off;
	if (a->t0 < now) {
		event(a, "-", "late start: %.3f ms after the requested time",
		      (double)(now - a->t0) / 1e6);
		a->t0 = now;
	}
	a->step_ns = (int64_t)c->step_ms * MSEC;
	a->t_stop = a->t0 + (int64_t)(c->length_s * 1e9);
	for (size_t i = 0; i < a->n_flows; i++) {
		struct flow *f = a->flows[i];

		f->t_begin = a->t0 + (int64_t)f->c.delay_ms * MSEC;
		f->t_end = f->c.length_ms
			       ? f->t_begin + (int64_t)f->c.length_ms * MSEC
			       : a->t_stop;
		f->t_end = min64(f->t_end, a->t_stop);
	}
	for (size_t i = 0; i < a->n_probes; i++) {
		struct probe *p = a->probes[i];

		p->t_begin = a->t0 + (int64_t)p->c.delay_ms * MSEC;
		p->t_end = p->c.length_ms
			       ? p->t_begin + (int64_t)p->c.length_ms * MSEC
			       : a->t_stop;
		p->t_end = min64(p->t_end, a->t_stop);
	}
	a->phase = PH_ARMED;
	say(a, "ok start %lld flows=%zu probes=%zu",
	    (long long)c->start_unix_ms, a->n_flows, a->n_probes);
}

static void handle_line(struct agent *a, const char *line)
{
	struct agent_cmd c;
	struct al_err err;

	if (!line[0] || line[0] == '#')
		return;
	if (agent_parse_cmd(line, &c, &err)) {
		say(a, "err '%.100s': %s", line, err.msg);
		return;
	}
	switch (c.verb) {
	case AGENT_HELLO:
		/* The agent's clock: the controller starts runs in it (a
		 * guest under QEMU icount keeps its own time). */
		say(a, "ok hello airlab-agent %d clock=%.6f",
		    AGENT_PROTO_VERSION,
		    (double)clock_ns(CLOCK_REALTIME) / 1e9);
		break;
	case AGENT_SERVE:
		cmd_serve(a, &c);
		break;
	case AGENT_FLOW:
		cmd_flow(a, &c);
		break;
	case AGENT_PROBE:
		cmd_probe(a, &c);
		break;
	case AGENT_START:
		cmd_start(a, &c);
		break;
	case AGENT_STOP:
		if (a->phase == PH_ARMED || a->phase == PH_RUNNING) {
			say(a, "ok stop");
			run_stop(a, mono_ns());
		} else {
			say(a, "ok stop (no run)");
		}
		break;
	case AGENT_QUIT:
		say(a, "ok quit");
		a->quit = 1;
		break;
	}
}

static void read_input(struct agent *a)
{
	ssize_t n =
	    read(a->in.fd, a->inbuf + a->inlen, sizeof(a->inbuf) - a->inlen);
	char *start, *nl;

	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		a->in_eof = 1;
		epoll_ctl(a->ep, EPOLL_CTL_DEL, a->in.fd, NULL);
		return;
	}
	a->inlen += (size_t)n;
	start = a->inbuf;
	while (
	    (nl = memchr(start, '\n', a->inlen - (size_t)(start - a->inbuf)))) {
		*nl = '\0';
		if (!a->discarding)
			handle_line(a, start);
		a->discarding = 0;
		start = nl + 1;
	}
	a->inlen -= (size_t)(start - a->inbuf);
	memmove(a->inbuf, start, a->inlen);
	if (a->inlen >= AGENT_LINE_MAX) {
		if (!a->discarding)
			say(a, "err input line longer than %d bytes: ignored",
			    AGENT_LINE_MAX - 1);
		a->discarding = 1;
		a->inlen = 0;
	}
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int agent_main(int in_fd, FILE *out)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct epoll_event evs[MAX_EVENTS];
	int rc = 0;

	if (!a) {
		fprintf(out, "err agent: out of memory\n");
		return 1;
	}
	raise_nofile();
	a->out = out;
	a->ep = epoll_create1(EPOLL_CLOEXEC);
	a->timer.type = ENT_TIMER;
	a->timer.fd =
	    timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	a->in.type = ENT_STDIN;
	a->in.fd = in_fd;
	a->wall_off = clock_ns(CLOCK_REALTIME) - mono_ns();
	if (a->ep < 0 || a->timer.fd < 0 || ep_add(a, &a->timer, EPOLLIN) ||
	    ep_add(a, &a->in, EPOLLIN)) {
		fprintf(out,
			"err agent: epoll/timerfd setup on input fd %d: %s\n",
			in_fd, strerror(errno));
		fflush(out);
		free(a);
		return 1;
	}
	while (!a->quit) {
		int n;

		fflush(out);
		if (ferror(out))
			break; /* the controller went away */
		if (a->in_eof && a->phase == PH_IDLE)
			break;
		if (a->in_eof &&
		    (a->phase == PH_ARMED || a->phase == PH_RUNNING))
			run_stop(a, mono_ns());
		arm_timer(a);
		n = epoll_wait(a->ep, evs, MAX_EVENTS, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(out, "err agent: epoll_wait: %s\n",
				strerror(errno));
			rc = 1;
			break;
		}
		for (int i = 0; i < n; i++) {
			struct ent *e = evs[i].data.ptr;

			switch (e->type) {
			case ENT_STDIN:
				read_input(a);
				break;
			case ENT_TIMER: {
				uint64_t exp;

				if (read(e->fd, &exp, sizeof(exp)) < 0)
					(void)0; /* spurious: tick anyway */
				break;
			}
			case ENT_LISTEN:
				server_accept(a, (struct server *)e);
				break;
			case ENT_UDP_SERVER:
				udp_echo((struct server *)e);
				break;
			case ENT_SRV_CONN:
				if (e->fd >= 0)
					conn_io(a, (struct srv_conn *)e,
						evs[i].events);
				break;
			case ENT_FLOW:
				flow_io(a, (struct flow *)e, evs[i].events);
				break;
			case ENT_PROBE:
				probe_io(a, (struct probe *)e);
				break;
			}
		}
		conn_reap(a);
		tick(a, mono_ns());
	}
	if (a->phase != PH_IDLE)
		run_finish(a);
	fflush(out);
	run_reset(a);
	while (a->conns)
		conn_close(a, a->conns);
	conn_reap(a);
	while (a->servers) {
		struct server *s = a->servers;

		a->servers = s->next;
		close_ent(a, &s->e);
		free(s);
	}
	close(a->timer.fd);
	close(a->ep);
	free(a->flows);
	free(a->probes);
	free(a);
	return rc;
}
