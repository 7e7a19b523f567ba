/* A run directory as the results code reads it: run.json naming a Flent
 * file beside it, for the tests that load, compare or pool runs. Include
 * after cmocka.h. */
#ifndef AIRLAB_FIXTURE_RUN_H
#define AIRLAB_FIXTURE_RUN_H

#include <stdio.h>

#include "../results/flent.h"

/* Writes f (then freed) to dir/x.flent.gz and a run.json of a complete
 * run "x" naming it. */
static inline void fixture_run_write(const char *dir, struct flent_file *f)
{
	char path[4200];
	struct al_err err;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/x.flent.gz", dir);
	if (flent_write(f, path, &err) < 0)
		fail_msg("%s", err.msg);
	flent_free(f);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{\"id\": \"x\", \"status\": \"complete\", \"flent_file\": "
	      "\"x.flent.gz\"}",
	      fp);
	fclose(fp);
}

#endif
