/* airlab medium stats [--reset]: the virtual medium's counters, from the
 * airlab-medium daemon behind the lab's `driver: medium` attenuator.
 * airlab medium predict RATE [--mtu N] [--ampdu N]: the model's own TCP
 * goodput for one link at a fixed rate (what the tests compare against). */
#include "cli.h"
#include "../cell/atten.h"
#include "../drivers/atten/medium.h"
#include "../lab/ydoc.h"
#include "../medium/ctrl.h"
#include "../medium/model.h"

#include <stdlib.h>
#include <string.h>

static int stats(const struct lab *lab, bool reset)
{
	const struct lab_atten *a =
	    atten_find_driver(lab, atten_medium_ops.name);
	struct atten_handle h;
	struct al_err err;
	char *reply = NULL;
	int rc = AL_EXIT_LAB;

	if (!a) {
		fprintf(stderr,
			"airlab: %s: no attenuator with 'driver: medium' (the "
			"virtual medium) in this lab\n",
			lab->path);
		return AL_EXIT_USAGE;
	}
	if (atten_open(&h, lab, a, &err) < 0)
		return cli_fail(&err);
	if (reset && medium_ctrl(h.dev, "reset", &reply, &err) < 0)
		goto out;
	free(reply);
	reply = NULL;
	if (medium_ctrl(h.dev, "stats", &reply, &err) < 0)
		goto out;
	med_stats_print(stdout, reply);
	rc = 0;
out:
	if (rc)
		rc = cli_fail(&err);
	free(reply);
	atten_close(&h);
	return rc;
}

/* Channel 6 (2.4 GHz) is the virtual cell's; --band 5 for 5 GHz. argv[0]
 * is "predict". */
static int predict(int argc, char **argv, struct cli_opts *o)
{
	const char *name = NULL, *mtu_s = NULL, *ampdu_s = NULL, *band_s = NULL;
	const struct cli_flag flags[] = {
	    {"--mtu", &mtu_s, NULL, "N\tpacket size in bytes (default 1500)"},
	    {"--ampdu", &ampdu_s, NULL, "N\tframes per A-MPDU (default 1)"},
	    {"--band", &band_s, NULL, "2|5\tGHz band (default 2)"},
	    {NULL, NULL, NULL, NULL}};
	long mtu = 1500, ampdu = 1, band = 2;
	long *const num[] = {&mtu, &ampdu, &band}; /* flags[k]'s number */
	struct mdl_rate r;
	char rn[32];
	int rc = cli_parse("medium predict", argc, argv, o, flags, &name, 1);

	if (rc >= 0)
		return rc;
	for (int k = 0; flags[k].flag; k++) {
		if (*flags[k].value &&
		    ydoc_parse_long(*flags[k].value, num[k]) < 0) {
			fprintf(stderr,
				"airlab medium predict: %s needs a number\n",
				flags[k].flag);
			return AL_EXIT_USAGE;
		}
	}
	if (!name || mtu < 576 || mtu > 2304 || ampdu < 1 || ampdu > 64 ||
	    (band != 2 && band != 5)) {
		fprintf(stderr, "usage: airlab medium predict RATE (54M, "
				"MCS7/20, MCS15/40/SGI) [--mtu 576..2304] "
				"[--ampdu 1..64] [--band 2|5]\n");
		return AL_EXIT_USAGE;
	}
	enum mdl_band b = band == 2 ? MDL_BAND_2G : MDL_BAND_5G;
	if (mdl_rate_parse(name, b, &r) < 0) {
		fprintf(stderr,
			"airlab medium predict: no rate '%s' in the %s GHz "
			"table (names as in 'airlab medium stats': 1M, 5.5M, "
			"54M, MCS7/20, MCS7/40/SGI)\n",
			name, band == 2 ? "2.4" : "5");
		return AL_EXIT_USAGE;
	}
	mdl_rate_name(&r, rn, sizeof(rn));
	printf("%s mtu=%ld ampdu=%ld goodput_mbps=%.2f\n", rn, mtu, ampdu,
	       mdl_tcp_goodput_mbps(&r, b, (int)mtu, (int)ampdu));
	return 0;
}

int cmd_medium(int argc, char **argv, struct cli_opts *o)
{
	const char *action = NULL;
	bool reset = false;
	const struct cli_flag flags[] = {
	    {"--reset", NULL, &reset, "zero the counters first"},
	    {NULL, NULL, NULL, NULL}};
	struct lab lab;
	struct al_err err;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "predict"))
		return predict(argc - 1, argv + 1, o);
	rc = cli_parse("medium", argc, argv, o, flags, &action, 1);
	if (rc >= 0)
		return rc;
	if (!action || strcmp(action, "stats") != 0) {
		return cli_usage_error("medium", "expected stats or predict");
	}
	if (lab_load(&lab, o->lab, &err) < 0)
		return cli_fail_usage(&err);
	rc = stats(&lab, reset);
	lab_free(&lab);
	return rc;
}
