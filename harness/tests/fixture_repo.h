/* Shared by the config-parser tests: finds the repo (the runner starts tests
 * from its root and exports AIRLAB_ROOT) and checks the one-line
 * "path:line: message" errors the parsers promise. Include after cmocka.h. */
#ifndef AIRLAB_FIXTURE_REPO_H
#define AIRLAB_FIXTURE_REPO_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/err.h"

/* A malformed fixture and what its error must say. */
struct bad_case {
	const char *file; /* relative to harness/tests/data/ */
	int line;	  /* 0: a file-level "path: msg" error */
	const char *fragment;
};

static char repo_root_buf[PATH_MAX];

static inline const char *repo_root(void)
{
	const char *env = getenv("AIRLAB_ROOT");
	char probe[PATH_MAX + 32];

	if (repo_root_buf[0])
		return repo_root_buf;
	if (env && *env) {
		snprintf(repo_root_buf, sizeof(repo_root_buf), "%s", env);
		return repo_root_buf;
	}
	/* Walk up from the working directory to the dir with lab/. */
	if (!getcwd(repo_root_buf, sizeof(repo_root_buf)))
		fail_msg("getcwd failed");
	for (;;) {
		char *slash;

		snprintf(probe, sizeof(probe), "%s/lab/virtual.yaml",
			 repo_root_buf);
		if (access(probe, R_OK) == 0)
			return repo_root_buf;
		slash = strrchr(repo_root_buf, '/');
		if (!slash || slash == repo_root_buf)
			fail_msg("no lab/virtual.yaml above the working "
				 "directory; set AIRLAB_ROOT");
		*slash = 0;
	}
}

/* out = <repo>/rel */
static inline void repo_path(char *out, size_t len, const char *rel)
{
	int n = snprintf(out, len, "%s/%s", repo_root(), rel);

	assert_true(n > 0 && (size_t)n < len);
}

/* out = <repo>/harness/tests/data/rel */
static inline void data_path(char *out, size_t len, const char *rel)
{
	char r[PATH_MAX];

	snprintf(r, sizeof(r), "harness/tests/data/%s", rel);
	repo_path(out, len, r);
}

/* err is one line, starts "path:line: " (or "path: " for line 0) and
 * contains fragment. */
static inline void assert_err_at(const struct al_err *err, const char *path,
				 int line, const char *fragment)
{
	char want[2 * PATH_MAX + 32];

	if (line > 0)
		snprintf(want, sizeof(want), "%s:%d: ", path, line);
	else
		snprintf(want, sizeof(want), "%s: ", path);
	if (strncmp(err->msg, want, strlen(want)) != 0)
		fail_msg("error '%s' does not start with '%s'", err->msg, want);
	if (!strstr(err->msg, fragment))
		fail_msg("error '%s' does not contain '%s'", err->msg,
			 fragment);
	if (strchr(err->msg, '\n'))
		fail_msg("error '%s' is more than one line", err->msg);
}

#endif
