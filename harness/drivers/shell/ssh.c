/* shell=ssh: runs commands on a host over SSH (libssh), public-key login
 * only, the server's host key checked against the lab inventory, and
 * uploads files over SFTP.
 *
 * Settings: host, port (22), user, key (private key file), and one of
 * known_host_key (a file with the server's "ssh-ed25519 AAAA..." line:
 * pinned), known_hosts (an OpenSSH known_hosts file) with host_key_policy
 * (strict, the default: an unknown or changed key is refused; accept-new:
 * an unknown host is learned and written to the file, a changed key is
 * still refused; accept-changed: a changed key is accepted too, loudly, and
 * replaces the old one in the file) or insecure_accept_any_host_key: yes;
 * connect_timeout_s (10: one connection attempt, and every later blocking
 * SSH request), alive_timeout_s (30: longest silence of the server while a
 * command runs; it is probed with keepalives), exec_prefix (a command every
 * remote command runs under, given as `sh -c CMD`: "sudo" for a login that
 * is not root, "ip netns exec stabox" for radios kept in a namespace). */
#include "../driver.h"
#include "../../util/clock.h"
#include "../../util/shquote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>
/* ssh_send_keepalive() is declared there but is a plain global request,
 * valid from a client too */
#include <libssh/server.h>

#define SSH_PATH_MAX 4096
/* Pause between connection attempts while the server is not up yet. */
#define RETRY_PAUSE_MS 250

struct shell_dev {
	ssh_session session;
	char dev[LAB_NAME_MAX];		   /* host name, for error messages */
	char where[LAB_NAME_MAX * 3 + 16]; /* user@host:port */
	int connect_timeout_ms;
	int alive_timeout_ms;
	char exec_prefix[256];
	struct ssh_counter_struct rx; /* packets from the server: liveness */
	char no_answer[96];	      /* session_error()'s text for a timeout */
};

/* "60 s" or "1.5 s". */
static const char *fmt_seconds(char *buf, size_t len, int ms)
{
	if (ms % 1000 == 0)
		snprintf(buf, len, "%d s", ms / 1000);
	else
		snprintf(buf, len, "%.1f s", ms / 1000.0);
	return buf;
}

/* libssh's last error, or what an empty one means: a blocking call that
 * gave up after the session timeout leaves no message behind. */
static const char *session_error(struct shell_dev *d)
{
	const char *e = ssh_get_error(d->session);
	char secs[32];

	if (e && *e)
		return e;
	snprintf(d->no_answer, sizeof(d->no_answer),
		 "no answer within %s (connect_timeout_s)",
		 fmt_seconds(secs, sizeof(secs), d->connect_timeout_ms));
	return d->no_answer;
}

/* libssh negotiates the host key type: ask for the pinned key's type so a
 * server with several host keys shows the one we can compare. */
static const char *hostkey_algorithms(ssh_key key)
{
	switch (ssh_key_type(key)) {
	case SSH_KEYTYPE_ED25519:
		return "ssh-ed25519";
	case SSH_KEYTYPE_ECDSA_P256:
		return "ecdsa-sha2-nistp256";
	case SSH_KEYTYPE_ECDSA_P384:
		return "ecdsa-sha2-nistp384";
	case SSH_KEYTYPE_ECDSA_P521:
		return "ecdsa-sha2-nistp521";
	case SSH_KEYTYPE_RSA:
		return "rsa-sha2-512,rsa-sha2-256";
	default:
		return NULL;
	}
}

/* "SHA256:..." of a public key, into buf. */
static const char *fingerprint(ssh_key key, char *buf, size_t len)
{
	unsigned char *hash = NULL;
	size_t hlen = 0;
	char *fp;

	snprintf(buf, len, "(no fingerprint)");
	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash,
				   &hlen) < 0)
		return buf;
	fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
	if (fp) {
		snprintf(buf, len, "%s", fp);
		ssh_string_free_char(fp);
	}
	ssh_clean_pubkey_hash(&hash);
	return buf;
}

/* What a known_hosts file lets through besides the keys it lists. */
enum host_key_policy {
	POLICY_STRICT,	       /* nothing */
	POLICY_ACCEPT_NEW,     /* a host it does not list yet (learned) */
	POLICY_ACCEPT_CHANGED, /* that, and a changed key (replaced) */
};
static const char *const policy_names[] = {"strict", "accept-new",
					   "accept-changed"};

struct open_cfg {
	/* The settings. */
	char host[256];
	int port_setting;
	char user[LAB_NAME_MAX];
	char key_path[SSH_PATH_MAX];
	char known_path[SSH_PATH_MAX];	/* known_host_key's file, or "" */
	char known_hosts[SSH_PATH_MAX]; /* known_hosts file, or "" */
	int policy_setting;		/* -1: not given */
	bool insecure;
	int connect_timeout_s, alive_timeout_s;
	char exec_prefix[256];
	/* What they come to. */
	unsigned int port;
	enum host_key_policy policy;
	ssh_key key;
	ssh_key known; /* pinned; NULL with known_hosts or insecure */
};

static const struct drv_setting settings[] = {
    {.name = "host",
     .required = true,
     .what = "the address the host answers SSH at",
     DRV_FIELD(struct open_cfg, host)},
    {.name = "port",
     .type = DRV_INT,
     .default_value = "22",
     .min = 1,
     .max = 65535,
     DRV_FIELD(struct open_cfg, port_setting)},
    {.name = "user",
     .required = true,
     .what = "the login",
     DRV_FIELD(struct open_cfg, user)},
    {.name = "key",
     .type = DRV_PATH,
     .required = true,
     .what = "the private key file of the login",
     DRV_FIELD(struct open_cfg, key_path)},
    {.name = "known_host_key",
     .type = DRV_PATH,
     DRV_FIELD(struct open_cfg, known_path)},
    {.name = "known_hosts",
     .type = DRV_PATH,
     DRV_FIELD(struct open_cfg, known_hosts)},
    {.name = "host_key_policy",
     .type = DRV_CHOICE,
     .choices =
	 (const struct drv_choice[]){{"strict", POLICY_STRICT},
				     {"accept-new", POLICY_ACCEPT_NEW},
				     {"accept-changed", POLICY_ACCEPT_CHANGED},
				     {0}},
     DRV_FIELD(struct open_cfg, policy_setting)},
    {.name = "insecure_accept_any_host_key",
     .type = DRV_BOOL,
     .default_value = "no",
     DRV_FIELD(struct open_cfg, insecure)},
    {.name = "connect_timeout_s",
     .type = DRV_INT,
     .default_value = "10",
     .min = 1,
     .max = INT_MAX / 1000,
     DRV_FIELD(struct open_cfg, connect_timeout_s)},
    {.name = "alive_timeout_s",
     .type = DRV_INT,
     .default_value = "30",
     .min = 1,
     .max = INT_MAX / 1000,
     DRV_FIELD(struct open_cfg, alive_timeout_s)},
    {.name = "exec_prefix", DRV_FIELD(struct open_cfg, exec_prefix)},
    {0},
};

static int set_timeout(ssh_session s, int ms)
{
	long sec = ms / 1000, usec = (long)(ms % 1000) * 1000;

	if (ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &sec) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_TIMEOUT_USEC, &usec) < 0)
		return -1;
	return 0;
}

/* "type SHA256:..." of a key, into buf. */
static const char *key_text(ssh_key key, char *buf, size_t len)
{
	char fp[128];

	snprintf(buf, len, "%s %s", ssh_key_type_to_char(ssh_key_type(key)),
		 fingerprint(key, fp, sizeof(fp)));
	return buf;
}

/* How known_hosts names the host: "host", or "[host]:port" off port 22
 * (as libssh and OpenSSH write it). */
static void known_hosts_name(const struct open_cfg *c, char *out, size_t len)
{
	char host[LAB_NAME_MAX];
	size_t i;

	for (i = 0; c->host[i] && i + 1 < sizeof(host); i++)
		host[i] = (char)((c->host[i] >= 'A' && c->host[i] <= 'Z')
				     ? c->host[i] - 'A' + 'a'
				     : c->host[i]);
	host[i] = 0;
	if (c->port == 22)
		snprintf(out, len, "%s", host);
	else
		snprintf(out, len, "[%s]:%u", host, c->port);
}

/* Reads c->known_hosts for the host's entries that disagree with server:
 * old gets the first one of the server key's type (or of any type when
 * there is none of it). With drop, those of the server key's type are
 * taken out of the file (rewritten through a temporary file and a
 * rename). */
static int known_hosts_old(struct shell_dev *d, const struct open_cfg *c,
			   ssh_key server, bool drop, char *old, size_t oldlen,
			   struct al_err *err)
{
	char name[LAB_NAME_MAX + 16], tmp[SSH_PATH_MAX + 32];
	char *line = NULL;
	size_t cap = 0;
	FILE *in = fopen(c->known_hosts, "re"), *out = NULL;
	struct stat st;
	bool same_type_seen = false;
	int rc = -1;

	snprintf(old, oldlen, "(no entry)");
	if (!in)
		return al_errf(err, "%s: known_hosts %s: %s", d->dev,
			       c->known_hosts, strerror(errno));
	known_hosts_name(c, name, sizeof(name));
	if (drop) {
		int fd;

		snprintf(tmp, sizeof(tmp), "%s.airlab-%ld", c->known_hosts,
			 (long)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			  fstat(fileno(in), &st) == 0 ? st.st_mode & 0777
						      : 0600);
		out = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!out) {
			al_errf(err, "%s: known_hosts: creating %s: %s", d->dev,
				tmp, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out;
		}
	}
	while (getline(&line, &cap, in) >= 0) {
		struct ssh_knownhosts_entry *e = NULL;
		bool same = false;
		char *p = line;

		p[strcspn(p, "\r\n")] = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p && *p != '#' &&
		    ssh_known_hosts_parse_line(name, p, &e) == SSH_OK && e) {
			same =
			    ssh_key_type(e->publickey) == ssh_key_type(server);
			if ((same && !same_type_seen) ||
			    strcmp(old, "(no entry)") == 0)
				key_text(e->publickey, old, oldlen);
			if (same)
				same_type_seen = true;
			ssh_knownhosts_entry_free(e);
		}
		if (out && !same && fprintf(out, "%s\n", line) < 0) {
			al_errf(err, "%s: known_hosts: writing %s: %s", d->dev,
				tmp, strerror(errno));
			goto out;
		}
	}
	if (out) {
		int w = fflush(out) == 0 && fsync(fileno(out)) == 0;

		if (fclose(out) != 0 || !w) {
			out = NULL;
			al_errf(err, "%s: known_hosts: writing %s: %s", d->dev,
				tmp, strerror(errno));
			goto out;
		}
		out = NULL;
		if (rename(tmp, c->known_hosts) < 0) {
			al_errf(err, "%s: known_hosts: rename %s -> %s: %s",
				d->dev, tmp, c->known_hosts, strerror(errno));
			goto out;
		}
	}
	rc = 0;
out:
	if (out)
		fclose(out);
	if (drop && rc < 0)
		unlink(tmp);
	free(line);
	fclose(in);
	return rc;
}

/* The host key check against a known_hosts file under c->policy. */
static int check_known_hosts(struct shell_dev *d, const struct open_cfg *c,
			     ssh_session s, ssh_key server, struct al_err *err)
{
	const char *policy = policy_names[c->policy];
	char now[160], old[160];

	key_text(server, now, sizeof(now));
	switch (ssh_session_is_known_server(s)) {
	case SSH_KNOWN_HOSTS_OK:
		return 0;
	case SSH_KNOWN_HOSTS_UNKNOWN:
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		if (c->policy == POLICY_STRICT)
			return al_errf(
			    err,
			    "%s: unknown host %s port %u: known_hosts %s has "
			    "no key for it (host_key_policy: strict); it "
			    "offers %s: add that key to the file, or set "
			    "host_key_policy: accept-new to learn it",
			    d->dev, c->host, c->port, c->known_hosts, now);
		if (ssh_session_update_known_hosts(s) != SSH_OK)
			return al_errf(err,
				       "%s: host %s port %u: writing its key "
				       "to known_hosts %s: %s",
				       d->dev, c->host, c->port, c->known_hosts,
				       ssh_get_error(s));
		fprintf(stderr,
			"%s: learned the host key of %s port %u: %s (added to "
			"%s, host_key_policy: %s)\n",
			d->dev, c->host, c->port, now, c->known_hosts, policy);
		return 0;
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		break;
	default:
		return al_errf(err,
			       "%s: host %s port %u: cannot check its key "
			       "against known_hosts %s: %s",
			       d->dev, c->host, c->port, c->known_hosts,
			       ssh_get_error(s));
	}
	if (known_hosts_old(d, c, server, c->policy == POLICY_ACCEPT_CHANGED,
			    old, sizeof(old), err) < 0)
		return -1;
	if (c->policy != POLICY_ACCEPT_CHANGED)
		return al_errf(
		    err,
		    "%s: host key of %s port %u CHANGED: known_hosts "
		    "%s has %s, the server now offers %s; refused "
		    "(host_key_policy: %s; accept-changed takes the "
		    "new key, e.g. after a flash that made one)",
		    d->dev, c->host, c->port, c->known_hosts, old, now, policy);
	if (ssh_session_update_known_hosts(s) != SSH_OK)
		return al_errf(err,
			       "%s: host %s port %u: writing its new key to "
			       "known_hosts %s: %s",
			       d->dev, c->host, c->port, c->known_hosts,
			       ssh_get_error(s));
	fprintf(stderr,
		"%s: WARNING: HOST KEY OF %s PORT %u CHANGED: was %s, now %s; "
		"accepted (host_key_policy: accept-changed) and %s updated\n",
		d->dev, c->host, c->port, old, now, c->known_hosts);
	return 0;
}

/* The outcome of one attempt: connected, worth another try, or a failure
 * that retrying cannot fix (wrong host key, key refused). */
enum attempt { ATTEMPT_OK, ATTEMPT_RETRY, ATTEMPT_FATAL };

static enum attempt attempt(struct shell_dev *d, const struct open_cfg *c,
			    int timeout_ms, struct al_err *err)
{
	ssh_session s = ssh_new();
	ssh_key server = NULL;
	const char *algos = c->known ? hostkey_algorithms(c->known) : NULL;
	int no = 0, yes = 1, rc;

	if (!s) {
		al_errf(err, "%s: %s: out of memory for an SSH session", d->dev,
			d->where);
		return ATTEMPT_FATAL;
	}
	if (ssh_options_set(s, SSH_OPTIONS_HOST, c->host) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_PORT, &c->port) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_USER, c->user) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no) < 0 ||
	    /* request/reply traffic (SFTP writes, line protocols) must not
	     * wait on Nagle's algorithm */
	    ssh_options_set(s, SSH_OPTIONS_NODELAY, &yes) < 0 ||
	    /* hermetic: neither ~/.ssh/config nor ~/.ssh/known_hosts
	     * apply; a known_hosts file also steers the host key type */
	    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS,
			    c->known_hosts[0] ? c->known_hosts : "/dev/null") <
		0 ||
	    ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null") <
		0 ||
	    (algos && ssh_options_set(s, SSH_OPTIONS_HOSTKEYS, algos) < 0) ||
	    set_timeout(s, timeout_ms) < 0) {
		al_errf(err, "%s: %s: setting SSH options: %s", d->dev,
			d->where, ssh_get_error(s));
		ssh_free(s);
		return ATTEMPT_FATAL;
	}
	if (ssh_connect(s) != SSH_OK) {
		al_errf(err, "%s", ssh_get_error(s));
		ssh_free(s);
		return ATTEMPT_RETRY;
	}

	if (ssh_get_server_publickey(s, &server) < 0) {
		al_errf(err, "%s: %s: server sent no host key: %s", d->dev,
			d->where, ssh_get_error(s));
		goto fatal;
	}
	if (c->known && ssh_key_cmp(server, c->known, SSH_KEY_CMP_PUBLIC)) {
		char got[128], want[128];

		al_errf(err,
			"%s: host key mismatch at %s:%u: server has %s %s, %s "
			"pins %s %s",
			d->dev, c->host, c->port,
			ssh_key_type_to_char(ssh_key_type(server)),
			fingerprint(server, got, sizeof(got)), c->known_path,
			ssh_key_type_to_char(ssh_key_type(c->known)),
			fingerprint(c->known, want, sizeof(want)));
		goto fatal;
	}
	if (c->known_hosts[0] && check_known_hosts(d, c, s, server, err) < 0)
		goto fatal;
	ssh_key_free(server);
	server = NULL;

	rc = ssh_userauth_publickey(s, NULL, c->key);
	if (rc == SSH_AUTH_SUCCESS) {
		d->session = s;
		return ATTEMPT_OK;
	}
	if (rc == SSH_AUTH_ERROR) {
		/* the connection broke: the server may be restarting */
		al_errf(err, "authentication: %s", ssh_get_error(s));
		ssh_disconnect(s);
		ssh_free(s);
		return ATTEMPT_RETRY;
	}
	al_errf(err,
		"%s: authentication failed at %s: the server %s key %s "
		"(public-key login is the only one tried)",
		d->dev, d->where,
		rc == SSH_AUTH_PARTIAL ? "wants more than" : "refused",
		c->key_path);
fatal:
	ssh_key_free(server);
	ssh_disconnect(s);
	ssh_free(s);
	return ATTEMPT_FATAL;
}

static int read_config(struct open_cfg *c, struct shell_dev *d,
		       const struct drv_target *t, struct al_err *err)
{
	c->policy_setting = -1;
	if (drv_settings_read(t, settings, c, err) < 0)
		return -1;
	c->port = (unsigned int)c->port_setting;
	memcpy(d->exec_prefix, c->exec_prefix, sizeof(d->exec_prefix));
	d->connect_timeout_ms = c->connect_timeout_s * 1000;
	d->alive_timeout_ms = c->alive_timeout_s * 1000;
	snprintf(d->where, sizeof(d->where), "%.*s@%.*s:%u", LAB_NAME_MAX,
		 c->user, LAB_NAME_MAX, c->host, c->port);
	if (ssh_pki_import_privkey_file(c->key_path, NULL, NULL, NULL,
					&c->key) != SSH_OK)
		return al_errf(err,
			       "%s: shell key %s: cannot read a private key "
			       "without passphrase from it",
			       t->host->name, c->key_path);
	if (c->known_path[0] && c->known_hosts[0])
		return al_err_input(
		    err,
		    "%s:%d: %s: shell settings known_host_key and "
		    "known_hosts both given: pin one key or name a "
		    "known_hosts file, not both",
		    t->lab->path, t->binding->line, t->host->name);
	if (c->policy_setting >= 0 && !c->known_hosts[0])
		return al_err_input(
		    err,
		    "%s:%d: %s: shell setting host_key_policy needs "
		    "known_hosts (the file it applies to)",
		    t->lab->path, t->binding->line, t->host->name);
	if (c->known_hosts[0]) {
		c->policy = c->policy_setting >= 0
				? (enum host_key_policy)c->policy_setting
				: POLICY_STRICT;
		return 0;
	}
	if (!c->known_path[0]) {
		if (c->insecure)
			return 0;
		return al_err_input(
		    err,
		    "%s:%d: %s: shell setting known_host_key is "
		    "missing (the server's public host key file, "
		    "or known_hosts: an OpenSSH known_hosts file); "
		    "set insecure_accept_any_host_key: yes to skip "
		    "the check",
		    t->lab->path, t->binding->line, t->host->name);
	}
	if (ssh_pki_import_pubkey_file(c->known_path, &c->known) != SSH_OK)
		return al_errf(err,
			       "%s: shell known_host_key %s: no public key "
			       "line (\"ssh-ed25519 AAAA...\") readable in it",
			       t->host->name, c->known_path);
	return 0;
}

static void ssh_close_dev(struct shell_dev *d)
{
	if (!d)
		return;
	if (d->session) {
		ssh_disconnect(d->session);
		ssh_free(d->session);
	}
	free(d);
	ssh_finalize();
}

static int ssh_open(struct shell_dev **out, const struct drv_target *t,
		    int timeout_ms, struct al_err *err)
{
	struct open_cfg c = {0};
	struct shell_dev *d;
	struct al_err last = {0};
	int64_t deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	enum attempt a;

	*out = NULL;
	if (ssh_init() < 0)
		return al_errf(err, "%s: libssh initialisation failed",
			       t->host->name);
	d = calloc(1, sizeof(*d));
	if (!d) {
		ssh_finalize();
		return al_errf(err, "%s: out of memory", t->host->name);
	}
	snprintf(d->dev, sizeof(d->dev), "%s", t->host->name);
	if (read_config(&c, d, t, err) < 0)
		goto fail;

	/* Retry until the deadline: a booting host's sshd comes up late, and
	 * a port forwarder may accept and drop connections until then. */
	for (;;) {
		int64_t left = deadline - mono_ms();
		int per_try = d->connect_timeout_ms;

		if (left < per_try)
			per_try = left > 100 ? (int)left : 100;
		a = attempt(d, &c, per_try, &last);
		if (a == ATTEMPT_OK)
			break;
		if (a == ATTEMPT_FATAL) {
			*err = last;
			goto fail;
		}
		left = deadline - mono_ms();
		if (left <= 0) {
			char secs[32];

			al_errf(err,
				"%s: no SSH answer from %s within %s (last "
				"error: %.600s)",
				d->dev, d->where,
				fmt_seconds(secs, sizeof(secs),
					    timeout_ms > 0 ? timeout_ms : 0),
				last.msg);
			goto fail;
		}
		sleep_ms(left < RETRY_PAUSE_MS ? (int)left : RETRY_PAUSE_MS);
	}
	/* later requests (channel open, exec) get the full per-request time */
	set_timeout(d->session, d->connect_timeout_ms);
	ssh_set_counters(d->session, NULL, &d->rx);
	ssh_key_free(c.key);
	ssh_key_free(c.known);
	*out = d;
	return 0;
fail:
	ssh_key_free(c.key);
	ssh_key_free(c.known);
	ssh_close_dev(d);
	return -1;
}

/* One command's state, shared with the channel callbacks. */
struct run_state {
	int out_fd, err_fd;
	int write_errno; /* first failed write to out_fd/err_fd */
	int write_fd;
	int exit_status;
	bool got_status, closed;
	char signal[32];
};

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int on_data(ssh_session s, ssh_channel ch, void *data, uint32_t len,
		   int is_stderr, void *userdata)
{
	struct run_state *r = userdata;
	int fd = is_stderr ? r->err_fd : r->out_fd;

	(void)s;
	(void)ch;
	/* Always consume: a reader that went away must not stall the
	 * channel; the write error is reported when the command ends. */
	if (fd >= 0 && !r->write_errno && write_all(fd, data, len) < 0) {
		r->write_errno = errno;
		r->write_fd = fd;
	}
	return (int)len;
}

static void on_close(ssh_session s, ssh_channel ch, void *userdata)
{
	struct run_state *r = userdata;

	(void)s;
	(void)ch;
	r->closed = true;
}

static void on_exit_status(ssh_session s, ssh_channel ch, int status,
			   void *userdata)
{
	struct run_state *r = userdata;

	(void)s;
	(void)ch;
	r->got_status = true;
	r->exit_status = status;
}

static void on_exit_signal(ssh_session s, ssh_channel ch, const char *signal,
			   int core, const char *errmsg, const char *lang,
			   void *userdata)
{
	struct run_state *r = userdata;

	(void)s;
	(void)ch;
	(void)core;
	(void)errmsg;
	(void)lang;
	snprintf(r->signal, sizeof(r->signal), "%s", signal ? signal : "?");
}

/* Pumps stdin into the channel and the channel's output into the fds
 * (through on_data) until the server closes the channel. */
static int pump(struct shell_dev *d, ssh_channel ch, struct run_state *r,
		const char *cmd, const char *in, size_t in_len, int in_fd,
		struct al_err *err)
{
	/* Streamed stdin (in_fd) goes through this buffer; in/in_len point
	 * at it while a chunk is being written. */
	char chunk[16384];
	bool in_fd_open = in_fd >= 0;
	ssh_event ev = ssh_event_new();
	size_t in_off = 0;
	bool eof_sent = false;
	uint64_t seen = d->rx.in_packets;
	int64_t last_rx = mono_ms();
	int rc = -1;
	char secs[32];

	if (!ev || ssh_event_add_session(ev, d->session) != SSH_OK) {
		al_errf(err, "%s: %s: cannot poll the SSH session", d->dev,
			d->where);
		goto out;
	}
	while (!r->closed && !ssh_channel_is_closed(ch)) {
		int64_t now;

		/* stdin only as far as the server's window reaches, so
		 * writing never waits while output piles up */
		while (in_off < in_len && !ssh_channel_is_eof(ch)) {
			uint32_t win = ssh_channel_window_size(ch);
			size_t n = in_len - in_off;
			int w;

			if (win == 0)
				break;
			if (n > win)
				n = win;
			if (n > 65536)
				n = 65536;
			w = ssh_channel_write(ch, in + in_off, (uint32_t)n);
			if (w < 0) {
				/* the command may exit without reading all
				 * of its input: that is its business */
				if (ssh_channel_is_closed(ch) ||
				    ssh_channel_is_eof(ch))
					break;
				al_errf(err,
					"%s: %s: writing stdin of '%.200s': "
					"%s",
					d->dev, d->where, cmd,
					session_error(d));
				goto out;
			}
			if (w == 0)
				break;
			in_off += (size_t)w;
		}
		if (in_fd_open && in_off >= in_len) {
			struct pollfd pf = {in_fd, POLLIN, 0};
			ssize_t n = 0;

			if (poll(&pf, 1, 0) > 0) {
				n = read(in_fd, chunk, sizeof(chunk));
				if (n <= 0 && !(n < 0 && errno == EINTR))
					in_fd_open = false;
			}
			if (n > 0) {
				in = chunk;
				in_len = (size_t)n;
				in_off = 0;
				continue;
			}
		}
		if (!eof_sent && !in_fd_open &&
		    (in_off >= in_len || ssh_channel_is_eof(ch))) {
			if (ssh_channel_send_eof(ch) == SSH_ERROR &&
			    !ssh_channel_is_closed(ch)) {
				al_errf(err,
					"%s: %s: closing stdin of '%.200s': "
					"%s",
					d->dev, d->where, cmd,
					session_error(d));
				goto out;
			}
			eof_sent = true;
		}

		/* A streamed stdin is looked at every 10 ms. */
		if (ssh_event_dopoll(ev, in_fd_open ? 10 : 1000) == SSH_ERROR &&
		    ssh_get_status(d->session) &
			(SSH_CLOSED | SSH_CLOSED_ERROR)) {
			al_errf(err,
				"%s: %s: connection lost while running "
				"'%.200s': %s",
				d->dev, d->where, cmd, session_error(d));
			goto out;
		}
		if (ssh_get_status(d->session) &
		    (SSH_CLOSED | SSH_CLOSED_ERROR)) {
			al_errf(err,
				"%s: %s: connection closed while running "
				"'%.200s': %s",
				d->dev, d->where, cmd, session_error(d));
			goto out;
		}

		/* A silent command is fine, a silent server is not: probe it
		 * and give up when not even keepalive replies come back. */
		now = mono_ms();
		if (d->rx.in_packets != seen) {
			seen = d->rx.in_packets;
			last_rx = now;
		} else if (now - last_rx > d->alive_timeout_ms) {
			al_errf(err,
				"%s: %s: no answer from the server for %s "
				"while running '%.200s'",
				d->dev, d->where,
				fmt_seconds(secs, sizeof(secs),
					    d->alive_timeout_ms),
				cmd);
			goto out;
		} else if (now - last_rx > d->alive_timeout_ms / 4) {
			ssh_send_keepalive(d->session);
		}
	}
	rc = 0;
out:
	if (ev) {
		ssh_event_remove_session(ev, d->session);
		ssh_event_free(ev);
	}
	return rc;
}

static int ssh_exec(struct shell_dev *d, const char *cmd,
		    const void *stdin_data, size_t stdin_len, int in_fd,
		    int out_fd, int err_fd, int *exit_status,
		    struct al_err *err)
{
	struct run_state r = {
	    .out_fd = out_fd, .err_fd = err_fd, .exit_status = -1};
	struct ssh_channel_callbacks_struct cb = {
	    .userdata = &r,
	    .channel_data_function = on_data,
	    .channel_close_function = on_close,
	    .channel_exit_status_function = on_exit_status,
	    .channel_exit_signal_function = on_exit_signal,
	};
	ssh_channel ch;
	int rc = -1, status;
	char *wrapped = NULL;

	if (!stdin_data)
		stdin_len = 0;
	if (d->exec_prefix[0]) {
		size_t len = strlen(d->exec_prefix) + sh_quoted_len(cmd) + 16,
		       off;

		wrapped = malloc(len);
		if (!wrapped)
			return al_errf(err, "%s: out of memory", d->dev);
		off =
		    (size_t)snprintf(wrapped, len, "%s sh -c ", d->exec_prefix);
		sh_quote(wrapped, len, &off, cmd);
		cmd = wrapped;
	}
	ssh_callbacks_init(&cb);
	ch = ssh_channel_new(d->session);
	if (!ch) {
		free(wrapped);
		return al_errf(err, "%s: %s: cannot create an SSH channel: %s",
			       d->dev, d->where, session_error(d));
	}
	if (ssh_set_channel_callbacks(ch, &cb) != SSH_OK) {
		al_errf(err, "%s: %s: cannot set channel callbacks", d->dev,
			d->where);
		goto out;
	}
	/* open and exec block up to connect_timeout_s each */
	if (ssh_channel_open_session(ch) != SSH_OK) {
		al_errf(err, "%s: %s: opening a session channel: %s", d->dev,
			d->where, session_error(d));
		goto out;
	}
	if (ssh_channel_request_exec(ch, cmd) != SSH_OK) {
		al_errf(err, "%s: %s: exec '%.200s' refused: %s", d->dev,
			d->where, cmd, session_error(d));
		goto out;
	}

	ssh_set_blocking(d->session, 0);
	rc = pump(d, ch, &r, cmd, stdin_data, stdin_len, in_fd, err);
	ssh_set_blocking(d->session, 1);
	if (rc < 0)
		goto out;
	rc = -1;

	/* The channel is closed: this returns what arrived, without waiting. */
	status = ssh_channel_get_exit_status(ch);
	if (r.signal[0]) {
		al_errf(err, "%s: %s: '%.200s' was killed by signal %s", d->dev,
			d->where, cmd, r.signal);
		goto out;
	}
	if (!r.got_status && status < 0) {
		al_errf(err, "%s: %s: '%.200s' ended without an exit status",
			d->dev, d->where, cmd);
		goto out;
	}
	if (r.write_errno) {
		al_errf(err, "%s: %s: output of '%.200s' to fd %d: %s", d->dev,
			d->where, cmd, r.write_fd, strerror(r.write_errno));
		goto out;
	}
	*exit_status = r.got_status ? r.exit_status : status;
	rc = 0;
out:
	ssh_remove_channel_callbacks(ch, &cb);
	ssh_channel_close(ch);
	ssh_channel_free(ch);
	free(wrapped);
	return rc;
}

static int ssh_run(struct shell_dev *d, const char *cmd, const void *stdin_data,
		   size_t stdin_len, int out_fd, int err_fd, int *exit_status,
		   struct al_err *err)
{
	return ssh_exec(d, cmd, stdin_data, stdin_len, -1, out_fd, err_fd,
			exit_status, err);
}

static int ssh_stream(struct shell_dev *d, const char *cmd, int in_fd,
		      int out_fd, int err_fd, int *exit_status,
		      struct al_err *err)
{
	return ssh_exec(d, cmd, NULL, 0, in_fd, out_fd, err_fd, exit_status,
			err);
}

/* ---- upload ---- */

/* One SFTP request at a time: 32 KiB is what every server takes. */
#define UPLOAD_CHUNK 32768

static const char *sftp_error_text(sftp_session sf)
{
	switch (sftp_get_error(sf)) {
	case SSH_FX_EOF:
		return "end of file";
	case SSH_FX_NO_SUCH_FILE:
		return "no such file or directory";
	case SSH_FX_PERMISSION_DENIED:
		return "permission denied";
	case SSH_FX_FAILURE:
		return "failure (the server gives no reason: a full disk?)";
	case SSH_FX_BAD_MESSAGE:
		return "bad message";
	case SSH_FX_NO_CONNECTION:
	case SSH_FX_CONNECTION_LOST:
		return "connection lost";
	case SSH_FX_OP_UNSUPPORTED:
		return "operation unsupported";
	case SSH_FX_NO_SUCH_PATH:
		return "no such path";
	case SSH_FX_WRITE_PROTECT:
		return "write protected";
	default:
		return ssh_get_error(sf->session);
	}
}

/* Without SFTP: `cat > remote` over exec with the file as stdin, then the
 * mode set and the size read back. */
static int upload_by_cat(struct shell_dev *d, int fd, const char *remote,
			 int mode, long long size, struct al_err *err)
{
	size_t qlen = sh_quoted_len(remote);
	size_t len = 3 * qlen + 96, off = 0;
	char *cmd = malloc(len), got[64] = "";
	FILE *out = tmpfile();
	int status = -1, rc = -1;

	if (!cmd || !out) {
		al_errf(err, "%s: %s: upload of %s: out of memory", d->dev,
			d->where, remote);
		goto done;
	}
	off = (size_t)snprintf(cmd, len, "umask 077 && cat > ");
	sh_quote(cmd, len, &off, remote);
	off += (size_t)snprintf(cmd + off, len - off, " && chmod %o ", mode);
	sh_quote(cmd, len, &off, remote);
	off += (size_t)snprintf(cmd + off, len - off, " && wc -c < ");
	sh_quote(cmd, len, &off, remote);
	if (ssh_exec(d, cmd, NULL, 0, fd, fileno(out), fileno(out), &status,
		     err) < 0) {
		al_err_prefix(err, "upload of %s with cat", remote);
		goto done;
	}
	rewind(out);
	if (!fgets(got, sizeof(got), out))
		got[0] = 0;
	got[strcspn(got, "\r\n")] = 0;
	if (status != 0) {
		al_errf(err,
			"%s: %s: upload of %s with cat failed (exit %d): %s",
			d->dev, d->where, remote, status, got);
		goto done;
	}
	if (strtoll(got, NULL, 10) != size) {
		al_errf(err,
			"%s: %s: upload of %s with cat: the remote file has %s "
			"bytes, the local one %lld",
			d->dev, d->where, remote, got, size);
		goto done;
	}
	rc = 0;
done:
	if (out)
		fclose(out);
	free(cmd);
	return rc;
}

static int sftp_send(struct shell_dev *d, sftp_session sf, int fd,
		     const char *local, const char *remote, int mode,
		     long long size, shell_progress_fn progress,
		     void *progress_ctx, struct al_err *err)
{
	char *buf = malloc(UPLOAD_CHUNK);
	sftp_file f = NULL;
	sftp_attributes a = NULL;
	long long done = 0;
	int rc = -1;

	if (!buf) {
		al_errf(err, "%s: upload of %s: out of memory", d->dev, local);
		goto out;
	}
	f = sftp_open(sf, remote, O_WRONLY | O_CREAT | O_TRUNC, (mode_t)mode);
	if (!f) {
		al_errf(err, "%s: %s: SFTP: creating %s: %s", d->dev, d->where,
			remote, sftp_error_text(sf));
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf, UPLOAD_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			al_errf(err, "%s: upload: reading %s: %s", d->dev,
				local, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (sftp_write(f, buf, (size_t)n) != n) {
			al_errf(err,
				"%s: %s: SFTP: writing %s at byte %lld: %s",
				d->dev, d->where, remote, done,
				sftp_error_text(sf));
			goto out;
		}
		done += n;
		if (progress)
			progress(progress_ctx, done, size);
	}
	rc = sftp_close(f);
	f = NULL;
	if (rc != SSH_NO_ERROR) {
		rc = -1;
		al_errf(err, "%s: %s: SFTP: closing %s: %s", d->dev, d->where,
			remote, sftp_error_text(sf));
		goto out;
	}
	rc = -1;
	if (sftp_chmod(sf, remote, (mode_t)mode) < 0) {
		al_errf(err, "%s: %s: SFTP: chmod %o %s: %s", d->dev, d->where,
			mode, remote, sftp_error_text(sf));
		goto out;
	}
	a = sftp_stat(sf, remote);
	if (!a) {
		al_errf(err, "%s: %s: SFTP: stat %s after the upload: %s",
			d->dev, d->where, remote, sftp_error_text(sf));
		goto out;
	}
	if ((long long)a->size != size || done != size) {
		al_errf(err,
			"%s: %s: SFTP: %s has %llu bytes after the upload, %s "
			"has %lld",
			d->dev, d->where, remote, (unsigned long long)a->size,
			local, size);
		goto out;
	}
	rc = 0;
out:
	if (a)
		sftp_attributes_free(a);
	if (f)
		sftp_close(f);
	free(buf);
	return rc;
}

/* Whether the server answers SFTP's version handshake: a subsystem channel
 * gets SSH_FXP_INIT and must send something back within the request
 * time. libssh's sftp_init() spins forever on a server that accepts the
 * subsystem but whose sftp-server is missing (dropbear, as OpenWrt ships
 * it, runs the missing program and closes the channel), so it is only
 * called after this said yes. */
static bool sftp_answers(struct shell_dev *d, char *why, size_t len)
{
	static const unsigned char init[9] = {0, 0, 0, 5, 1, 0, 0, 0, 3};
	unsigned char reply[4];
	ssh_channel ch = ssh_channel_new(d->session);
	int n = -1;

	snprintf(why, len, "the subsystem request was refused");
	if (ch && ssh_channel_open_session(ch) == SSH_OK &&
	    ssh_channel_request_subsystem(ch, "sftp") == SSH_OK &&
	    ssh_channel_write(ch, init, sizeof(init)) == (int)sizeof(init)) {
		n = ssh_channel_read_timeout(ch, reply, sizeof(reply), 0,
					     d->connect_timeout_ms);
		snprintf(why, len, "%s",
			 n > 0	  ? ""
			 : n == 0 ? "the subsystem closed without a version"
				  : session_error(d));
	}
	if (ch) {
		ssh_channel_close(ch);
		ssh_channel_free(ch);
	}
	return n > 0;
}

static int ssh_upload(struct shell_dev *d, const char *local,
		      const char *remote, int mode, shell_progress_fn progress,
		      void *progress_ctx, struct al_err *err)
{
	int fd = open(local, O_RDONLY | O_CLOEXEC);
	sftp_session sf = NULL;
	struct stat st;
	int rc = -1;
	char why[256];
	bool have_sftp;

	if (fd < 0)
		return al_errf(err, "%s: upload: %s: %s", d->dev, local,
			       strerror(errno));
	if (fstat(fd, &st) < 0) {
		al_errf(err, "%s: upload: %s: %s", d->dev, local,
			strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		al_errf(err, "%s: upload: %s is not a regular file", d->dev,
			local);
		goto out;
	}
	have_sftp = sftp_answers(d, why, sizeof(why));
	if (have_sftp) {
		sf = sftp_new(d->session);
		if (!sf || sftp_init(sf) != SSH_OK) {
			have_sftp = false;
			snprintf(why, sizeof(why), "%s",
				 sf ? sftp_error_text(sf) : session_error(d));
			if (!why[0])
				snprintf(why, sizeof(why), "%s",
					 session_error(d));
			if (sf)
				sftp_free(sf);
			sf = NULL;
		}
	}
	if (!have_sftp) {
		if (ssh_get_status(d->session) &
		    (SSH_CLOSED | SSH_CLOSED_ERROR)) {
			al_errf(err,
				"%s: %s: connection lost before uploading "
				"%s: %s",
				d->dev, d->where, remote, why);
			goto out;
		}
		fprintf(stderr,
			"%s: %s has no SFTP subsystem (%s): uploading %s with "
			"'cat >' over exec instead\n",
			d->dev, d->where, why, remote);
		rc = upload_by_cat(d, fd, remote, mode, (long long)st.st_size,
				   err);
		if (rc == 0 && progress)
			progress(progress_ctx, (long long)st.st_size,
				 (long long)st.st_size);
		goto out;
	}
	rc = sftp_send(d, sf, fd, local, remote, mode, (long long)st.st_size,
		       progress, progress_ctx, err);
out:
	if (sf)
		sftp_free(sf);
	close(fd);
	return rc;
}

const struct shell_ops shell_ssh_ops = {
    .name = "ssh",
    .open = ssh_open,
    .run = ssh_run,
    .stream = ssh_stream,
    .upload = ssh_upload,
    .close = ssh_close_dev,
    .settings = settings,
};
