/* airlab status: power state, what the DUT booted, its AP, its stations
 * and those on station hosts. */
#include "cli.h"

#include <stdlib.h>

int cmd_status(int argc, char **argv, struct cli_opts *o)
{
	struct cell c;
	struct dut d;
	struct al_err err;
	bool on;
	int rc, status, wait_s = 0;
	/* The station table and the station hosts: too big for the
	 * stack. */
	struct status_mem {
		struct cell_state st;
		struct stahost_set sh;
	} *m = NULL;
	char *release = NULL;
	const struct ap_ops *ap;
	struct ap_config cfg;
	struct ap_env env;
	struct drv_target t;
	const char *wait = NULL;
	const struct cli_flag flags[] = {
	    {"--wait", &wait, NULL,
	     "S\tseconds to wait for stations still associating (default 0)"},
	    {NULL, NULL, NULL, NULL}};

	rc = cli_parse("status", argc, argv, o, flags, NULL, 0);
	if (rc >= 0)
		return rc;
	if (wait && cli_seconds_arg("status", "--wait", wait, 0, &wait_s) < 0)
		return AL_EXIT_USAGE;
	rc = AL_EXIT_LAB;
	if (!(m = calloc(1, sizeof(*m))))
		return AL_EXIT_LAB;
	if (cli_cell_load(&c, o) < 0) {
		free(m);
		return AL_EXIT_USAGE;
	}
	if ((rc = cli_dut_observe(&d, &c.lab, c.ap_host->name)) != AL_EXIT_OK)
		goto out_cell;
	rc = AL_EXIT_LAB;
	if (dut_power_get(&d, &on, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	printf("%s: power %s\n", d.host->name, on ? "on" : "off");
	if (!on) {
		rc = 0;
		goto out;
	}
	if (dut_run_capture(&d, "uname -r", &release, &status, 10, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	printf("%s: kernel %s", d.host->name, release);
	/* The AP as its driver sees it: what it serves and for which
	 * variant. */
	if (bringup_check(&c, &ap, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	bringup_ap_config(&c, &cfg);
	bringup_ap_env(&d, &env);
	t = (struct drv_target){&c.lab, c.ap_host, &c.ap_host->ap};
	if (ap->status(&t, &env, &cfg, &m->st.ap, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	printf("%s: ap (%s): %s on %s, variant %s, cell %s\n", d.host->name,
	       ap->name, m->st.ap.state[0] ? m->st.ap.state : "not running",
	       m->st.ap.iface[0] ? m->st.ap.iface : "-",
	       m->st.ap.variant[0] ? m->st.ap.variant : "-", c.topo.name);
	if (stahost_open(&m->sh, &c, false, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (bringup_stations(&d, &c, ap, &m->sh, wait_s, &m->st, stdout,
			     &err) >= 0)
		rc = 0;
	else
		rc = cli_fail(&err);
	stahost_close(&m->sh);
out:
	free(release);
	dut_close(&d);
out_cell:
	cell_free(&c);
	free(m);
	return rc;
}
