#include "cell.h"
#include "../util/shquote.h"

#include <stdio.h>
#include <string.h>

int cell_load(struct cell *c, const struct cell_paths *p, struct al_err *err)
{
	memset(c, 0, sizeof(*c));
	if (lab_load(&c->lab, p->lab, err) < 0)
		return -1;
	if (topology_load(&c->topo, p->topology, &c->lab, err) < 0)
		goto fail;
	if (variant_load(&c->variant, p->variant_dir, p->variant, err) < 0)
		goto fail;
	c->ap_host = lab_host_find(&c->lab, c->topo.ap.host);
	if (!c->ap_host) {
		al_errf(err, "%s:%d: AP host '%s' is not in %s", c->topo.path,
			c->topo.ap.line, c->topo.ap.host, c->lab.path);
		goto fail;
	}
	/* The AP's host brings up its own stations from cell.conf; a
	 * station on another host is a station host's (stahost.h), which
	 * airlab reaches over that host's shell. */
	for (int i = 0; i < c->topo.nstations; i++) {
		const struct topo_station *s = &c->topo.stations[i];
		const struct lab_host *h = lab_host_find(&c->lab, s->host);

		if (cell_station_local(c, s)) {
			/* The AP's host sets its stations up itself. */
			const char *key = s->passphrase[0] ? "passphrase"
					  : s->address[0]  ? "address"
							   : NULL;

			if (key) {
				al_errf(err,
					"%s:%d: station %s: %s: is only for "
					"stations on a station host (%s is "
					"the AP's host)",
					c->topo.path, s->line, s->name, key,
					s->host);
				goto fail;
			}
		} else if (h && !h->shell.driver[0]) {
			al_errf(err,
				"%s:%d: station %s is on host '%s', which has "
				"no shell: binding in %s",
				c->topo.path, s->line, s->name, s->host,
				c->lab.path);
			goto fail;
		}
	}
	return 0;
fail:
	lab_free(&c->lab);
	return -1;
}

void cell_free(struct cell *c)
{
	lab_free(&c->lab);
}

bool cell_ap_by_image(const struct cell *c)
{
	const struct ap_ops *ap = ap_driver(c->ap_host->ap.driver, NULL);

	return ap && ap->stations;
}

bool cell_station_local(const struct cell *c, const struct topo_station *s)
{
	return strcmp(s->host, c->topo.ap.host) == 0;
}

/* Appends KEY='value' (sh-quoted) and a newline. */
static int conf_put(char *buf, size_t len, size_t *off, const char *key,
		    const char *value)
{
	int n = snprintf(buf + *off, len - *off, "%s=", key);
	if (n < 0 || (size_t)n >= len - *off)
		return -1;
	*off += (size_t)n;
	if (sh_quote(buf, len, off, value) < 0 || *off + 2 > len)
		return -1;
	buf[(*off)++] = '\n';
	buf[*off] = 0;
	return 0;
}

/* AIRLAB_<KIND>_<k>_NAME, _PATH and _LOSS_DB of the radio station s
 * drives: where the medium puts it. */
static int conf_put_radio(char *buf, size_t len, size_t *off, const char *kind,
			  int k, const struct topo_station *s)
{
	char key[64], val[32];
	int bad = 0;

	snprintf(key, sizeof(key), "AIRLAB_%s_%d_NAME", kind, k);
	bad |= conf_put(buf, len, off, key, s->name);
	snprintf(key, sizeof(key), "AIRLAB_%s_%d_PATH", kind, k);
	bad |= conf_put(buf, len, off, key, s->path);
	snprintf(key, sizeof(key), "AIRLAB_%s_%d_LOSS_DB", kind, k);
	snprintf(val, sizeof(val), "%g", s->base_loss_db);
	bad |= conf_put(buf, len, off, key, val);
	return bad;
}

/* j of "spare<j>" or "sparephy<j>" (1..99), else 0. */
static int spare_index(const char *radio)
{
	const char *p = !strncmp(radio, "sparephy", 8) ? radio + 8
			: !strncmp(radio, "spare", 5)  ? radio + 5
						       : NULL;
	int j = 0;

	if (!p || !*p || strlen(p) > 2)
		return 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		j = j * 10 + (*p - '0');
	}
	return j;
}

int cell_conf_render(const struct cell *c, char *buf, size_t len,
		     struct al_err *err)
{
	const struct topology *t = &c->topo;
	size_t off = 0;
	char key[64], val[64];
	int bad = 0;

	buf[0] = 0;
	bad |= conf_put(buf, len, &off, "AIRLAB_VARIANT", c->variant.name);
	bad |= conf_put(buf, len, &off, "AIRLAB_ROOT_QDISC",
			c->variant.root_qdisc);
	bad |= conf_put(buf, len, &off, "AIRLAB_DEFAULT_QDISC",
			c->variant.default_qdisc);
	snprintf(val, sizeof(val), "%d", c->variant.txring);
	bad |= conf_put(buf, len, &off, "AIRLAB_TXRING", val);
	if (c->variant.aql >= 0)
		bad |= conf_put(buf, len, &off, "AIRLAB_AQL",
				c->variant.aql ? "1" : "0");
	bad |= conf_put(buf, len, &off, "AIRLAB_CELL", t->name);
	/* 0: the image makes the radios and the medium but leaves the AP
	 * radio to the lab's AP driver (ap: hostapd over SSH). */
	bad |= conf_put(buf, len, &off, "AIRLAB_AP",
			cell_ap_by_image(c) ? "1" : "0");
	bad |= conf_put(buf, len, &off, "AIRLAB_AP_HT", t->ap.ht ? "1" : "0");
	bad |= conf_put(buf, len, &off, "AIRLAB_SSID", t->ap.ssid);
	bad |= conf_put(buf, len, &off, "AIRLAB_PSK", t->ap.passphrase);
	snprintf(val, sizeof(val), "%d", t->ap.channel);
	bad |= conf_put(buf, len, &off, "AIRLAB_CHANNEL", val);
	if (t->ap.nbasic_rates) {
		size_t n = 0;

		for (int i = 0; i < t->ap.nbasic_rates && n < sizeof(val); i++)
			n += (size_t)snprintf(val + n, sizeof(val) - n, "%s%d",
					      i ? " " : "",
					      t->ap.basic_rates[i]);
		bad |= conf_put(buf, len, &off, "AIRLAB_AP_BASIC_RATES", val);
	}
	/* Only the stations on the AP's host: the DUT brings up every
	 * station cell.conf lists. */
	int nlocal = 0;
	for (int i = 0; i < t->nstations; i++)
		nlocal += cell_station_local(c, &t->stations[i]);
	snprintf(val, sizeof(val), "%d", nlocal);
	bad |= conf_put(buf, len, &off, "AIRLAB_NSTA", val);
	for (int i = 0, k = 0; i < t->nstations && !bad; i++) {
		const struct topo_station *s = &t->stations[i];
		if (!cell_station_local(c, s))
			continue;
		k++;
		bad |= conf_put_radio(buf, len, &off, "STA", k, s);
		snprintf(key, sizeof(key), "AIRLAB_STA_%d_HT", k);
		bad |= conf_put(buf, len, &off, key, s->ht ? "1" : "0");
	}
	/* The image's spare radio j (netdev spare<j>, phy sparephy<j>), when
	 * a station-host station drives it, sits on that station's RF path
	 * in the medium. */
	for (int i = 0; i < t->nstations && !bad; i++) {
		const struct topo_station *s = &t->stations[i];
		int j = spare_index(s->radio);

		if (cell_station_local(c, s) || j < 1)
			continue;
		bad |= conf_put_radio(buf, len, &off, "SPARE", j, s);
	}
	if (bad)
		return al_errf(err,
			       "cell.conf for %s does not fit in %zu bytes",
			       t->name, len);
	return 0;
}
