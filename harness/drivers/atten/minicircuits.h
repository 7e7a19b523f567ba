/* Mini-Circuits programmable attenuators (RUDAT, RCDAT, RC2DAT, RC4DAT,
 * RC8DAT): their ASCII command set, the same over HTTP (`GET /:ATT?`) and
 * telnet (one command per CRLF line). This file knows the commands, the
 * replies and the models; minicircuits_http.c and minicircuits_telnet.c
 * only carry a command and bring its reply back.
 *
 *   :MN?              MN=RC4DAT-6000-90   model: family, MHz, max dB
 *   :SN?              SN=11912140001
 *   :SETATT=12.75     1 (set), 0 (failed), 2 (out of range, clamped)
 *   :ATT?             12.75
 *   :CHAN:3:SETATT:12.75, :CHAN:3:ATT?   the same on channel 3 of a
 *                                        multi-channel model
 *
 * A value is checked against the model's range and step before it is
 * sent; the driver reads back what the box says it holds. */
#ifndef AIRLAB_DRIVERS_ATTEN_MINICIRCUITS_H
#define AIRLAB_DRIVERS_ATTEN_MINICIRCUITS_H

#include <stddef.h>

#include "../driver.h"

struct mc_model {
	char name[64]; /* "RC4DAT-6000-90" */
	int channels;
	double max_db, step_db;
};

/* From a `:MN?` reply ("MN=RC4DAT-6000-90", trailing CR/LF allowed):
 * the family gives channels and step, the last number the range. -1 with
 * msg quoting the reply when it is not one of the known families. */
int mc_parse_model(const char *reply, struct mc_model *m, char *msg,
		   size_t msglen);
/* A `:ATT?` reply: one number of dB, nothing else. */
int mc_parse_att(const char *reply, double *db);
/* A value the model can hold: 0..max in whole steps; msg says why not. */
int mc_check_db(const struct mc_model *m, double db, char *msg, size_t msglen);
/* The commands; channel is 1-based, single-channel models have no CHAN. */
void mc_cmd_set(const struct mc_model *m, int channel, double db, char *out,
		size_t len);
void mc_cmd_get(const struct mc_model *m, int channel, char *out, size_t len);

/* How a command reaches the box and its reply comes back (one line, CR/LF
 * cut). where names the address ("10.0.0.5:23") for errors. */
struct mc_link;
struct mc_transport {
	int (*query)(struct mc_link *l, const char *cmd, char *reply,
		     size_t len, struct al_err *err);
	void (*close)(struct mc_link *l);
};

/* The driver over a transport: asks the model and serial, checks the
 * lab's paths fit its channels; then set_db / get_db as atten_ops. */
int mc_open(struct atten_dev **out, const struct drv_target *t,
	    const char *driver, const struct mc_transport *tr,
	    struct mc_link *l, const char *where, struct al_err *err);
int mc_set_db(struct atten_dev *d, int channel, double db, struct al_err *err);
int mc_get_db(struct atten_dev *d, int channel, double *db, struct al_err *err);
void mc_close(struct atten_dev *d);

/* Settings both transports read: address (host or host:port), timeout_ms;
 * anything else but paths is refused with file:line. */
extern const struct drv_setting mc_tcp_settings[];
int mc_settings(const struct drv_target *t, const char *driver, int def_port,
		char *host, size_t hlen, int *port, int *timeout_ms,
		struct al_err *err);

/* A TCP connection to host:port within timeout_ms; -1 with err naming
 * the device, the address and what failed. */
int mc_tcp_connect(const char *device, const char *host, int port,
		   int timeout_ms, struct al_err *err);

/* Reads from fd into buf (NUL-terminated) until complete(buf, n) says so,
 * the peer closes, or timeout_ms passes without it: 0 complete, 1 closed
 * (what came is in buf), -1 timed out or failed (errno). */
int mc_recv(int fd, char *buf, size_t cap, size_t *n, int timeout_ms,
	    int (*complete)(const char *buf, size_t n));
/* Writes all of s to fd; -1 with errno. */
int mc_send(int fd, const char *s, size_t len);

#endif
