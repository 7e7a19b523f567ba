/* run.json: the record of one run (run_record.h). */
#include "run_record.h"

#include <jansson.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "../results/run_doc.h"
#include "../suites/outcome_json.h"
#include "../util/json_file.h"

static void iso_time(double unix_s, char *buf, size_t len)
{
	time_t t = (time_t)unix_s;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void run_airtime_set(struct run_airtime *r, const char *source,
		     const struct airtime_snap *before,
		     const struct airtime_snap *after, const char *why_before,
		     const char *why_after)
{
	r->source = source;
	r->ok = before->n > 0 && after->n > 0;
	snprintf(r->why, sizeof(r->why), "%s",
		 why_after[0] ? why_after : why_before);
	if (!r->ok)
		return;
	airtime_delta(before, after, &r->delta);
	r->jain = airtime_shares(&r->delta, r->share);
}

void run_airtime_print(FILE *fp, const struct cell *c,
		       const struct run_airtime *r)
{
	if (!r->ok) {
		fprintf(fp, "  airtime (%s): none: %s\n", r->source, r->why);
		return;
	}
	char label[64];

	snprintf(label, sizeof(label), "airtime (%s)", r->source);
	fprintf(fp, "  %-24s %10s %10s %7s\n", label, "tx ms", "rx ms",
		"share");
	for (int i = 0; i < r->delta.n; i++) {
		const struct airtime_sta *a = &r->delta.sta[i];

		if (!a->have) {
			fprintf(fp, "    %-20s %10s %10s %7s\n",
				c->topo.stations[i].name, "-", "-", "-");
			continue;
		}
		fprintf(fp, "    %-20s %10.1f %10.1f %7.3f\n",
			c->topo.stations[i].name, a->tx_us / 1e3,
			a->rx_us / 1e3, r->share[i]);
	}
	if (isfinite(r->jain))
		fprintf(fp, "  %-28s %10.3f\n", "Jain's index airtime",
			r->jain);
	if (r->delta.chan_have)
		fprintf(fp, "  %-28s %9.1f%% (medium time scale %g)\n",
			"channel busy",
			100.0 * r->delta.chan_busy_us /
			    r->delta.chan_elapsed_us,
			r->delta.time_scale);
	if (r->load_ok)
		fprintf(fp, "  %-28s %9.1f%% (%.1f s of medium time)\n",
			"channel busy under load",
			100.0 * r->load.chan_busy_us / r->load.chan_elapsed_us,
			r->load.chan_elapsed_us / 1e6);
}

static json_t *airtime_json(const struct cell *c, const struct run_airtime *r)
{
	json_t *o, *stations;

	if (!r->ok)
		return json_pack("{s:s}", "error", r->why);
	stations = json_array();
	for (int i = 0; i < r->delta.n; i++) {
		const struct airtime_sta *a = &r->delta.sta[i];
		json_array_append_new(
		    stations,
		    json_pack("{s:s, s:o, s:o, s:o}", "name",
			      c->topo.stations[i].name, "tx_us",
			      a->have ? json_real(a->tx_us) : json_null(),
			      "rx_us",
			      a->have ? json_real(a->rx_us) : json_null(),
			      "share", json_num(r->share[i])));
	}
	o = json_pack("{s:o, s:o}", "stations", stations, "jain",
		      json_num(r->jain));
	/* The medium's channel over the run: how busy the air was, in
	 * medium time, and the time scale every figure was taken at. */
	if (r->delta.chan_have)
		json_object_set_new(
		    o, "channel",
		    json_pack("{s:f, s:f, s:f, s:f}", "elapsed_us",
			      r->delta.chan_elapsed_us, "busy_us",
			      r->delta.chan_busy_us, "busy",
			      r->delta.chan_busy_us / r->delta.chan_elapsed_us,
			      "time_scale", r->delta.time_scale));
	/* The same between the load's start and end, as the agents' first
	 * samples past each said it. */
	if (r->delta.chan_have && r->load_ok)
		json_object_set_new(
		    json_object_get(o, "channel"), "load",
		    json_pack("{s:f, s:f, s:f}", "elapsed_us",
			      r->load.chan_elapsed_us, "busy_us",
			      r->load.chan_busy_us, "busy",
			      r->load.chan_busy_us / r->load.chan_elapsed_us));
	return o;
}

/* Per station, the AP's view of its link over the load: bytes, retries,
 * failures, the last signal and bitrate, and the rate its traffic went at
 * (bytes over the airtime they took: the medium's count where there is
 * one, else nl80211's). */
static json_t *link_json(const struct cell *c, const struct run_record *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->link.n; i++) {
		const struct link_sta *l = &r->link.sta[i];
		const struct airtime_sta *air = NULL;

		if (!l->have)
			continue;
		for (int k = 0; k < 2 && !air; k++)
			if (r->air[k].ok && r->air[k].delta.sta[i].have)
				air = &r->air[k].delta.sta[i];
		json_array_append_new(
		    a, json_pack(
			   "{s:s, s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:s, s:o}",
			   "name", c->topo.stations[i].name, "tx_bytes",
			   l->tx_bytes, "rx_bytes", l->rx_bytes, "retries",
			   l->tx_retries, "failed", l->tx_failed, "signal_dbm",
			   json_num(l->signal_dbm), "tx_bitrate_mbps",
			   json_num(l->tx_bitrate_mbps), "rx_bitrate_mbps",
			   json_num(l->rx_bitrate_mbps), "tx_rate", l->tx_rate,
			   "rate_mbps",
			   json_num(
			       air ? link_rate_mbps(l, air->tx_us + air->rx_us)
				   : NAN)));
	}
	return a;
}

/* The AP as its driver brought it up, and every knob of the variant as
 * the DUT read it back. */
static json_t *ap_json(const struct cell_state *st)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "driver", st->ap_driver,
			 "interface", st->ap.iface, "phy", st->ap.phy, "wired",
			 st->ap.wired, "state", st->ap.state);
}

static json_t *knobs_json(const struct cell *c, const struct cell_state *st)
{
	json_t *a = json_array();

	for (int i = 0; i < st->nknobs; i++) {
		const struct knob_result *k = &st->knobs[i];

		json_array_append_new(
		    a, json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "knob",
				 k->name, "file", c->variant.path, "line",
				 k->line, "target", k->target, "set", k->set,
				 "read", k->read));
	}
	return a;
}

/* What the AP's host was flashed with: its flash driver and image setting
 * expanded as the flash driver does (the virtual lab's qemu-image has no
 * setting: it boots the variant's kernel from image_dir). */
static json_t *dut_image_json(const struct cell *c)
{
	const struct lab_binding *fb = &c->ap_host->flash;
	const char *img = lab_param(fb, "image");
	char path[4096];

	if (!fb->driver[0])
		return json_null();
	const struct lab_field fields[] = {{"variant", c->variant.name},
					   {"kernel", c->variant.kernel}};

	if (img && lab_expand_with(&c->lab, c->ap_host, fields, 2, img, path,
				   sizeof(path), NULL) == 0)
		img = path;
	return json_pack("{s:s, s:s?}", "driver", fb->driver, "image", img);
}

static json_t *stations_json(const struct cell_state *st)
{
	json_t *a = json_array();

	for (int i = 0; i < st->n; i++) {
		const struct station_row *s = &st->rows[i];
		json_array_append_new(
		    a, json_pack("{s:s, s:b, s:o, s:o, s:o, s:s}", "name",
				 s->name, "associated", s->associated,
				 "assoc_s", json_num(s->assoc_s), "signal_dbm",
				 json_num(s->signal_dbm), "txrate_mbps",
				 json_num(s->txrate_mbps), "wpa_state",
				 s->wpa_state));
	}
	return a;
}

int run_record_write(const char *dir, const struct cell *c,
		     const struct cell_state *st, const struct run_record *r,
		     struct al_err *err)
{
	char t0[32], t1[32];
	struct run_doc d = {
	    .id = r->id,
	    .status = r->status,
	    .reasons = r->reasons,
	    .lab = c->lab.name,
	    .lab_file = c->lab.path,
	    .topology = c->topo.name,
	    .topology_file = c->topo.path,
	    .variant = c->variant.name,
	    .kernel = r->kernel,
	    .hostapd = r->hostapd,
	    .wpa_supplicant = r->wpa,
	    .airlab_commit = r->commit,
	    .start = t0,
	    .end = t1,
	    .suite = r->plan->suite->name,
	    /* Flent's view of the suite, for the report (results/ does
	     * not know the suites). */
	    .plot = r->plan->suite->plot,
	    .length_s = r->plan->length_s,
	    .step_s = r->plan->step_s,
	    .flent_file = r->flent_file,
	};
	json_t **secs[] = {
	    &d.ap,	&d.knobs, &d.dut_image,	      &d.boot,	  &d.stations,
	    &d.summary, &d.flows, &d.station_goodput, &d.airtime, &d.link};
	int rc;

	iso_time(r->start, t0, sizeof(t0));
	iso_time(r->end, t1, sizeof(t1));
	d.ap = ap_json(st);
	d.knobs = knobs_json(c, st);
	d.dut_image = dut_image_json(c);
	/* 0 boots: the run used a DUT already up. */
	d.boot = json_pack("{s:i, s:o}", "boots", st->boots, "first_panic",
			   st->boot_panic[0] ? json_string(st->boot_panic)
					     : json_null());
	d.stations = stations_json(st);
	d.summary = outcome_summary_json(r->res);
	d.flows = outcome_flows_json(r->plan, r->res);
	d.station_goodput = outcome_station_goodput_json(r->plan, r->res);
	d.airtime = json_pack("{s:o, s:o}", r->air[0].source,
			      airtime_json(c, &r->air[0]), r->air[1].source,
			      airtime_json(c, &r->air[1]));
	d.link = link_json(c, r);
	rc = run_doc_write(dir, &d, err);
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		json_decref(*secs[i]);
	return rc;
}
