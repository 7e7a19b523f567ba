/* libFuzzer target: topology file bytes through topology_load_buf, once
 * against a two-host lab and once without a lab. A load either fails with
 * one "name:line: ..." line or yields a cell that keeps every rule the
 * parser promises (unique names, unique radios per host, ranges). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lab/lab.h"
#include "../lab/topology.h"

#define NAME "fuzz/topology.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char lab_text[] = "lab: fuzz\n"
			       "state_dir: /tmp/airlab-fuzz\n"
			       "hosts:\n"
			       "  dut1: {power: {driver: qemu}}\n"
			       "  sta-host: {shell: {driver: ssh}}\n";

static void check_error(const struct al_err *err)
{
	if (strncmp(err->msg, NAME ":", strlen(NAME ":")) != 0 ||
	    strchr(err->msg, '\n'))
		__builtin_trap();
}

static void check_cell(const struct topology *t, const struct lab *lab)
{
	size_t plen = strlen(t->ap.passphrase);

	if (!t->name[0] || !t->ap.ssid[0] || strlen(t->ap.ssid) > 32 ||
	    plen < 8 || plen > 63 || t->ap.channel < 1 || t->ap.channel > 177 ||
	    t->nstations < 1 || t->nstations > TOPO_MAX_STATIONS)
		__builtin_trap();
	if (lab && (!lab_host_find(lab, t->ap.host) ||
		    !lab_host_find(lab, t->server.host)))
		__builtin_trap();
	for (int i = 0; i < t->nstations; i++) {
		const struct topo_station *s = &t->stations[i];

		if (!s->name[0] || strlen(s->name) > 15 ||
		    !(s->base_loss_db >= 0 && s->base_loss_db <= 200))
			__builtin_trap();
		if (lab && !lab_host_find(lab, s->host))
			__builtin_trap();
		if (!strcmp(s->host, t->ap.host) &&
		    !strcmp(s->radio, t->ap.radio))
			__builtin_trap();
		for (int j = 0; j < i; j++) {
			const struct topo_station *o = &t->stations[j];

			if (!strcmp(o->name, s->name) ||
			    (!strcmp(o->host, s->host) &&
			     !strcmp(o->radio, s->radio)))
				__builtin_trap();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lab lab;
	static int have_lab;
	static struct topology t;
	struct al_err err;

	if (!have_lab) {
		if (lab_load_buf(&lab, "fuzz/lab.yaml", lab_text,
				 strlen(lab_text), &err) < 0)
			__builtin_trap();
		have_lab = 1;
	}
	if (topology_load_buf(&t, NAME, data, size, &lab, &err) < 0)
		check_error(&err);
	else
		check_cell(&t, &lab);
	if (topology_load_buf(&t, NAME, data, size, NULL, &err) < 0)
		check_error(&err);
	else
		check_cell(&t, NULL);
	return 0;
}
