/* airlab power on|off|cycle|status HOST */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int cmd_power(int argc, char **argv, struct cli_opts *o)
{
	const char *words[2] = {NULL, NULL}, *action, *host;
	struct lab lab;
	struct dut d;
	struct al_err err;
	int rc = cli_parse("power", argc, argv, o, NULL, words, 2);
	bool on;

	if (rc >= 0)
		return rc;
	action = words[0];
	host = words[1];
	rc = 1;
	if (!action || !host ||
	    (strcmp(action, "on") && strcmp(action, "off") &&
	     strcmp(action, "cycle") && strcmp(action, "status"))) {
		cli_usage(stderr, "power");
		return 2;
	}
	if (lab_load(&lab, o->lab, &err) < 0)
		return cli_fail(&err) + 1;
	if (cli_dut_open(&d, &lab, host) < 0)
		goto out_lab;

	if (strcmp(action, "status") == 0) {
		if (dut_power_get(&d, &on, &err) == 0) {
			printf("%s: %s\n", host, on ? "on" : "off");
			rc = 0;
		}
	} else if (strcmp(action, "cycle") == 0) {
		if (dut_power_cycle(&d, 1, &err) == 0) {
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
		cli_fail(&err);
	dut_close(&d);
out_lab:
	lab_free(&lab);
	return rc;
}
