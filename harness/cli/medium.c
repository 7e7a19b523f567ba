/* airlab medium stats [--reset]: the virtual medium's counters, from the
 * airlab-medium daemon behind the lab's `driver: medium` attenuator. */
#include "cli.h"
#include "../cell/atten.h"
#include "../drivers/atten/medium.h"

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

			printf("medium %s MHz: busy %.0f of %.0f us (%.1f%%)\n",
			       field(s, len, "freq", v, sizeof(v)), busy, el,
			       el > 0 ? 100.0 * busy / el : 0.0);
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

/* The first attenuator of the lab with driver: medium. */
static const struct lab_atten *medium_atten(const struct lab *lab)
{
	for (int i = 0; i < lab->nattens; i++)
		if (!strcmp(lab->attens[i].binding.driver,
			    atten_medium_ops.name))
			return &lab->attens[i];
	return NULL;
}

static int stats(const struct lab *lab, bool reset)
{
	const struct lab_atten *a = medium_atten(lab);
	struct atten_handle h;
	struct al_err err;
	char *reply = NULL;
	int rc = 1;

	if (!a) {
		fprintf(stderr,
			"airlab: %s: no attenuator with 'driver: medium' (the "
			"virtual medium) in this lab\n",
			lab->path);
		return 1;
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
		cli_fail(&err);
	free(reply);
	atten_close(&h);
	return rc;
}

int cmd_medium(int argc, char **argv, struct cli_opts *o)
{
	const char *action = NULL;
	bool reset = false;
	struct lab lab;
	struct al_err err;
	int rc;

	for (int i = 1; i < argc; i++) {
		int r = cli_common_opt(argc, argv, &i, o);
		if (r < 0)
			return 2;
		if (r)
			continue;
		if (cli_is_help(argv[i])) {
			cli_usage(stdout, "medium");
			return 0;
		}
		if (strcmp(argv[i], "--reset") == 0) {
			reset = true;
			continue;
		}
		if (action) {
			fprintf(stderr, "airlab medium: unexpected '%s'\n",
				argv[i]);
			return 2;
		}
		action = argv[i];
	}
	if (!action || strcmp(action, "stats") != 0) {
		cli_usage(stderr, "medium");
		return 2;
	}
	if (lab_load(&lab, o->lab, &err) < 0)
		return cli_fail(&err) + 1;
	rc = stats(&lab, reset);
	lab_free(&lab);
	return rc;
}
