#include "minicircuits.h"
#include "../../lab/rfpath.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The families airlab knows: channels and the step they set in. */
static const struct {
	const char *family;
	int channels;
	double step_db;
} families[] = {
    {"RUDAT", 1, 0.25},	 {"RCDAT", 1, 0.25},  {"RC2DAT", 2, 0.25},
    {"RC4DAT", 4, 0.25}, {"RC8DAT", 8, 0.25},
};

struct atten_dev {
	char name[LAB_NAME_MAX], driver[32], where[300];
	char serial[64];
	struct mc_model model;
	const struct mc_transport *tr;
	struct mc_link *link;
};

static void quote(char *out, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < len && n < 80; s++)
		out[n++] = (unsigned char)*s < ' ' || (unsigned char)*s > '~'
			       ? '?'
			       : *s;
	out[n] = 0;
}

int mc_parse_model(const char *reply, struct mc_model *m, char *msg,
		   size_t msglen)
{
	size_t len = strcspn(reply, "\r\n"), flen;
	const char *name = reply + 3, *dash, *last;
	char q[96];
	char *end;

	memset(m, 0, sizeof(*m));
	quote(q, sizeof(q), reply);
	if (strncmp(reply, "MN=", 3) || len <= 3 ||
	    len - 3 >= sizeof(m->name) ||
	    reply[len + strspn(reply + len, "\r\n")]) {
		snprintf(msg, msglen, "'%s' is not a model reply (MN=...)", q);
		return -1;
	}
	memcpy(m->name, name, len - 3);
	dash = strchr(m->name, '-');
	last = strrchr(m->name, '-');
	flen = dash ? (size_t)(dash - m->name) : 0;
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (flen == strlen(families[i].family) &&
		    !strncmp(m->name, families[i].family, flen)) {
			m->channels = families[i].channels;
			m->step_db = families[i].step_db;
		}
	if (!m->channels || last == dash) {
		snprintf(msg, msglen,
			 "model '%s' is not one airlab knows (RUDAT, RCDAT, "
			 "RC2DAT, RC4DAT, RC8DAT -MHz-dB)",
			 q + 3);
		return -1;
	}
	errno = 0;
	m->max_db = strtod(last + 1, &end);
	if (end == last + 1 || *end || errno || !(m->max_db > 0) ||
	    m->max_db > 200 || m->max_db != floor(m->max_db)) {
		snprintf(msg, msglen,
			 "model '%s': its last field is not a range in dB",
			 q + 3);
		return -1;
	}
	return 0;
}

int mc_parse_att(const char *reply, double *db)
{
	char *end;

	if (!*reply ||
	    !(reply[0] == '-' || (reply[0] >= '0' && reply[0] <= '9')))
		return -1;
	errno = 0;
	*db = strtod(reply, &end);
	if (end == reply || errno || !isfinite(*db))
		return -1;
	end += strspn(end, "\r\n");
	return *end ? -1 : 0;
}

int mc_check_db(const struct mc_model *m, double db, char *msg, size_t msglen)
{
	double steps = db / m->step_db;

	if (!isfinite(db) || db < 0 || db > m->max_db) {
		snprintf(msg, msglen, "%g dB is outside %s's range 0 to %g dB",
			 db, m->name, m->max_db);
		return -1;
	}
	if (fabs(steps - round(steps)) > 1e-6) {
		snprintf(msg, msglen,
			 "%g dB is not a whole number of %s's "
			 "%g dB steps",
			 db, m->name, m->step_db);
		return -1;
	}
	return 0;
}

void mc_cmd_set(const struct mc_model *m, int channel, double db, char *out,
		size_t len)
{
	if (m->channels > 1)
		snprintf(out, len, ":CHAN:%d:SETATT:%g", channel, db);
	else
		snprintf(out, len, ":SETATT=%g", db);
}

void mc_cmd_get(const struct mc_model *m, int channel, char *out, size_t len)
{
	if (m->channels > 1)
		snprintf(out, len, ":CHAN:%d:ATT?", channel);
	else
		snprintf(out, len, ":ATT?");
}

/* "attenuator A (driver at host:port): cmd: ..." */
static int dev_err(const struct atten_dev *d, const char *cmd,
		   struct al_err *err, const char *what)
{
	return al_errf(err, "attenuator %s (%s at %s): %s: %s", d->name,
		       d->driver, d->where, cmd, what);
}

static int ask(struct atten_dev *d, const char *cmd, char *reply, size_t len,
	       struct al_err *err)
{
	if (d->tr->query(d->link, cmd, reply, len, err) < 0) {
		al_err_prefix(err, "attenuator %s (%s at %s): %s", d->name,
			      d->driver, d->where, cmd);
		return -1;
	}
	return 0;
}

int mc_open(struct atten_dev **out, const struct drv_target *t,
	    const char *driver, const struct mc_transport *tr,
	    struct mc_link *l, const char *where, struct al_err *err)
{
	const struct lab_atten *a = atten_of_binding(t->lab, t->binding);
	struct atten_dev *d = calloc(1, sizeof(*d));
	struct atten_path *all;
	char reply[256], msg[300];
	int n, used = 0;

	*out = NULL;
	if (!d) {
		tr->close(l);
		return al_errf(err, "%s: out of memory", driver);
	}
	snprintf(d->name, sizeof(d->name), "%s", a ? a->name : "?");
	snprintf(d->driver, sizeof(d->driver), "%s", driver);
	snprintf(d->where, sizeof(d->where), "%s", where);
	d->tr = tr;
	d->link = l;
	if (ask(d, ":MN?", reply, sizeof(reply), err) < 0)
		goto fail;
	if (mc_parse_model(reply, &d->model, msg, sizeof(msg)) < 0) {
		dev_err(d, ":MN?", err, msg);
		goto fail;
	}
	if (ask(d, ":SN?", reply, sizeof(reply), err) < 0)
		goto fail;
	if (strncmp(reply, "SN=", 3) || !reply[3]) {
		quote(msg, sizeof(msg), reply);
		dev_err(d, ":SN?", err, "the reply is not SN=...");
		al_err_prefix(err, "'%s'", msg);
		goto fail;
	}
	snprintf(d->serial, sizeof(d->serial), "%.63s", reply + 3);
	/* The lab's paths (20 kB): on the heap, only to count ours. */
	all = malloc(ATTEN_MAX_PATHS * sizeof(*all));
	if (!all) {
		al_errf(err, "%s: out of memory", driver);
		goto fail;
	}
	n = atten_paths_list(t->lab, all, ATTEN_MAX_PATHS, err);
	for (int i = 0; i < n; i++)
		used += all[i].atten == a;
	free(all);
	if (n < 0)
		goto fail;
	if (used > d->model.channels) {
		al_err_input(
		    err,
		    "%s:%d: attenuator %s: %d paths, but the %s (serial "
		    "%s) at %s has %d channel%s",
		    t->lab->path, t->binding->line, d->name, used,
		    d->model.name, d->serial, where, d->model.channels,
		    d->model.channels == 1 ? "" : "s");
		goto fail;
	}
	*out = d;
	return 0;
fail:
	mc_close(d);
	return -1;
}

static int channel_ok(const struct atten_dev *d, int channel,
		      struct al_err *err)
{
	if (channel >= 1 && channel <= d->model.channels)
		return 0;
	return al_errf(err, "attenuator %s (%s at %s): %s has no channel %d",
		       d->name, d->driver, d->where, d->model.name, channel);
}

int mc_set_db(struct atten_dev *d, int channel, double db, struct al_err *err)
{
	char cmd[64], reply[64], msg[200];

	if (channel_ok(d, channel, err) < 0)
		return -1;
	mc_cmd_set(&d->model, channel, db, cmd, sizeof(cmd));
	if (mc_check_db(&d->model, db, msg, sizeof(msg)) < 0) {
		dev_err(d, cmd, err, msg);
		err->bad_input = true; /* refused before sending */
		return -1;
	}
	if (ask(d, cmd, reply, sizeof(reply), err) < 0)
		return -1;
	if (!strcmp(reply, "1"))
		return 0;
	quote(msg, sizeof(msg), reply);
	if (!strcmp(reply, "2"))
		return dev_err(d, cmd, err,
			       "the box clamped the value (reply 2)");
	if (!strcmp(reply, "0"))
		return dev_err(d, cmd, err, "the box refused it (reply 0)");
	al_errf(err, "attenuator %s (%s at %s): %s: unexpected reply '%s'",
		d->name, d->driver, d->where, cmd, msg);
	return -1;
}

int mc_get_db(struct atten_dev *d, int channel, double *db, struct al_err *err)
{
	char cmd[64], reply[64], q[96];

	if (channel_ok(d, channel, err) < 0)
		return -1;
	mc_cmd_get(&d->model, channel, cmd, sizeof(cmd));
	if (ask(d, cmd, reply, sizeof(reply), err) < 0)
		return -1;
	if (mc_parse_att(reply, db) < 0 || *db < 0 || *db > d->model.max_db) {
		quote(q, sizeof(q), reply);
		al_errf(err,
			"attenuator %s (%s at %s): %s: the reply '%s' is not "
			"an attenuation of 0 to %g dB",
			d->name, d->driver, d->where, cmd, q, d->model.max_db);
		return -1;
	}
	return 0;
}

void mc_close(struct atten_dev *d)
{
	if (!d)
		return;
	if (d->tr && d->link)
		d->tr->close(d->link);
	free(d);
}

struct mc_tcp_conf {
	char address[256];
	int timeout_ms;
};

const struct drv_setting mc_tcp_settings[] = {
    {.name = "address",
     .required = true,
     .what = "HOST or HOST:PORT of the attenuator",
     DRV_FIELD(struct mc_tcp_conf, address)},
    {.name = "timeout_ms",
     .type = DRV_INT,
     .default_value = "3000",
     .min = 1,
     .max = 600000,
     DRV_FIELD(struct mc_tcp_conf, timeout_ms)},
    {0},
};

int mc_settings(const struct drv_target *t, const char *driver, int def_port,
		char *host, size_t hlen, int *port, int *timeout_ms,
		struct al_err *err)
{
	const struct lab_atten *a = atten_of_binding(t->lab, t->binding);
	const char *name = a ? a->name : "?", *colon;
	struct mc_tcp_conf c;
	char *end;

	if (drv_settings_read(t, mc_tcp_settings, &c, err) < 0)
		return -1;
	colon = strrchr(c.address, ':');
	*port = def_port;
	if (colon) {
		long p = strtol(colon + 1, &end, 10);

		if (end == colon + 1 || *end || p < 1 || p > 65535)
			return al_err_input(
			    err,
			    "%s:%d: attenuator %s (%s): address '%.80s': bad "
			    "port",
			    t->lab->path, drv_setting_line(t, "address"), name,
			    driver, c.address);
		*port = (int)p;
	}
	if ((size_t)snprintf(host, hlen, "%.*s",
			     colon ? (int)(colon - c.address)
				   : (int)strlen(c.address),
			     c.address) >= hlen ||
	    !*host)
		return al_err_input(
		    err, "%s:%d: attenuator %s (%s): address '%.80s': bad host",
		    t->lab->path, drv_setting_line(t, "address"), name, driver,
		    c.address);
	*timeout_ms = c.timeout_ms;
	return 0;
}

int mc_tcp_connect(const char *device, const char *host, int port,
		   int timeout_ms, struct al_err *err)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
	char ports[16];
	int fd = -1, rc, last = 0;

	snprintf(ports, sizeof(ports), "%d", port);
	rc = getaddrinfo(host, ports, &hints, &res);
	if (rc)
		return al_errf(err, "attenuator %s: %s:%d: cannot resolve: %s",
			       device, host, port, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		struct pollfd p;
		socklen_t sl = sizeof(last);

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0)
			continue;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		last = errno;
		p = (struct pollfd){.fd = fd, .events = POLLOUT};
		if (last == EINPROGRESS && poll(&p, 1, timeout_ms) == 1 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &last, &sl) == 0 &&
		    last == 0)
			break;
		if (last == EINPROGRESS)
			last = ETIMEDOUT;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return al_errf(err,
			       "attenuator %s: cannot connect to %s:%d: %s",
			       device, host, port, strerror(last));
	return fd;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int mc_recv(int fd, char *buf, size_t cap, size_t *n, int timeout_ms,
	    int (*complete)(const char *buf, size_t n))
{
	double end = now_ms() + timeout_ms;

	*n = 0;
	buf[0] = 0;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int left = (int)(end - now_ms()), r;
		ssize_t got;

		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		r = poll(&p, 1, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = ETIMEDOUT;
			return -1;
		}
		if (*n + 1 >= cap) {
			errno = EMSGSIZE;
			return -1;
		}
		got = read(fd, buf + *n, cap - 1 - *n);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			return 1;
		*n += (size_t)got;
		buf[*n] = 0;
		if (complete(buf, *n))
			return 0;
	}
}

int mc_send(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t w = send(fd, s, len, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};

			if (poll(&p, 1, 1000) <= 0)
				return -1;
			continue;
		}
		if (w <= 0)
			return -1;
		s += w;
		len -= (size_t)w;
	}
	return 0;
}
