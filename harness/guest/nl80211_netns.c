/* nl80211 wiphy → netns moves over a raw generic netlink socket. */
#include "nl80211_netns.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/nl80211.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NL_BUF	      8192
#define NL_TIMEOUT_MS 5000

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

struct nl_msg {
	union {
		struct nlmsghdr nlh;
		char buf[512];
	} u;
};

static void msg_init(struct nl_msg *m, int type, int flags, unsigned seq,
		     int cmd)
{
	struct genlmsghdr *g;

	memset(m, 0, sizeof(*m));
	m->u.nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->u.nlh.nlmsg_type = (uint16_t)type;
	m->u.nlh.nlmsg_flags = (uint16_t)flags;
	m->u.nlh.nlmsg_seq = seq;
	g = NLMSG_DATA(&m->u.nlh);
	g->cmd = (uint8_t)cmd;
	g->version = 1;
}

static void msg_put(struct nl_msg *m, int type, const void *data, size_t len)
{
	struct nlattr *a =
	    (struct nlattr *)(m->u.buf + NLMSG_ALIGN(m->u.nlh.nlmsg_len));

	a->nla_type = (uint16_t)type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	m->u.nlh.nlmsg_len =
	    NLMSG_ALIGN(m->u.nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Sends m and reads replies until the ack for its sequence number. When
 * family_out is set, also picks CTRL_ATTR_FAMILY_ID out of the reply. */
static int transact(struct nl80211_sock *s, struct nl_msg *m, int *family_out,
		    char *err, size_t errlen)
{
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	char buf[NL_BUF];

	if (sendto(s->fd, m->u.buf, m->u.nlh.nlmsg_len, 0,
		   (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		set_err(err, errlen, "generic netlink send: %s",
			strerror(errno));
		return -1;
	}
	for (;;) {
		struct pollfd pfd = {.fd = s->fd, .events = POLLIN};
		struct nlmsghdr *h;
		ssize_t n;
		int r;

		r = poll(&pfd, 1, NL_TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			set_err(err, errlen,
				"generic netlink: no answer within %d ms",
				NL_TIMEOUT_MS);
			return -1;
		}
		n = recv(s->fd, buf, sizeof(buf), 0);
		if (n < 0) {
			set_err(err, errlen, "generic netlink recv: %s",
				strerror(errno));
			return -1;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != m->u.nlh.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (e->error) {
					set_err(err, errlen, "%s",
						strerror(-e->error));
					return -1;
				}
				return 0;
			}
			if (family_out) {
				struct nlattr *a =
				    (struct nlattr *)((char *)NLMSG_DATA(h) +
						      GENL_HDRLEN);
				int left = (int)h->nlmsg_len -
					   NLMSG_LENGTH(GENL_HDRLEN);

				while (left >= NLA_HDRLEN &&
				       a->nla_len >= NLA_HDRLEN &&
				       a->nla_len <= left) {
					if ((a->nla_type & NLA_TYPE_MASK) ==
						CTRL_ATTR_FAMILY_ID &&
					    a->nla_len >= NLA_HDRLEN + 2) {
						uint16_t id;

						memcpy(&id,
						       (char *)a + NLA_HDRLEN,
						       sizeof(id));
						*family_out = id;
					}
					left -= NLA_ALIGN(a->nla_len);
					a = (struct nlattr *)((char *)a +
							      NLA_ALIGN(
								  a->nla_len));
				}
			}
		}
	}
}

int nl80211_open(struct nl80211_sock *s, char *err, size_t errlen)
{
	struct sockaddr_nl local = {.nl_family = AF_NETLINK};
	struct nl_msg m;
	int family = -1;
	char msg[256];

	s->seq = 1;
	s->family = -1;
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0) {
		set_err(err, errlen, "generic netlink socket: %s",
			strerror(errno));
		return -1;
	}
	if (bind(s->fd, (struct sockaddr *)&local, sizeof(local)) < 0) {
		set_err(err, errlen, "generic netlink bind: %s",
			strerror(errno));
		nl80211_close(s);
		return -1;
	}
	msg_init(&m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, s->seq++,
		 CTRL_CMD_GETFAMILY);
	msg_put(&m, CTRL_ATTR_FAMILY_NAME, NL80211_GENL_NAME,
		sizeof(NL80211_GENL_NAME));
	if (transact(s, &m, &family, msg, sizeof(msg)) < 0) {
		set_err(err, errlen,
			"resolving generic netlink family nl80211: %s "
			"(cfg80211 loaded?)",
			msg);
		nl80211_close(s);
		return -1;
	}
	if (family < 0) {
		set_err(err, errlen,
			"resolving generic netlink family nl80211: no family "
			"id in the reply");
		nl80211_close(s);
		return -1;
	}
	s->family = family;
	return 0;
}

int nl80211_set_wiphy_netns(struct nl80211_sock *s, unsigned wiphy,
			    int netns_fd, char *err, size_t errlen)
{
	struct nl_msg m;
	uint32_t idx = wiphy, fd = (uint32_t)netns_fd;

	msg_init(&m, s->family, NLM_F_REQUEST | NLM_F_ACK, s->seq++,
		 NL80211_CMD_SET_WIPHY_NETNS);
	msg_put(&m, NL80211_ATTR_WIPHY, &idx, sizeof(idx));
	msg_put(&m, NL80211_ATTR_NETNS_FD, &fd, sizeof(fd));
	return transact(s, &m, NULL, err, errlen);
}

void nl80211_close(struct nl80211_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
