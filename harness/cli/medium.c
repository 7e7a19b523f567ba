/* airlab medium stats [--reset]: the virtual medium's counters, from the
 * airlab-medium daemon behind the lab's `driver: medium` attenuator.
 * airlab medium predict RATE [--mtu N] [--ampdu N]: the model's own TCP
 * goodput for one link at a fixed rate (what the tests compare against). */
#include "cli.h"
#include "../cell/atten.h"
#include "../drivers/atten/medium.h"
#include "../lab/ydoc.h"
#include "../medium/model.h"

#include <stdlib.h>
#include <string.h>

/* The value of " key=" in a stats line, into out ("?" when absent). */
static const char *field(const char *line, size_t len, const char *key,
			 char *out, size_t outlen)
{
	size_t klen = strlen(key);

	snprintf(out, outlen, "?");
	for (const char *p = line; p + klen + 1 < line + len; p++) {
		size_t vlen;

		if ((p != line && p[-1] != ' ') || strncmp(p, key, klen) != 0 ||
		    p[klen] != '=')
			continue;
		p += klen + 1;
		vlen = strcspn(p, " \n");
		if (p + vlen > line + len)
			vlen = (size_t)(line + len - p);
		snprintf(out, outlen, "%.*s", (int)vlen, p);
		break;
	}
	return out;
}

/* The stats reply as a table; lines it does not know are shown as they
 * came. */
static void print_stats(const char *reply)
{
	static const char *const cols[] = {
	    "name",	"path",		 "tx_frames", "tx_retries",
	    "tx_drops", "tx_airtime_us", "rx_frames", "rx_airtime_us",
	    "tx_rate",	"signal_dbm",
	};
	static const int width[] = {8, 8, 10, 10, 8, 13, 10, 13, 12, 10};
	char v[64], e[64], b[64];
	bool header = false;

	for (const char *s = reply; *s;) {
		size_t len = strcspn(s, "\n");

		if (!strncmp(s, "medium ", 7)) {
			double el =
			    atof(field(s, len, "elapsed_us", e, sizeof(e)));
			double busy =
			    atof(field(s, len, "busy_us", b, sizeof(b)));

			char ts[32];

			/* Medium time: what the air did, at its own pace. */
			field(s, len, "time_scale", ts, sizeof(ts));
			printf("medium %s MHz: busy %.0f of %.0f us (%.1f%%), "
			       "time scale %s\n",
			       field(s, len, "freq", v, sizeof(v)), busy, el,
			       el > 0 ? 100.0 * busy / el : 0.0,
			       strcmp(ts, "?") ? ts : "1");
		} else if (!strncmp(s, "frames_in=", 10)) {
			printf("frames in: %s in %s us\n",
			       field(s, len, "frames_in", v, sizeof(v)),
			       field(s, len, "elapsed_us", e, sizeof(e)));
		} else if (!strncmp(s, "radio ", 6)) {
			if (!header) {
				printf("%-5s", "radio");
				for (size_t c = 0;
				     c < sizeof(width) / sizeof(width[0]); c++)
					printf(" %*s",
					       c < 2 ? -width[c] : width[c],
					       cols[c]);
				putchar('\n');
				header = true;
			}
			printf("%-5d", atoi(s + 6));
			for (size_t c = 0; c < sizeof(width) / sizeof(width[0]);
			     c++)
				printf(" %*s", c < 2 ? -width[c] : width[c],
				       field(s, len, cols[c], v, sizeof(v)));
			putchar('\n');
		} else if (!(len == 2 && !strncmp(s, "ok", 2))) {
			printf("%.*s\n", (int)len, s);
		}
		s += len + (s[len] == '\n');
	}
}

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
	print_stats(reply);
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
