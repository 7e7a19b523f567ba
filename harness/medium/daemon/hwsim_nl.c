/* Raw generic netlink for mac80211_hwsim (see hwsim_nl.h). */
#include "hwsim_nl.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HWSIM_GENL_VERSION 1
#define MSG_MAX		   4096 /* a frame is at most IEEE80211_MAX_DATA_LEN 2304 */

struct msgbuf {
	uint8_t b[MSG_MAX];
	size_t len;
};

static void msg_start(struct msgbuf *m, uint16_t type, uint16_t flags,
		      uint32_t seq, uint8_t cmd)
{
	/* m->b is written here, not read (cppcheck's whole-program check
	 * takes the cast for a read of the caller's uninitialized buffer). */
	// cppcheck-suppress ctuuninitvar
	struct nlmsghdr *n = (struct nlmsghdr *)m->b;
	struct genlmsghdr *g = (struct genlmsghdr *)(m->b + NLMSG_HDRLEN);

	memset(m->b, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	n->nlmsg_type = type;
	n->nlmsg_flags = NLM_F_REQUEST | flags;
	n->nlmsg_seq = seq;
	g->cmd = cmd;
	g->version = HWSIM_GENL_VERSION;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

static int msg_put(struct msgbuf *m, uint16_t type, const void *data,
		   size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->b + m->len);
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);

	if (m->len + total > sizeof(m->b))
		return -1;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((uint8_t *)a + NLA_HDRLEN, data, len);
	memset((uint8_t *)a + NLA_HDRLEN + len, 0, total - NLA_HDRLEN - len);
	m->len += total;
	return 0;
}

static int msg_put_u32(struct msgbuf *m, uint16_t type, uint32_t v)
{
	return msg_put(m, type, &v, sizeof(v));
}

static int msg_send(struct hwsim_nl *h, struct msgbuf *m)
{
	struct sockaddr_nl to = {.nl_family = AF_NETLINK};
	ssize_t n;

	((struct nlmsghdr *)m->b)->nlmsg_len = (uint32_t)m->len;
	do
		n = sendto(h->fd, m->b, m->len, 0, (struct sockaddr *)&to,
			   sizeof(to));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		h->send_errors++;
		return -1;
	}
	h->sent++;
	return 0;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits up to timeout_ms for the reply to seq: returns the family id for
 * GETFAMILY, 0 for an ack, -errno for an error reply, or -ETIMEDOUT. */
static int wait_reply(struct hwsim_nl *h, uint32_t seq, int timeout_ms)
{
	uint8_t buf[16384];
	int64_t end = mono_ms() + timeout_ms;

	for (;;) {
		int64_t left = end - mono_ms();
		struct pollfd p = {h->fd, POLLIN, 0};
		if (left <= 0)
			return -ETIMEDOUT;
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ETIMEDOUT;
		ssize_t n = recv(h->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		int len = (int)n;
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf;
		     NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_seq != seq)
				continue; /* e.g. a frame already on its way */
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);
				return e->error;
			}
			if (nh->nlmsg_type != GENL_ID_CTRL)
				continue;
			int alen =
			    (int)nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
			struct nlattr *a =
			    (struct nlattr *)((uint8_t *)NLMSG_DATA(nh) +
					      GENL_HDRLEN);
			while (alen >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= alen) {
				if ((a->nla_type & NLA_TYPE_MASK) ==
				    CTRL_ATTR_FAMILY_ID) {
					uint16_t id;
					memcpy(&id, (uint8_t *)a + NLA_HDRLEN,
					       sizeof(id));
					return id;
				}
				alen -= NLA_ALIGN(a->nla_len);
				a = (struct nlattr *)((uint8_t *)a +
						      NLA_ALIGN(a->nla_len));
			}
		}
	}
}

static int resolve_family(struct hwsim_nl *h)
{
	struct msgbuf m;
	uint32_t seq = ++h->seq;

	msg_start(&m, GENL_ID_CTRL, NLM_F_ACK, seq, CTRL_CMD_GETFAMILY);
	m.b[NLMSG_HDRLEN + 1] = 2; /* ctrl family version */
	msg_put(&m, CTRL_ATTR_FAMILY_NAME, HWSIM_FAMILY_NAME,
		sizeof(HWSIM_FAMILY_NAME));
	if (msg_send(h, &m) < 0)
		return -errno;
	return wait_reply(h, seq, 2000);
}

/* One more radio, as hwsim's radios= makes them (a station interface,
 * the module's channels=): returns its index, or -errno. */
static int new_radio(struct hwsim_nl *h)
{
	struct msgbuf m;
	uint32_t seq = ++h->seq;

	msg_start(&m, h->family, NLM_F_ACK, seq, HWSIM_CMD_NEW_RADIO);
	if (msg_send(h, &m) < 0)
		return -errno;
	return wait_reply(h, seq, 5000);
}

int hwsim_nl_open(struct hwsim_nl *h, int wait_ms, int new_radios, char *err,
		  size_t errlen)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	int bufsize = 8 << 20, r, one = 1;
	int64_t end = mono_ms() + wait_ms;
	struct msgbuf m;
	uint32_t seq;

	memset(h, 0, sizeof(*h));
	h->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (h->fd < 0) {
		snprintf(err, errlen, "socket(AF_NETLINK, NETLINK_GENERIC): %s",
			 strerror(errno));
		return -1;
	}
	if (bind(h->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		snprintf(err, errlen, "bind netlink socket: %s",
			 strerror(errno));
		goto fail;
	}
	/* Bursts of frames arrive faster than one poll round; a large
	 * buffer (FORCE needs CAP_NET_ADMIN, which registering needs too)
	 * keeps the kernel from dropping them. */
	if (setsockopt(h->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize,
		       sizeof(bufsize)) < 0)
		setsockopt(h->fd, SOL_SOCKET, SO_RCVBUF, &bufsize,
			   sizeof(bufsize));
	setsockopt(h->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	for (;;) {
		r = resolve_family(h);
		if (r > 0)
			break;
		if (mono_ms() >= end) {
			snprintf(err, errlen,
				 "generic netlink family %s not found after "
				 "%d ms (%s; is mac80211_hwsim loaded?)",
				 HWSIM_FAMILY_NAME, wait_ms,
				 strerror(r < 0 ? -r : ENOENT));
			goto fail;
		}
		usleep(100000);
	}
	h->family = (uint16_t)r;
	for (int i = 0; i < new_radios; i++) {
		r = new_radio(h);
		if (r < 0) {
			snprintf(err, errlen,
				 "HWSIM_CMD_NEW_RADIO (radio %d of %d more): "
				 "%s",
				 i + 1, new_radios, strerror(-r));
			goto fail;
		}
	}
	seq = ++h->seq;
	msg_start(&m, h->family, NLM_F_ACK, seq, HWSIM_CMD_REGISTER);
	if (msg_send(h, &m) < 0) {
		snprintf(err, errlen, "send HWSIM_CMD_REGISTER: %s",
			 strerror(errno));
		goto fail;
	}
	r = wait_reply(h, seq, 2000);
	if (r < 0) {
		snprintf(err, errlen, "HWSIM_CMD_REGISTER (family %u): %s%s",
			 h->family, strerror(-r),
			 r == -EBUSY ? " (another medium daemon is registered)"
			 : r == -EOPNOTSUPP
			     ? " (a radio has more than one channel)"
			 : r == -EPERM ? " (needs CAP_NET_ADMIN)"
				       : "");
		goto fail;
	}
	return 0;
fail:
	close(h->fd);
	h->fd = -1;
	return -1;
}

void hwsim_nl_close(struct hwsim_nl *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

static void decode(struct hwsim_nl *h, struct nlmsghdr *nh,
		   void (*cb)(void *ctx, const struct hwsim_msg *msg),
		   void *ctx)
{
	struct genlmsghdr *g = NLMSG_DATA(nh);
	int alen = (int)nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	struct nlattr *a;
	struct hwsim_msg msg;

	if (alen < 0)
		return;
	memset(&msg, 0, sizeof(msg));
	msg.cmd = g->cmd;
	for (int i = 0; i < MED_NRATES; i++)
		msg.tries[i].idx = -1;
	a = (struct nlattr *)((uint8_t *)g + GENL_HDRLEN);
	while (alen >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= alen) {
		const uint8_t *d = (const uint8_t *)a + NLA_HDRLEN;
		size_t dl = a->nla_len - NLA_HDRLEN;
		switch (a->nla_type & NLA_TYPE_MASK) {
		case HWSIM_ATTR_ADDR_TRANSMITTER:
			if (dl >= 6)
				msg.transmitter = d;
			break;
		case HWSIM_ATTR_ADDR_RECEIVER:
			if (dl >= 6)
				msg.receiver = d;
			break;
		case HWSIM_ATTR_FRAME:
			msg.frame = d;
			msg.frame_len = dl;
			break;
		case HWSIM_ATTR_FLAGS:
			if (dl >= 4)
				memcpy(&msg.flags, d, 4);
			break;
		case HWSIM_ATTR_FREQ:
			if (dl >= 4)
				memcpy(&msg.freq, d, 4);
			break;
		case HWSIM_ATTR_COOKIE:
			if (dl >= 8)
				memcpy(&msg.cookie, d, 8);
			break;
		case HWSIM_ATTR_TX_INFO: /* 4 x {s8 idx, u8 count} */
			for (int i = 0;
			     i < MED_NRATES && dl >= 2 * (size_t)(i + 1); i++) {
				msg.tries[i].idx = (int8_t)d[2 * i];
				msg.tries[i].count = d[2 * i + 1];
			}
			msg.have_tx_info = 1;
			break;
		case HWSIM_ATTR_TX_INFO_FLAGS: /* 4 x {s8 idx, u16 flags} */
			for (int i = 0;
			     i < MED_NRATES && dl >= 3 * (size_t)(i + 1); i++) {
				uint16_t fl;
				memcpy(&fl, d + 3 * i + 1, 2);
				msg.tries[i].flags = fl;
			}
			break;
		}
		alen -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
	(void)h;
	cb(ctx, &msg);
}

/* Decodes one datagram's messages; returns how many were hwsim's. */
static int parse_datagram(struct hwsim_nl *h, uint8_t *buf, int len,
			  void (*cb)(void *ctx, const struct hwsim_msg *msg),
			  void *ctx)
{
	int count = 0;

	for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, len);
	     nh = NLMSG_NEXT(nh, len)) {
		if (nh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(nh);
			/* Deliveries to a radio that is down or off-channel
			 * come back as -EINVAL: counted, not fatal. */
			if (e->error) {
				h->kernel_errors++;
				h->last_kernel_errno = -e->error;
			}
			continue;
		}
		if (nh->nlmsg_type != h->family)
			continue;
		decode(h, nh, cb, ctx);
		count++;
	}
	return count;
}

int hwsim_nl_recv(struct hwsim_nl *h, uint8_t *buf, size_t buflen,
		  void (*cb)(void *ctx, const struct hwsim_msg *msg), void *ctx)
{
	struct mmsghdr mm[HWSIM_NL_RECV_MAX];
	struct iovec iov[HWSIM_NL_RECV_MAX];
	size_t slot = buflen < HWSIM_NL_SLOT ? buflen : HWSIM_NL_SLOT;
	unsigned slots;
	int n, count = 0;

	if (!slot) {
		errno = EINVAL;
		return -1;
	}
	slots = (unsigned)(buflen / slot);
	if (slots > HWSIM_NL_RECV_MAX)
		slots = HWSIM_NL_RECV_MAX;
	memset(mm, 0, sizeof(mm[0]) * slots);
	for (unsigned i = 0; i < slots; i++) {
		iov[i] = (struct iovec){buf + i * slot, slot};
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	/* One system call for every datagram waiting, up to slots: under
	 * TCG each call costs the guest more than the frame in it. */
	do
		n = recvmmsg(h->fd, mm, slots, MSG_DONTWAIT, NULL);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN)
			return 0;
		if (errno == ENOBUFS) { /* the kernel dropped messages */
			h->overruns++;
			return 0;
		}
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (mm[i].msg_hdr.msg_flags & MSG_TRUNC) {
			h->overruns++;
			continue;
		}
		count += parse_datagram(h, iov[i].iov_base, (int)mm[i].msg_len,
					cb, ctx);
	}
	return count;
}

int hwsim_nl_flush(struct hwsim_nl *h)
{
	struct sockaddr_nl to = {.nl_family = AF_NETLINK};
	ssize_t n;

	if (!h->batch_len)
		return 0;
	do
		n = sendto(h->fd, h->batch, h->batch_len, 0,
			   (struct sockaddr *)&to, sizeof(to));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		h->send_errors += (uint64_t)h->batch_msgs;
	else
		h->sent += (uint64_t)h->batch_msgs;
	h->batches++;
	h->batch_len = 0;
	h->batch_msgs = 0;
	return n < 0 ? -1 : 0;
}

/* Moves a built message into the batch, sending the batch first when it
 * would not fit. */
static int batch_add(struct hwsim_nl *h, struct msgbuf *m)
{
	size_t total = NLMSG_ALIGN(m->len);

	((struct nlmsghdr *)m->b)->nlmsg_len = (uint32_t)m->len;
	if (h->batch_len + total > sizeof(h->batch) && hwsim_nl_flush(h) < 0)
		return -1;
	memcpy(h->batch + h->batch_len, m->b, m->len);
	memset(h->batch + h->batch_len + m->len, 0, total - m->len);
	h->batch_len += total;
	h->batch_msgs++;
	return 0;
}

int hwsim_nl_tx_info(struct hwsim_nl *h, const uint8_t transmitter[6],
		     uint32_t flags, uint64_t cookie, int signal_dbm,
		     const struct med_try used[MED_NRATES], uint32_t airtime_us)
{
	struct msgbuf m;
	uint8_t rates[2 * MED_NRATES], rflags[3 * MED_NRATES];

	for (int i = 0; i < MED_NRATES; i++) {
		rates[2 * i] = (uint8_t)used[i].idx;
		rates[2 * i + 1] = used[i].count;
		rflags[3 * i] = (uint8_t)used[i].idx;
		memcpy(rflags + 3 * i + 1, &used[i].flags, 2);
	}
	msg_start(&m, h->family, 0, ++h->seq, HWSIM_CMD_TX_INFO_FRAME);
	if (msg_put(&m, HWSIM_ATTR_ADDR_TRANSMITTER, transmitter, 6) ||
	    msg_put_u32(&m, HWSIM_ATTR_FLAGS, flags) ||
	    msg_put(&m, HWSIM_ATTR_COOKIE, &cookie, sizeof(cookie)) ||
	    msg_put_u32(&m, HWSIM_ATTR_SIGNAL, (uint32_t)signal_dbm) ||
	    msg_put(&m, HWSIM_ATTR_TX_INFO, rates, sizeof(rates)) ||
	    msg_put(&m, HWSIM_ATTR_TX_INFO_FLAGS, rflags, sizeof(rflags)) ||
	    (airtime_us &&
	     msg_put_u32(&m, HWSIM_ATTR_AIRLAB_AIRTIME_US, airtime_us)))
		return -1;
	return batch_add(h, &m);
}

int hwsim_nl_deliver(struct hwsim_nl *h, const uint8_t receiver[6],
		     const uint8_t *frame, size_t len, int rx_rate_idx,
		     int signal_dbm, unsigned freq)
{
	struct msgbuf m;

	msg_start(&m, h->family, 0, ++h->seq, HWSIM_CMD_FRAME);
	if (msg_put(&m, HWSIM_ATTR_ADDR_RECEIVER, receiver, 6) ||
	    msg_put(&m, HWSIM_ATTR_FRAME, frame, len) ||
	    msg_put_u32(&m, HWSIM_ATTR_RX_RATE, (uint32_t)rx_rate_idx) ||
	    msg_put_u32(&m, HWSIM_ATTR_SIGNAL, (uint32_t)signal_dbm) ||
	    msg_put_u32(&m, HWSIM_ATTR_FREQ, freq))
		return -1;
	return batch_add(h, &m);
}
