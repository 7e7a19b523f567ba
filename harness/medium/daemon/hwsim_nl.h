/* A minimal generic-netlink client for mac80211_hwsim's medium interface,
 * on a raw NETLINK_GENERIC socket (no libnl: the guest has only libc). */
#ifndef AIRLAB_MEDIUM_HWSIM_NL_H
#define AIRLAB_MEDIUM_HWSIM_NL_H

#include <stddef.h>
#include <stdint.h>

#include "../medium.h"

/* mac80211_hwsim.h (uapi-like, not exported by the kernel headers). */
enum {
	HWSIM_CMD_REGISTER = 1,
	HWSIM_CMD_FRAME = 2,
	HWSIM_CMD_TX_INFO_FRAME = 3,
	HWSIM_CMD_NEW_RADIO = 4,
	HWSIM_CMD_ADD_MAC_ADDR = 7,
	HWSIM_CMD_DEL_MAC_ADDR = 8,
};
enum {
	HWSIM_ATTR_ADDR_RECEIVER = 1,
	HWSIM_ATTR_ADDR_TRANSMITTER = 2,
	HWSIM_ATTR_FRAME = 3,
	HWSIM_ATTR_FLAGS = 4,
	HWSIM_ATTR_RX_RATE = 5,
	HWSIM_ATTR_SIGNAL = 6,
	HWSIM_ATTR_TX_INFO = 7,
	HWSIM_ATTR_COOKIE = 8,
	HWSIM_ATTR_FREQ = 19,
	HWSIM_ATTR_TX_INFO_FLAGS = 21,
	/* airlab's hwsim patch: the medium's airtime for the frame (u32 us);
	 * stock hwsim ignores attributes beyond its own */
	HWSIM_ATTR_AIRLAB_AIRTIME_US = 64,
};
#define HWSIM_FAMILY_NAME "MAC80211_HWSIM"

/* Bytes of messages sent in one sendto: a 32-subframe A-MPDU's deliveries
 * and tx statuses fit; far below the socket's default send buffer. */
#define HWSIM_NL_BATCH_MAX 65536

struct hwsim_nl {
	int fd;
	uint16_t family;
	uint32_t seq;
	/* sent/send_errors count messages, batches the sendto calls */
	uint64_t sent, send_errors, batches, kernel_errors, overruns;
	int last_kernel_errno;
	/* Deliveries and tx statuses wait here until hwsim_nl_flush: the
	 * kernel takes many messages per sendto, and each sendto costs the
	 * guest more than the message in it. */
	uint8_t batch[HWSIM_NL_BATCH_MAX];
	size_t batch_len;
	int batch_msgs;
};

/* One message from the kernel, decoded. */
struct hwsim_msg {
	int cmd;
	const uint8_t *transmitter, *receiver; /* 6 bytes or NULL */
	const uint8_t *frame;
	size_t frame_len;
	uint32_t flags, freq;
	uint64_t cookie;
	int have_tx_info;
	struct med_try tries[MED_NRATES];
};

/* Opens the socket, resolves the family, creates new_radios radios beyond
 * those hwsim's radios= made (it refuses more than 100) and registers as
 * the medium, waiting up to wait_ms for the family to appear. Returns 0,
 * or -1 with the reason in err. */
int hwsim_nl_open(struct hwsim_nl *h, int wait_ms, int new_radios, char *err,
		  size_t errlen);
void hwsim_nl_close(struct hwsim_nl *h);

/* Datagrams read per call, each into its own HWSIM_NL_SLOT bytes of buf
 * (a frame is at most 2304 bytes, its attributes a few dozen). */
#define HWSIM_NL_RECV_MAX 32
#define HWSIM_NL_SLOT	  8192

/* Reads the datagrams waiting (up to HWSIM_NL_RECV_MAX, as many as buf
 * has slots for) and calls cb for each hwsim message in them. Returns
 * the number of messages, 0 if nothing was waiting, -1 on a socket error
 * (errno set). */
int hwsim_nl_recv(struct hwsim_nl *h, uint8_t *buf, size_t buflen,
		  void (*cb)(void *ctx, const struct hwsim_msg *msg),
		  void *ctx);

/* Frame deliveries and tx statuses, appended to the batch (which is sent
 * first when the message would not fit). 0, or -1 when the message is too
 * large or a full batch could not be sent. */
int hwsim_nl_tx_info(struct hwsim_nl *h, const uint8_t transmitter[6],
		     uint32_t flags, uint64_t cookie, int signal_dbm,
		     const struct med_try used[MED_NRATES],
		     uint32_t airtime_us);
int hwsim_nl_deliver(struct hwsim_nl *h, const uint8_t receiver[6],
		     const uint8_t *frame, size_t len, int rx_rate_idx,
		     int signal_dbm, unsigned freq);
/* Sends the batched messages in one sendto: call before sleeping. 0, or -1
 * (errno set; the batch is counted in send_errors and dropped). */
int hwsim_nl_flush(struct hwsim_nl *h);

#endif
