/* Stack-variant parser: the repo's kernel/ files, lookup by name and by
 * path, the list of known variants, and malformed variants with their
 * exact "file:line: message". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../lab/variant.h"
#include "fixture_repo.h"

static void repo_variants_parse(void **state)
{
	char dir[PATH_MAX], want[PATH_MAX + 32];
	struct variant v;
	struct al_err err;

	(void)state;
	repo_path(dir, sizeof(dir), "kernel");
	if (variant_load(&v, dir, "stock-6.1", &err) < 0)
		fail_msg("%s", err.msg);
	snprintf(want, sizeof(want), "%s/stock-6.1.yaml", dir);
	assert_string_equal(v.path, want);
	assert_string_equal(v.name, "stock-6.1");
	assert_string_equal(v.kernel, "6.1");
	assert_string_equal(v.root_qdisc, "pfifo limit 1000");
	assert_string_equal(v.default_qdisc, "");
	assert_non_null(strstr(v.description, "1000-packet pfifo"));
	assert_int_equal(v.txring, 1000);
	assert_int_equal(v.aql, -1);

	if (variant_load(&v, dir, "fq_codel-6.1", &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(v.kernel, "6.1");
	assert_string_equal(v.root_qdisc, "mq");
	assert_string_equal(v.default_qdisc, "fq_codel");
	assert_int_equal(v.txring, 64);

	if (variant_load(&v, dir, "mac80211-6.12", &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(v.kernel, "6.12");
	assert_string_equal(v.root_qdisc, "");
	assert_string_equal(v.default_qdisc, "");
	assert_non_null(strstr(v.description, "intermediate queues"));
	assert_int_equal(v.txring, 64);
	assert_int_equal(v.aql, 1);
}

static void fixture_variants_parse(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct variant v;
	struct al_err err;

	(void)state;
	data_path(dir, sizeof(dir), "kernel");
	if (variant_load(&v, dir, "good-6.12", &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(v.root_qdisc, "fq_codel limit 1024 target 5ms");
	assert_string_equal(v.description, "test fixture, all keys");
	if (variant_load(&v, dir, "minimal-6.1", &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(v.kernel, "6.1");
	assert_string_equal(v.root_qdisc, "");
	assert_string_equal(v.description, "");

	/* A name with '/' is a path; dir is not used. */
	data_path(path, sizeof(path), "kernel-list/b-6.12.yaml");
	if (variant_load(&v, "/nonexistent", path, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(v.name, "b-6.12");
	assert_string_equal(v.path, path);
	assert_string_equal(v.kernel, "6.12");
}

static void unknown_variant_lists_dir(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], want[PATH_MAX + 64];
	struct variant v;
	struct al_err err;

	(void)state;
	/* The exact list: a fixture dir holding two variants and a README. */
	data_path(dir, sizeof(dir), "kernel-list");
	assert_int_equal(variant_load(&v, dir, "c-6.1", &err), -1);
	snprintf(path, sizeof(path), "%s/c-6.1.yaml", dir);
	snprintf(want, sizeof(want),
		 "unknown variant 'c-6.1' (%s/ has: a-6.1, b-6.12)", dir);
	assert_err_at(&err, path, 0, want);
	assert_string_equal(strstr(err.msg, "unknown"), want);

	/* The repo's kernel/ lists (at least) its three variants, sorted. */
	repo_path(dir, sizeof(dir), "kernel");
	assert_int_equal(variant_load(&v, dir, "x", &err), -1);
	snprintf(path, sizeof(path), "%s/x.yaml", dir);
	assert_err_at(&err, path, 0, "unknown variant 'x' (");
	assert_non_null(strstr(err.msg, "kernel/ has: "));
	assert_non_null(strstr(err.msg, "fq_codel-6.1, linuxap-fq_codel, "
					"linuxap-pfifo, mac80211-6.12"));
	assert_non_null(strstr(err.msg, "stock-6.1"));

	/* A dir that does not exist says so. */
	assert_int_equal(variant_load(&v, "/nonexistent-airlab", "x", &err),
			 -1);
	assert_err_at(&err, "/nonexistent-airlab/x.yaml", 0, strerror(ENOENT));
}

static void bare_names_stay_in_dir(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct variant v;
	struct al_err err;

	(void)state;
	data_path(dir, sizeof(dir), "kernel");
	assert_int_equal(variant_load(&v, dir, ".hidden", &err), -1);
	assert_non_null(strstr(err.msg, "variant name '.hidden'"));
	assert_int_equal(variant_load(&v, dir, "a b", &err), -1);
	assert_non_null(strstr(err.msg, "must be of [A-Za-z0-9_.-]"));
	assert_int_equal(variant_load(&v, dir, "", &err), -1);
	/* A path that does not exist is a file error, not a lookup. */
	data_path(path, sizeof(path), "kernel/none.yaml");
	assert_int_equal(variant_load(&v, dir, path, &err), -1);
	assert_err_at(&err, path, 0, strerror(ENOENT));
}

static void buffer_checks_name_against_path(void **state)
{
	static const char text[] = "variant: alpha\nkernel: \"6.12\"\n";
	struct variant v;
	struct al_err err;

	(void)state;
	if (variant_load_buf(&v, "x/alpha.yaml", text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(v.name, "alpha");
	assert_int_equal(
	    variant_load_buf(&v, "x/beta.yaml", text, strlen(text), &err), -1);
	assert_err_at(&err, "x/beta.yaml", 1,
		      "variant 'alpha' does not match the file name (expected "
		      "'beta')");
}

static const struct bad_case bad_variants[] = {
    {"kernel/mismatch.yaml", 2,
     "variant 'stock-6.1' does not match the file name (expected "
     "'mismatch')"},
    {"kernel/no-kernel.yaml", 2, "'kernel' is missing"},
    {"kernel/bad-kernel.yaml", 3, "kernel '6' is not a kernel series"},
    {"kernel/kernel-list.yaml", 3, "'kernel' must be a string, not a list"},
    {"kernel/unknown-key.yaml", 4, "unknown key 'root_qdsic'"},
    {"kernel/bad-qdisc.yaml", 4, "root_qdisc 'mq; reboot'"},
    {"kernel/bad-txring.yaml", 4, "txring '-5' is not a frame count"},
    {"kernel/txring-word.yaml", 4, "txring 'deep' is not a frame count"},
    {"kernel/bad-aql.yaml", 4, "aql 'maybe' is not true or false"},
    {"kernel/multiline.yaml", 4, "description must be one line"},
    {"kernel/dup-key.yaml", 4, "duplicate key 'kernel' (first at line 3)"},
    {"kernel/syntax.yaml", 3, "YAML syntax error"},
    {"kernel/empty.yaml", 1, "empty file"},
};

static void bad_variant_fails_at_line(void **state)
{
	const struct bad_case *c = *state;
	char path[PATH_MAX];
	struct variant v;
	struct al_err err;

	data_path(path, sizeof(path), c->file);
	assert_int_equal(variant_load(&v, "/nonexistent", path, &err), -1);
	assert_err_at(&err, path, c->line, c->fragment);
}

/* knobs: what each becomes (kind, target, value, line) and the order
 * they are applied in: files first, the qdiscs last. */
static void knobs_parse(void **state)
{
	static const char text[] =
	    "variant: k\n"
	    "kernel: \"5.15\"\n"
	    "knobs:\n"
	    "  wlan_qdisc: pfifo limit 1000\n"
	    "  wired_qdisc: fq_codel\n"
	    "  aql: true\n"
	    "  aql_txq_limit: 2 5000 12000\n"
	    "  airtime_flags: 3\n"
	    "  sysctl:\n"
	    "    net.core.default_qdisc: fq_codel\n"
	    "  files:\n"
	    "    - {path: \"/sys/kernel/debug/ieee80211/{phy}/aqm\", value: "
	    "fq_limit 2048}\n";
	struct variant v;
	struct al_err err;
	const struct variant_knob *k;

	(void)state;
	if (variant_load_buf(&v, "kernel/k.yaml", text, sizeof(text) - 1,
			     &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(v.nknobs, 7);
	k = &v.knobs[0];
	assert_string_equal(k->name, "sysctl net.core.default_qdisc");
	assert_string_equal(k->target, "/proc/sys/net/core/default_qdisc");
	assert_int_equal(k->line, 10);
	k = &v.knobs[1];
	assert_string_equal(k->name, "files[1]");
	assert_string_equal(k->target, "/sys/kernel/debug/ieee80211/{phy}/aqm");
	assert_string_equal(k->value, "fq_limit 2048");
	assert_int_equal(k->line, 12);
	k = &v.knobs[2];
	assert_string_equal(k->name, "aql");
	assert_string_equal(k->target,
			    "/sys/kernel/debug/ieee80211/{phy}/aql_enable");
	assert_string_equal(k->value, "1");
	assert_int_equal(k->line, 6);
	assert_true(k->exact);
	k = &v.knobs[3];
	assert_string_equal(k->name, "aql_txq_limit");
	assert_false(k->exact);
	assert_string_equal(v.knobs[4].name, "airtime_flags");
	k = &v.knobs[5];
	assert_string_equal(k->name, "wlan_qdisc");
	assert_int_equal(k->kind, KNOB_QDISC);
	assert_string_equal(k->target, "{iface}");
	assert_string_equal(k->value, "pfifo limit 1000");
	assert_int_equal(k->line, 4);
	k = &v.knobs[6];
	assert_string_equal(k->target, "{wired}");
}

static void bad_knobs_fail_at_line(void **state)
{
	static const struct {
		const char *knobs;
		int line;
		const char *fragment;
	} cases[] = {
	    {"  qdisc: fq_codel\n", 4, "unknown key 'qdisc'"},
	    {"  aql: maybe\n", 4, "aql 'maybe' is not true or false"},
	    {"  wlan_qdisc: \"fq_codel; reboot\"\n", 4,
	     "wlan_qdisc 'fq_codel; reboot' is not a tc qdisc spec"},
	    {"  aql_txq_limit: 2 5000\n", 4,
	     "aql_txq_limit '2 5000' is not 'AC LOW HIGH'"},
	    {"  airtime_flags: 9\n", 4, "airtime_flags '9' is not 0..7"},
	    {"  files:\n    - {path: ../etc/x, value: 1}\n", 5,
	     "files[1]: path '../etc/x' must be absolute"},
	    {"  files:\n    - {path: \"/sys/{nope}/x\", value: 1}\n", 5,
	     "files[1]: path '/sys/{nope}/x' must be absolute"},
	    {"  files:\n    - {path: /sys/x}\n", 5, "'value' is missing"},
	    {"  files: {path: /sys/x, value: 1}\n", 4,
	     "knobs: files must be a list"},
	    {"  sysctl:\n    net/core: 1\n", 5,
	     "sysctl 'net/core' is not a sysctl name"},
	};
	char text[512];
	struct variant v;
	struct al_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[64];

		snprintf(text, sizeof(text),
			 "variant: k\nkernel: \"6.1\"\nknobs:\n%s",
			 cases[i].knobs);
		assert_int_equal(variant_load_buf(&v, "kernel/k.yaml", text,
						  strlen(text), &err),
				 -1);
		snprintf(want, sizeof(want),
			 "kernel/k.yaml:%d: ", cases[i].line);
		if (strncmp(err.msg, want, strlen(want)) ||
		    !strstr(err.msg, cases[i].fragment))
			fail_msg("case %zu: got '%s', want '%s%s'", i, err.msg,
				 want, cases[i].fragment);
	}
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(repo_variants_parse),
	    cmocka_unit_test(knobs_parse),
	    cmocka_unit_test(bad_knobs_fail_at_line),
	    cmocka_unit_test(fixture_variants_parse),
	    cmocka_unit_test(unknown_variant_lists_dir),
	    cmocka_unit_test(bare_names_stay_in_dir),
	    cmocka_unit_test(buffer_checks_name_against_path),
	};
	enum {
		NFIXED = sizeof(fixed) / sizeof(fixed[0]),
		NBAD = sizeof(bad_variants) / sizeof(bad_variants[0])
	};
	struct CMUnitTest tests[NFIXED + NBAD];

	memcpy(tests, fixed, sizeof(fixed));
	for (int i = 0; i < NBAD; i++)
		tests[NFIXED + i] = (struct CMUnitTest){
		    .name = bad_variants[i].file,
		    .test_func = bad_variant_fails_at_line,
		    .initial_state = (void *)&bad_variants[i],
		};
	return _cmocka_run_group_tests("variant", tests, NFIXED + NBAD, NULL,
				       NULL);
}
