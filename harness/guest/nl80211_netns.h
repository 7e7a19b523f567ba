/* Moves wiphys into network namespaces over nl80211 (what
 * `iw phy PHY set netns name NS` does), many per process: under TCG every
 * exec of a dynamically linked tool costs ~0.1-0.2 s. */
#ifndef AIRLAB_GUEST_NL80211_NETNS_H
#define AIRLAB_GUEST_NL80211_NETNS_H

#include <stddef.h>

struct nl80211_sock {
	int fd;
	int family; /* generic netlink id of "nl80211" */
	unsigned seq;
};

/* Opens a generic netlink socket and resolves nl80211. 0 or -1 + err. */
int nl80211_open(struct nl80211_sock *s, char *err, size_t errlen);

/* Moves wiphy (by index) into the namespace open as netns_fd. */
int nl80211_set_wiphy_netns(struct nl80211_sock *s, unsigned wiphy,
			    int netns_fd, char *err, size_t errlen);

void nl80211_close(struct nl80211_sock *s);

#endif
