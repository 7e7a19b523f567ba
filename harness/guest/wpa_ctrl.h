/* Client for wpa_supplicant's control interface: a unix datagram socket
 * per interface (ctrl_interface DIR=<dir> gives <dir>/<ifname>). Requests
 * get one datagram back; after ATTACH the supplicant also sends unsolicited
 * events, each prefixed "<level>". */
#ifndef AIRLAB_GUEST_WPA_CTRL_H
#define AIRLAB_GUEST_WPA_CTRL_H

#include <stdbool.h>
#include <stddef.h>

/* Largest reply wpa_supplicant sends (its own buffer is 4096). */
#define WPA_CTRL_REPLY_MAX 4096

struct wpa_ctrl {
	int fd;
	bool attached;
	char server[108]; /* the supplicant's socket path */
	char local[108];  /* our bound path, removed on close */
};

/* Connects to the socket at server_path. Returns 0, or -1 with a one-line
 * message in err naming the path. */
int wpa_ctrl_open(struct wpa_ctrl *c, const char *server_path, char *err,
		  size_t errlen);

/* Sends cmd and waits up to timeout_ms for its reply (events that arrive
 * meanwhile are skipped). The reply is NUL-terminated. Returns its length,
 * or -1 with err set. */
int wpa_ctrl_request(struct wpa_ctrl *c, const char *cmd, char *reply,
		     size_t reply_size, int timeout_ms, char *err,
		     size_t errlen);

/* ATTACH: subscribe this socket to events. 0 or -1 with err set. */
int wpa_ctrl_attach(struct wpa_ctrl *c, int timeout_ms, char *err,
		    size_t errlen);

/* Sends cmd without waiting for the reply (for PING on an attached
 * socket, whose reply is read with wpa_ctrl_recv). 0 or -1 with err set. */
int wpa_ctrl_send(struct wpa_ctrl *c, const char *cmd, char *err,
		  size_t errlen);

/* Reads one pending datagram without blocking. Returns its length, 0 when
 * none is pending, or -1 with err set. */
int wpa_ctrl_recv(struct wpa_ctrl *c, char *buf, size_t size, char *err,
		  size_t errlen);

void wpa_ctrl_close(struct wpa_ctrl *c);

#endif
