/* airlab power on|off|cycle|status HOST [--off S] */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int cmd_power(int argc, char **argv, struct cli_opts *o)
{
	const char *words[2] = {NULL, NULL}, *action, *host, *off = NULL;
	const struct cli_flag flags[] = {
	    {"--off", &off, NULL,
	     "S\tcycle: seconds to stay off (default: the lab's off_s)"},
	    {NULL}};
	struct lab lab;
	struct dut d;
	struct al_err err;
	int rc = cli_parse("power", argc, argv, o, flags, words, 2);
	long off_s = -1;
	char *end;
	bool on;

	if (rc >= 0)
		return rc;
	if (off) {
		off_s = strtol(off, &end, 10);
		if (end == off || *end || off_s < 0 || off_s > 86400) {
			fprintf(stderr,
				"airlab power: --off '%s' is not a whole "
				"number of seconds from 0 to 86400\n",
				off);
			return AL_EXIT_USAGE;
		}
	}
	action = words[0];
	host = words[1];
	rc = AL_EXIT_LAB;
	if (!action || !host ||
	    (strcmp(action, "on") && strcmp(action, "off") &&
	     strcmp(action, "cycle") && strcmp(action, "status"))) {
		return cli_usage_error("power",
				       "expected on, off, cycle or status and "
				       "a host");
	}
	if (lab_load(&lab, o->lab, &err) < 0)
		return cli_fail_usage(&err);
	if (cli_host_arg("power", &lab, host) < 0) {
		lab_free(&lab);
		return AL_EXIT_USAGE;
	}
	if ((rc = cli_dut_open(&d, &lab, host)) != AL_EXIT_OK)
		goto out_lab;
	rc = AL_EXIT_LAB;

	if (strcmp(action, "status") == 0) {
		if (dut_power_get(&d, &on, &err) == 0) {
			printf("%s: %s\n", host, on ? "on" : "off");
			rc = 0;
		}
	} else if (strcmp(action, "cycle") == 0) {
		if (off_s >= 0)
			d.off_s = (int)off_s;
		if (dut_power_cycle(&d, &err) == 0) {
			printf("%s: cycled, back up\n", host);
			rc = 0;
		}
	} else {
		on = strcmp(action, "on") == 0;
		if (dut_power_set(&d, on, &err) == 0) {
			printf("%s: %s\n", host, action);
			rc = 0;
		}
	}
	if (rc)
		rc = cli_fail(&err);
	dut_close(&d);
out_lab:
	lab_free(&lab);
	return rc;
}
