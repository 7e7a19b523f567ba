/* airlab atten set PATH DB | get [PATH]: the attenuation of the RF paths,
 * through the lab file's attenuators (paths: in harness/lab/rfpath.h). */
#include "cli.h"
#include "../cell/atten.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int set_path(const struct lab *lab, const char *path, double db)
{
	const struct lab_atten *a;
	struct atten_handle h;
	struct al_err err;
	double back;
	int channel, rc = AL_EXIT_LAB;

	/* A path the lab does not have is bad input, as a bad dB value. */
	if (atten_path_find(lab, path, &a, &channel, &err) < 0)
		return cli_fail_usage(&err);
	if (atten_open(&h, lab, a, &err) < 0)
		return cli_fail(&err);
	if (h.ops->set_db(h.dev, channel, db, &err) < 0 ||
	    h.ops->get_db(h.dev, channel, &back, &err) < 0)
		rc = cli_fail(&err);
	else
		rc = 0;
	atten_close(&h);
	if (rc == 0)
		printf("%s: %.2f dB (read back)\n", path, back);
	return rc;
}

static void print_row(const struct atten_path *p, double db)
{
	printf("%-15s %-15s %7d %8.2f\n", p->path, p->atten->name, p->channel,
	       db);
}

/* Every path (path == NULL) or one; each attenuator is opened once. */
static int get_paths(const struct lab *lab, const char *path)
{
	struct atten_path all[ATTEN_MAX_PATHS]; /* 20 kB */
	struct atten_handle h = {0};
	struct al_err err;
	const struct lab_atten *a;
	int n, channel, shown = 0;
	double db;

	n = atten_paths_list(lab, all, ATTEN_MAX_PATHS, &err);
	if (n < 0)
		return cli_fail(&err);
	if (path && atten_path_find(lab, path, &a, &channel, &err) < 0)
		return cli_fail_usage(&err);
	if (n == 0) {
		fprintf(stderr, "airlab: %s: the lab file has no attenuators\n",
			lab->path);
		return AL_EXIT_USAGE;
	}
	for (int i = 0; i < n; i++) {
		if (path && strcmp(all[i].path, path) != 0)
			continue;
		if (h.atten != all[i].atten) {
			atten_close(&h);
			if (atten_open(&h, lab, all[i].atten, &err) < 0)
				return cli_fail(&err);
		}
		if (h.ops->get_db(h.dev, all[i].channel, &db, &err) < 0) {
			atten_close(&h);
			return cli_fail(&err);
		}
		if (!shown++)
			printf("%-15s %-15s %7s %8s\n", "path", "attenuator",
			       "channel", "dB");
		print_row(&all[i], db);
	}
	atten_close(&h);
	return 0;
}

int cmd_atten(int argc, char **argv, struct cli_opts *o)
{
	const char *words[3] = {NULL, NULL, NULL};
	int nwords = 0, rc = cli_parse("atten", argc, argv, o, NULL, words, 3);
	struct lab lab;
	struct al_err err;
	double db = 0;

	if (rc >= 0)
		return rc;
	while (nwords < 3 && words[nwords])
		nwords++;
	if (nwords >= 1 && strcmp(words[0], "set") == 0 && nwords == 3) {
		char *end;

		db = strtod(words[2], &end);
		if (end == words[2] || *end || !isfinite(db)) {
			fprintf(stderr,
				"airlab atten: '%s' is not a number of dB\n",
				words[2]);
			return AL_EXIT_USAGE;
		}
	} else if (!(nwords >= 1 && strcmp(words[0], "get") == 0 &&
		     nwords <= 2)) {
		return cli_usage_error("atten",
				       "expected set PATH DB or get [PATH]");
	}
	if (lab_load(&lab, o->lab, &err) < 0)
		return cli_fail_usage(&err);
	if (words[0][0] == 's')
		rc = set_path(&lab, words[1], db);
	else
		rc = get_paths(&lab, words[1]);
	lab_free(&lab);
	return rc;
}
