/* The lab, plan and topology files the repository ships load as they are:
 * every lab file parses and names only drivers airlab has, every nightly
 * plan parses and points at files that exist, every topology loads
 * against one of the labs (its hosts exist there). A file that rots when a
 * driver or a key is renamed fails here, not on a bench at night. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../drivers/driver.h"
#include "../strategy/plan.h"
#include "../lab/topology.h"

#define MAX_LABS 16

static char root[4096];

static int setup(void **state)
{
	const char *r = getenv("AIRLAB_ROOT");

	(void)state;
	snprintf(root, sizeof(root), "%s", r && *r ? r : ".");
	return 0;
}

static void files(const char *pattern, glob_t *g)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/%s", root, pattern);
	assert_int_equal(glob(p, 0, NULL, g), 0);
}

/* A lab file says `hosts:`; the other YAML in lab/ are nightly plans. */
static bool is_lab_file(const char *path)
{
	char line[512];
	bool lab = false;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (!lab && fgets(line, sizeof(line), f))
		lab = strncmp(line, "hosts:", 6) == 0;
	fclose(f);
	return lab;
}

/* A configured concern's driver is one the registry has. */
#define RESOLVES(lookup, file, who, kind, b)                                   \
	do {                                                                   \
		struct al_err e_;                                              \
		if ((b)->driver[0] && !lookup((b)->driver, &e_))               \
			fail_msg("%s:%d: %s %s: %s", file, (b)->line, who,     \
				 kind, e_.msg);                                \
	} while (0)

static int load_labs(struct lab *labs, int max)
{
	glob_t g;
	struct al_err err;
	int n = 0;

	files("lab/*.yaml", &g);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *path = g.gl_pathv[i];
		struct lab *l = &labs[n];

		if (!is_lab_file(path))
			continue;
		assert_true(n < max);
		if (lab_load(l, path, &err) < 0)
			fail_msg("%s", err.msg);
		for (int h = 0; h < l->nhosts; h++) {
			const struct lab_host *host = &l->hosts[h];

			RESOLVES(power_driver, path, host->name, "power",
				 &host->power);
			RESOLVES(flash_driver, path, host->name, "flash",
				 &host->flash);
			RESOLVES(console_driver, path, host->name, "console",
				 &host->console);
			RESOLVES(shell_driver, path, host->name, "shell",
				 &host->shell);
			RESOLVES(ap_driver, path, host->name, "ap", &host->ap);
		}
		for (int a = 0; a < l->nattens; a++)
			RESOLVES(atten_driver, path, l->attens[a].name,
				 "attenuator", &l->attens[a].binding);
		n++;
	}
	globfree(&g);
	return n;
}

static void free_labs(struct lab *labs, int n)
{
	for (int i = 0; i < n; i++)
		lab_free(&labs[i]);
}

static void every_lab_file_loads(void **state)
{
	static struct lab labs[MAX_LABS];
	int n;

	(void)state;
	n = load_labs(labs, MAX_LABS);
	/* At least the virtual lab and a real bench's example. */
	assert_true(n >= 2);
	free_labs(labs, n);
}

static void every_plan_loads(void **state)
{
	static struct plan p;
	struct al_err err;
	glob_t g;
	int plans = 0;

	(void)state;
	files("lab/*.yaml", &g);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (is_lab_file(g.gl_pathv[i]))
			continue;
		if (plan_load(&p, g.gl_pathv[i], &err) < 0)
			fail_msg("%s", err.msg);
		if (p.lab[0] && access(p.lab, R_OK) != 0)
			fail_msg("%s: its lab %s is not there", p.path, p.lab);
		if (p.topology[0] && access(p.topology, R_OK) != 0)
			fail_msg("%s: its topology %s is not there", p.path,
				 p.topology);
		plans++;
	}
	globfree(&g);
	assert_true(plans >= 1);
}

static void every_topology_loads_against_a_lab(void **state)
{
	static struct lab labs[MAX_LABS];
	static struct topology t;
	struct al_err err;
	char why[2048] = "";
	glob_t g;
	int n;

	(void)state;
	n = load_labs(labs, MAX_LABS);
	files("topology/*.yaml", &g);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		bool loaded = false;

		for (int l = 0; l < n && !loaded; l++) {
			loaded = topology_load(&t, g.gl_pathv[i], &labs[l],
					       &err) == 0;
			if (!loaded) {
				snprintf(why, sizeof(why), "%s", err.msg);
				continue;
			}
			/* The AP's host names the driver that brings the
			 * AP up, with settings it takes. */
			const struct lab_host *h =
			    lab_host_find(&labs[l], t.ap.host);
			const struct ap_ops *ap;
			struct drv_target dt = {&labs[l], h, &h->ap};

			if (!h->ap.driver[0])
				fail_msg("%s: AP host %s has no ap: binding in "
					 "%s",
					 g.gl_pathv[i], h->name, labs[l].path);
			if (!(ap = ap_driver(h->ap.driver, &err)) ||
			    ap->check(&dt, &err) < 0)
				fail_msg("%s", err.msg);
		}
		if (!loaded)
			fail_msg("%s loads against none of the %d labs; the "
				 "last said: %s",
				 g.gl_pathv[i], n, why);
	}
	globfree(&g);
	free_labs(labs, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_lab_file_loads),
	    cmocka_unit_test(every_plan_loads),
	    cmocka_unit_test(every_topology_loads_against_a_lab),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
