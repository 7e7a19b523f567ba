#include "topology.h"
#include "ydoc.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Radios, RF paths and links end up in interface, phy and netns commands
 * inside the guest: keep them to plain tokens. */
#define TOKEN_EXTRA "_.:-"

static const char *const top_keys[] = {"cell", "ap", "server", "stations",
				       NULL};
static const char *const ap_keys[] = {"host",	    "radio",   "ssid",
				      "passphrase", "channel", "basic_rates",
				      "ht",	    "address", NULL};
static const char *const server_keys[] = {"host", "link", "address", NULL};
static const char *const station_keys[] = {
    "name",    "host",	  "radio", "path", "base_loss_db", "ht", "passphrase",
    "address", "gateway", "count", NULL};

/* WPA2-PSK passphrase: 8..63 printable ASCII characters. */
static int passphrase_ok(const char *p)
{
	size_t n = strlen(p);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] > 0x7e)
			return 0;
	return n >= 8 && n <= 63;
}

/* A dotted IPv4 address. */
static int ipv4_ok(const char *v)
{
	struct in_addr a;

	return inet_pton(AF_INET, v, &a) == 1;
}

/* "10.42.0.63/24": a dotted IPv4 address and a prefix of 1..32. */
static int ipv4_cidr_ok(const char *v)
{
	char addr[16];
	const char *slash = strchr(v, '/');
	char *end;
	long plen;

	if (!slash || (size_t)(slash - v) >= sizeof(addr))
		return 0;
	memcpy(addr, v, (size_t)(slash - v));
	addr[slash - v] = '\0';
	plen = strtol(slash + 1, &end, 10);
	return ipv4_ok(addr) && slash[1] && !*end && plen >= 1 && plen <= 32;
}

/* "basic_rates: 6 12 24": BSS basic rates in Mb/s, each a legacy rate of
 * the AP's band (DSSS/CCK only at 2.4 GHz). A fixed rate set with `iw set
 * bitrates` must include one of them, or mac80211 drops the mask. */
static int load_basic_rates(struct topology *t, struct ydoc *d, yaml_node_t *ap,
			    struct al_err *err)
{
	/* Spelled as here: no "6.0", no hex (strtod would take both). */
	static const char *const names[] = {"1",  "2",	"5.5", "11",
					    "6",  "9",	"12",  "18",
					    "24", "36", "48",  "54"};
	static const int units[] = {10,	 20,  55,  110, 60,  90,
				    120, 180, 240, 360, 480, 540};
	char text[128], *save = NULL;
	int first = t->ap.channel <= 14 ? 0 : 4; /* 5 GHz: OFDM only */

	t->ap.nbasic_rates = 0;
	if (ydoc_get_str(d, ap, "basic_rates", "ap", 0, text, sizeof(text),
			 err) < 0)
		return -1;
	for (char *tok = strtok_r(text, " ,", &save); tok;
	     tok = strtok_r(NULL, " ,", &save)) {
		int r = -1;

		for (int i = first; i < 12; i++)
			if (!strcmp(tok, names[i]))
				r = units[i];
		if (r < 0)
			return ydoc_errf(
			    d, ydoc_get(d, ap, "basic_rates", NULL), err,
			    "ap: basic rate '%s' is not a legacy rate of "
			    "channel %d (Mb/s: %s6 9 12 18 24 36 48 54)",
			    tok, t->ap.channel, first ? "" : "1 2 5.5 11 ");
		if (t->ap.nbasic_rates == 12)
			return ydoc_errf(d,
					 ydoc_get(d, ap, "basic_rates", NULL),
					 err, "ap: more than 12 basic rates");
		t->ap.basic_rates[t->ap.nbasic_rates++] = r;
	}
	if (ydoc_get(d, ap, "basic_rates", NULL) && !t->ap.nbasic_rates)
		return ydoc_errf(d, ydoc_get(d, ap, "basic_rates", NULL), err,
				 "ap: basic_rates is empty");
	return 0;
}

static int channel_ok(long c)
{
	if (c >= 1 && c <= 14)
		return 1;
	/* 5 GHz 20 MHz channels: UNII-1/2 36..64, 2e 100..144, 3/4
	 * 149..177, all 4 apart. */
	if (c >= 36 && c <= 64)
		return c % 4 == 0;
	if (c >= 100 && c <= 144)
		return c % 4 == 0;
	if (c >= 149 && c <= 177)
		return c % 4 == 1;
	return 0;
}

/* A host the topology names: a lab host name, and in the lab when given. */
static int check_host(struct ydoc *d, yaml_node_t *map, const char *what,
		      const char *host, const struct lab *lab,
		      struct al_err *err)
{
	yaml_node_t *v = ydoc_get(d, map, "host", NULL);
	char have[512];
	size_t off = 0;

	if (!ydoc_name_ok(host, LAB_NAME_MAX - 1, "_-", 0))
		return ydoc_errf(d, v, err,
				 "%s: host '%s' is not a host name "
				 "([A-Za-z0-9_-])",
				 what, host);
	if (!lab || lab_host_find(lab, host))
		return 0;
	have[0] = 0;
	for (int i = 0; i < lab->nhosts && off < sizeof(have); i++) {
		int n = snprintf(have + off, sizeof(have) - off, "%s%s",
				 i ? ", " : "", lab->hosts[i].name);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return ydoc_errf(
	    d, v, err, "%s: unknown host '%s' (lab file %.300s has: %s)", what,
	    host, lab->path, lab->nhosts ? have : "no hosts");
}

static int check_token(struct ydoc *d, yaml_node_t *map, const char *what,
		       const char *key, const char *s, struct al_err *err)
{
	if (ydoc_name_ok(s, LAB_NAME_MAX - 1, TOKEN_EXTRA, 0))
		return 0;
	return ydoc_errf(d, ydoc_get(d, map, key, NULL), err,
			 "%s: %s '%s' must be of [A-Za-z0-9_.:-]", what, key,
			 s);
}

/* "ht: false": an 802.11a/b/g radio; absent or true: HT (802.11n). */
static int load_ht(struct ydoc *d, yaml_node_t *map, const char *what, int *ht,
		   struct al_err *err)
{
	char v[16];

	if (ydoc_get_str(d, map, "ht", what, 0, v, sizeof(v), err) < 0)
		return -1;
	if (!v[0] || !strcmp(v, "true"))
		*ht = 1;
	else if (!strcmp(v, "false"))
		*ht = 0;
	else
		return ydoc_errf(d, ydoc_get(d, map, "ht", NULL), err,
				 "%s: ht '%s' is not true or false", what, v);
	return 0;
}

static int load_ap(struct topology *t, struct ydoc *d, yaml_node_t *ap,
		   const struct lab *lab, struct al_err *err)
{
	char num[64];
	long ch;

	if (ydoc_check_map(d, ap, "ap", ap_keys, 8, "keys", err) < 0 ||
	    ydoc_get_str(d, ap, "host", "ap", 1, t->ap.host, sizeof(t->ap.host),
			 err) < 0 ||
	    ydoc_get_str(d, ap, "radio", "ap", 1, t->ap.radio,
			 sizeof(t->ap.radio), err) < 0 ||
	    ydoc_get_str(d, ap, "ssid", "ap", 1, t->ap.ssid, sizeof(t->ap.ssid),
			 err) < 0 ||
	    ydoc_get_str(d, ap, "passphrase", "ap", 1, t->ap.passphrase,
			 sizeof(t->ap.passphrase), err) < 0 ||
	    ydoc_get_str(d, ap, "channel", "ap", 1, num, sizeof(num), err) < 0)
		return -1;
	if (check_host(d, ap, "ap", t->ap.host, lab, err) < 0 ||
	    check_token(d, ap, "ap", "radio", t->ap.radio, err) < 0)
		return -1;
	/* ydoc_get_str already caps the SSID at 32 bytes. */
	if (!t->ap.ssid[0])
		return ydoc_errf(d, ydoc_get(d, ap, "ssid", NULL), err,
				 "ap: ssid must be 1..32 bytes");
	if (!passphrase_ok(t->ap.passphrase))
		return ydoc_errf(d, ydoc_get(d, ap, "passphrase", NULL), err,
				 "ap: passphrase must be 8..63 printable "
				 "ASCII characters (WPA2-PSK)");
	if (ydoc_parse_long(num, &ch) < 0 || !channel_ok(ch))
		return ydoc_errf(d, ydoc_get(d, ap, "channel", NULL), err,
				 "ap: channel '%s' is not a WiFi channel "
				 "(1..14, or 5 GHz 36..64/100..144 step 4, "
				 "149..177 step 4)",
				 num);
	t->ap.channel = (int)ch;
	if (load_ht(d, ap, "ap", &t->ap.ht, err) < 0 ||
	    ydoc_get_str(d, ap, "address", "ap", 0, t->ap.address,
			 sizeof(t->ap.address), err) < 0)
		return -1;
	if (ydoc_get(d, ap, "address", NULL) && !ipv4_cidr_ok(t->ap.address))
		return ydoc_errf(d, ydoc_get(d, ap, "address", NULL), err,
				 "ap: address '%s' is not an IPv4 "
				 "address/prefix (10.42.0.1/24)",
				 t->ap.address);
	return load_basic_rates(t, d, ap, err);
}

static int load_server(struct topology *t, struct ydoc *d, yaml_node_t *srv,
		       const struct lab *lab, struct al_err *err)
{
	if (ydoc_check_map(d, srv, "server", server_keys, 3, "keys", err) < 0 ||
	    ydoc_get_str(d, srv, "host", "server", 1, t->server.host,
			 sizeof(t->server.host), err) < 0 ||
	    ydoc_get_str(d, srv, "link", "server", 1, t->server.link,
			 sizeof(t->server.link), err) < 0)
		return -1;
	if (check_host(d, srv, "server", t->server.host, lab, err) < 0 ||
	    ydoc_get_str(d, srv, "address", "server", 0, t->server.address,
			 sizeof(t->server.address), err) < 0)
		return -1;
	if (ydoc_get(d, srv, "address", NULL) && !ipv4_ok(t->server.address))
		return ydoc_errf(d, ydoc_get(d, srv, "address", NULL), err,
				 "server: address '%s' is not an IPv4 address",
				 t->server.address);
	return check_token(d, srv, "server", "link", t->server.link, err);
}

/* "$n" in a station entry's name, radio or path stands for the station's
 * 1-based position in the whole list, so one entry with "count:" writes
 * many stations (sta$n on radio$n: sta1..sta29 on radio1..radio29). */
static int expand_position(const char *in, int pos, char *out, size_t outlen)
{
	size_t o = 0;

	for (const char *p = in; *p;) {
		int w;

		if (!strncmp(p, "$n", 2)) {
			w = snprintf(out + o, outlen - o, "%d", pos);
			p += 2;
		} else {
			w = snprintf(out + o, outlen - o, "%c", *p++);
		}
		if (w < 0 || (size_t)w >= outlen - o)
			return -1;
		o += (size_t)w;
	}
	out[o] = '\0';
	return 0;
}

static int expand_key(struct ydoc *d, yaml_node_t *n, const char *what,
		      const char *key, int pos, char *out, size_t outlen,
		      struct al_err *err)
{
	char raw[LAB_NAME_MAX];

	if (ydoc_get_str(d, n, key, what, 1, raw, sizeof(raw), err) < 0)
		return -1;
	if (!strstr(raw, "$n"))
		return ydoc_get_str(d, n, key, what, 1, out, outlen, err);
	if (expand_position(raw, pos, out, outlen) < 0)
		return ydoc_errf(d, ydoc_get(d, n, key, NULL), err,
				 "%s: %s '%s' is too long for station %d "
				 "(at most %zu characters)",
				 what, key, raw, pos, outlen - 1);
	return 0;
}

/* Station entry n's "count:" (default 1): how many stations it writes. */
static int station_count(struct ydoc *d, yaml_node_t *n, int idx, int *count,
			 struct al_err *err)
{
	char what[64];
	char num[32];
	long c;

	snprintf(what, sizeof(what), "station %d", idx + 1);
	*count = 1;
	if (ydoc_check_map(d, n, what, station_keys, 10, "keys", err) < 0 ||
	    ydoc_get_str(d, n, "count", what, 0, num, sizeof(num), err) < 0)
		return -1;
	if (!ydoc_get(d, n, "count", NULL))
		return 0;
	if (ydoc_parse_long(num, &c) < 0 || c < 1 || c > TOPO_MAX_STATIONS)
		return ydoc_errf(d, ydoc_get(d, n, "count", NULL), err,
				 "%s: count '%s' is not a number of stations "
				 "in 1..%d",
				 what, num, TOPO_MAX_STATIONS);
	if (c > 1 && ydoc_get(d, n, "address", NULL))
		return ydoc_errf(d, ydoc_get(d, n, "address", NULL), err,
				 "%s: address: names one station's address; "
				 "write stations with addresses one by one, "
				 "not with count: %ld",
				 what, c);
	*count = (int)c;
	return 0;
}

/* Loads station entry n as the station at 1-based position pos (the
 * entry's count > 1: every position it writes). */
static int load_station(struct topology *t, struct ydoc *d, yaml_node_t *n,
			int idx, int count, const struct lab *lab,
			struct al_err *err)
{
	struct topo_station *s = &t->stations[t->nstations];
	int pos = t->nstations + 1;
	char what[64];
	char num[64];

	snprintf(what, sizeof(what), "station %d", idx + 1);
	s->line = ydoc_line(n);
	if (expand_key(d, n, what, "name", pos, s->name, sizeof(s->name), err) <
	    0)
		return -1;
	if (count > 1 &&
	    !strstr(ydoc_scalar(ydoc_get(d, n, "name", NULL)), "$n"))
		return ydoc_errf(d, ydoc_get(d, n, "name", NULL), err,
				 "%s: count: %d needs $n (the station's "
				 "position) in name '%s'",
				 what, count, s->name);
	if (!ydoc_name_ok(s->name, sizeof(s->name) - 1, "_-", 1))
		return ydoc_errf(d, ydoc_get(d, n, "name", NULL), err,
				 "%s: name '%s' must be 1..15 characters of "
				 "[a-z0-9_-] (it names a network namespace)",
				 what, s->name);
	snprintf(what, sizeof(what), "station %s", s->name);
	if (ydoc_get_str(d, n, "host", what, 1, s->host, sizeof(s->host), err) <
		0 ||
	    expand_key(d, n, what, "radio", pos, s->radio, sizeof(s->radio),
		       err) < 0 ||
	    expand_key(d, n, what, "path", pos, s->path, sizeof(s->path), err) <
		0 ||
	    ydoc_get_str(d, n, "base_loss_db", what, 1, num, sizeof(num), err) <
		0)
		return -1;
	if (check_host(d, n, what, s->host, lab, err) < 0 ||
	    check_token(d, n, what, "radio", s->radio, err) < 0 ||
	    check_token(d, n, what, "path", s->path, err) < 0)
		return -1;
	if (ydoc_parse_double(num, &s->base_loss_db) < 0 ||
	    s->base_loss_db < 0 || s->base_loss_db > 200)
		return ydoc_errf(d, ydoc_get(d, n, "base_loss_db", NULL), err,
				 "%s: base_loss_db '%s' is not a number of dB "
				 "in 0..200",
				 what, num);
	if (load_ht(d, n, what, &s->ht, err) < 0)
		return -1;
	/* A station's own passphrase (station hosts only): "" = the AP's. */
	if (ydoc_get_str(d, n, "passphrase", what, 0, s->passphrase,
			 sizeof(s->passphrase), err) < 0)
		return -1;
	if (ydoc_get(d, n, "passphrase", NULL) && !passphrase_ok(s->passphrase))
		return ydoc_errf(d, ydoc_get(d, n, "passphrase", NULL), err,
				 "%s: passphrase must be 8..63 printable "
				 "ASCII characters (WPA2-PSK)",
				 what);
	if (ydoc_get_str(d, n, "address", what, 0, s->address,
			 sizeof(s->address), err) < 0 ||
	    ydoc_get_str(d, n, "gateway", what, 0, s->gateway,
			 sizeof(s->gateway), err) < 0)
		return -1;
	if (ydoc_get(d, n, "address", NULL) && !ipv4_cidr_ok(s->address))
		return ydoc_errf(d, ydoc_get(d, n, "address", NULL), err,
				 "%s: address '%s' is not an IPv4 "
				 "address/prefix (10.42.0.63/24)",
				 what, s->address);
	if (ydoc_get(d, n, "gateway", NULL)) {
		if (!ipv4_ok(s->gateway))
			return ydoc_errf(d, ydoc_get(d, n, "gateway", NULL),
					 err,
					 "%s: gateway '%s' is not an IPv4 "
					 "address",
					 what, s->gateway);
		if (!s->address[0])
			return ydoc_errf(d, ydoc_get(d, n, "gateway", NULL),
					 err,
					 "%s: gateway: needs address:", what);
	}

	for (int i = 0; i < t->nstations; i++) {
		const struct topo_station *o = &t->stations[i];

		if (!strcmp(o->name, s->name))
			return ydoc_errf(d, ydoc_get(d, n, "name", NULL), err,
					 "duplicate station name '%s' (first "
					 "at line %d)",
					 s->name, o->line);
		if (!strcmp(o->host, s->host) && !strcmp(o->radio, s->radio))
			return ydoc_errf(d, ydoc_get(d, n, "radio", NULL), err,
					 "%s: radio '%s' on host %s is already "
					 "used by station %s (line %d)",
					 what, s->radio, s->host, o->name,
					 o->line);
	}
	if (!strcmp(t->ap.host, s->host) && !strcmp(t->ap.radio, s->radio))
		return ydoc_errf(d, ydoc_get(d, n, "radio", NULL), err,
				 "%s: radio '%s' on host %s is the AP's radio "
				 "(line %d)",
				 what, s->radio, s->host, t->ap.line);
	t->nstations++;
	return 0;
}

static int topo_from_doc(struct topology *t, struct ydoc *d,
			 const struct lab *lab, struct al_err *err)
{
	yaml_node_t *root = ydoc_root(d);
	yaml_node_t *n;
	int len;

	if (!root)
		return al_errf(err,
			       "%s:1: empty file: expected a map with "
			       "'cell:', 'ap:', 'server:' and 'stations:'",
			       t->path);
	if (ydoc_check_map(d, root, "topology", top_keys, 4, "keys", err) < 0 ||
	    ydoc_get_str(d, root, "cell", "topology", 1, t->name,
			 sizeof(t->name), err) < 0)
		return -1;
	if (!ydoc_name_ok(t->name, LAB_NAME_MAX - 1, "_-", 0))
		return ydoc_errf(d, ydoc_get(d, root, "cell", NULL), err,
				 "cell name '%s' must be of [A-Za-z0-9_-]",
				 t->name);

	n = ydoc_get(d, root, "ap", &t->ap.line);
	if (!n)
		return ydoc_errf(d, root, err, "topology: 'ap' is missing");
	if (load_ap(t, d, n, lab, err) < 0)
		return -1;

	n = ydoc_get(d, root, "server", &t->server.line);
	if (!n)
		return ydoc_errf(d, root, err, "topology: 'server' is missing");
	if (load_server(t, d, n, lab, err) < 0)
		return -1;

	n = ydoc_get(d, root, "stations", NULL);
	if (!n)
		return ydoc_errf(d, root, err,
				 "topology: 'stations' is missing");
	if (ydoc_is_null(n) ||
	    (n->type == YAML_SEQUENCE_NODE &&
	     n->data.sequence.items.top == n->data.sequence.items.start))
		return ydoc_errf(d, n, err,
				 "stations: at least one station is needed");
	if (n->type != YAML_SEQUENCE_NODE)
		return ydoc_errf(d, n, err, "stations must be a list, not %s",
				 ydoc_kind(n));
	len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
	for (int i = 0; i < len; i++) {
		yaml_node_t *item = yaml_document_get_node(
		    &d->doc, n->data.sequence.items.start[i]);
		int count;

		if (station_count(d, item, i, &count, err) < 0)
			return -1;
		for (int k = 0; k < count; k++) {
			if (t->nstations >= TOPO_MAX_STATIONS)
				return ydoc_errf(d, item, err,
						 "stations: too many stations "
						 "(at most %d)",
						 TOPO_MAX_STATIONS);
			if (load_station(t, d, item, i, count, lab, err) < 0)
				return -1;
		}
	}
	return 0;
}

static int topo_finish(struct topology *t, struct ydoc *d, int rc,
		       const struct lab *lab, struct al_err *err)
{
	if (rc == 0)
		rc = topo_from_doc(t, d, lab, err);
	ydoc_free(d);
	return rc;
}

int topology_load_buf(struct topology *t, const char *name, const void *buf,
		      size_t len, const struct lab *lab, struct al_err *err)
{
	struct ydoc d;

	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", name);
	return topo_finish(t, &d, ydoc_load_buf(&d, name, buf, len, err), lab,
			   err);
}

int topology_load(struct topology *t, const char *path, const struct lab *lab,
		  struct al_err *err)
{
	struct ydoc d;

	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", path);
	return topo_finish(t, &d, ydoc_load_file(&d, path, err), lab, err);
}
