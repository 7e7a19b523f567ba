/* Lab inventory parser: the repo's lab/virtual.yaml, fixtures for every
 * field, generated limits, and malformed files with their exact
 * "file:line: message". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lab/lab.h"
#include "fixture_repo.h"

static struct lab *new_lab(void)
{
	struct lab *lab = calloc(1, sizeof(*lab));

	assert_non_null(lab);
	return lab;
}

static void virtual_lab_parses(void **state)
{
	struct lab *lab = new_lab();
	const struct lab_host *h;
	const char *home = getenv("HOME");
	char path[PATH_MAX], want[PATH_MAX + 64], out[PATH_MAX + 64];
	struct al_err err;

	(void)state;
	assert_non_null(home);
	repo_path(path, sizeof(path), "lab/virtual.yaml");
	if (lab_load(lab, path, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(lab->path, path);
	assert_string_equal(lab->name, "virtual");
	assert_int_equal(lab->nhosts, 1);
	assert_int_equal(lab->nattens, 1);
	assert_string_equal(lab->attens[0].name, "medium");
	assert_int_equal(lab->attens[0].line, 39);
	/* The image's own init runs the AP. */
	assert_string_equal(lab->hosts[0].ap.driver, "virtual");
	assert_string_equal(lab->attens[0].binding.driver, "medium");
	assert_string_equal(lab_param(&lab->attens[0].binding, "host"), "dut1");
	assert_string_equal(lab_param(&lab->attens[0].binding, "paths"),
			    "path1 path2 path3 path4");

	snprintf(want, sizeof(want), "%s/.cache/airlab/state/virtual", home);
	assert_string_equal(lab->state_dir, want);
	/* ../build/dut-image from lab/: absolute, under the repo. */
	assert_true(lab->image_dir[0] == '/');
	assert_non_null(strstr(lab->image_dir, "build/dut-image"));

	h = lab_host_find(lab, "dut1");
	assert_non_null(h);
	assert_null(lab_host_find(lab, "dut2"));
	assert_int_equal(h->line, 11);
	snprintf(want, sizeof(want), "%s/dut1", lab->state_dir);
	assert_string_equal(h->state_dir, want);

	assert_string_equal(h->power.driver, "qemu");
	assert_int_equal(h->power.line, 12);
	assert_int_equal(h->power.nparams, 4);
	assert_string_equal(lab_param(&h->power, "memory_mb"), "1024");
	assert_string_equal(lab_param(&h->power, "ssh_forward"),
			    "127.0.0.1:10022");
	assert_null(lab_param(&h->power, "driver"));
	assert_string_equal(h->flash.driver, "qemu-image");
	assert_int_equal(h->flash.nparams, 0);
	assert_string_equal(h->console.driver, "serial");
	assert_string_equal(lab_param(&h->console, "baud"), "115200");
	assert_string_equal(h->shell.driver, "ssh");
	assert_int_equal(h->shell.line, 24);
	assert_string_equal(lab_param(&h->shell, "port"), "10022");
	assert_string_equal(lab_param(&h->shell, "user"), "root");
	assert_null(lab_param(&h->shell, "password"));
	for (int i = 0; i < h->shell.nparams; i++)
		if (!strcmp(h->shell.params[i].key, "port"))
			assert_int_equal(h->shell.params[i].line, 27);

	if (lab_expand(lab, h, lab_param(&h->console, "port"), out, sizeof(out),
		       &err) < 0)
		fail_msg("%s", err.msg);
	snprintf(want, sizeof(want), "%s/console", h->state_dir);
	assert_string_equal(out, want);
	if (lab_expand(lab, h, lab_param(&h->shell, "key"), out, sizeof(out),
		       &err) < 0)
		fail_msg("%s", err.msg);
	snprintf(want, sizeof(want), "%s/ssh/id_ed25519", lab->image_dir);
	assert_string_equal(out, want);

	lab_free(lab);
	assert_int_equal(lab->nhosts, 0);
	lab_free(lab); /* twice is harmless */
	free(lab);
}

static void full_fixture_parses(void **state)
{
	struct lab *lab = new_lab();
	const struct lab_host *h;
	char path[PATH_MAX], dir[PATH_MAX], real[PATH_MAX], want[PATH_MAX + 64];
	struct al_err err;

	(void)state;
	data_path(path, sizeof(path), "lab/good-full.yaml");
	if (lab_load(lab, path, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(lab->name, "bench-2");
	/* state_dir "state" is relative to the lab file's directory. */
	data_path(dir, sizeof(dir), "lab");
	assert_non_null(realpath(dir, real));
	snprintf(want, sizeof(want), "%s/state", real);
	assert_string_equal(lab->state_dir, want);
	assert_string_equal(lab->image_dir, "/srv/airlab/images");

	assert_int_equal(lab->nhosts, 2);
	h = lab_host_find(lab, "ap1");
	assert_non_null(h);
	assert_int_equal(h->line, 6);
	assert_string_equal(h->power.driver, "usb-relay");
	assert_int_equal(h->power.line, 7);
	assert_string_equal(lab_param(&h->power, "serial"), "A123");
	assert_string_equal(lab_param(&h->power, "channel"), "2");
	assert_string_equal(h->flash.driver, "tftp");
	assert_string_equal(lab_param(&h->flash, "server"), "192.0.2.1");
	assert_string_equal(lab_param(&h->console, "port"), "/dev/ttyUSB0");
	assert_string_equal(lab_param(&h->shell, "port"), "22");
	snprintf(want, sizeof(want), "%s/state/ap1", real);
	assert_string_equal(h->state_dir, want);

	h = lab_host_find(lab, "sta-host_2");
	assert_non_null(h);
	assert_string_equal(h->power.driver, "");
	assert_string_equal(h->console.driver, "");
	assert_string_equal(h->shell.driver, "ssh");
	assert_string_equal(lab_param(&h->shell, "host"), "192.0.2.20");

	assert_int_equal(lab->nattens, 1);
	assert_string_equal(lab->attens[0].name, "rf1");
	assert_int_equal(lab->attens[0].line, 23);
	assert_string_equal(lab->attens[0].binding.driver, "minicircuits-http");
	assert_string_equal(lab_param(&lab->attens[0].binding, "url"),
			    "http://192.0.2.30/");
	assert_string_equal(lab_param(&lab->attens[0].binding, "channels"),
			    "4");
	lab_free(lab);
	free(lab);
}

static void defaults_apply(void **state)
{
	struct lab *lab = new_lab();
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char path[PATH_MAX], dir[PATH_MAX], real[PATH_MAX], want[PATH_MAX + 64];
	struct al_err err;
	int rc;

	(void)state;
	data_path(path, sizeof(path), "lab/defaults.yaml");
	setenv("HOME", "/nonexistent/airlab-home", 1);
	rc = lab_load(lab, path, &err);
	if (saved)
		setenv("HOME", saved, 1);
	free(saved);
	if (rc < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(
	    lab->state_dir,
	    "/nonexistent/airlab-home/.cache/airlab/state/mini");
	assert_string_equal(lab->hosts[0].state_dir,
			    "/nonexistent/airlab-home/.cache/airlab/state/"
			    "mini/box");
	/* ../build/dut-image from harness/tests/data/lab: it does not exist,
	 * so it stays joined onto the canonical lab dir. */
	data_path(dir, sizeof(dir), "lab");
	assert_non_null(realpath(dir, real));
	snprintf(want, sizeof(want), "%s/../build/dut-image", real);
	assert_string_equal(lab->image_dir, want);
	lab_free(lab);
	free(lab);
}

static void buffer_resolves_from_display_name(void **state)
{
	struct lab *lab = new_lab();
	static const char text[] = "lab: mem\n"
				   "state_dir: run/state\n"
				   "image_dir: /abs/images\n"
				   "hosts: {h1: {power: {driver: qemu}}}\n";
	char cwd[PATH_MAX], want[PATH_MAX + 64];
	struct al_err err;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	if (lab_load_buf(lab, "no-such-dir/mem.yaml", text, strlen(text),
			 &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(lab->path, "no-such-dir/mem.yaml");
	snprintf(want, sizeof(want), "%s/no-such-dir/run/state", cwd);
	assert_string_equal(lab->state_dir, want);
	assert_string_equal(lab->image_dir, "/abs/images");
	lab_free(lab);
	free(lab);
}

static void expand_rejects_unknown_and_overflow(void **state)
{
	struct lab *lab = new_lab();
	struct lab_host *h = &lab->hosts[0];
	char out[64], tiny[8];
	struct al_err err;

	(void)state;
	snprintf(lab->image_dir, sizeof(lab->image_dir), "/img");
	snprintf(h->state_dir, sizeof(h->state_dir), "/st/dut1");
	lab->nhosts = 1;

	assert_int_equal(lab_expand(lab, h, "{state}-{images}{state}", out,
				    sizeof(out), &err),
			 0);
	assert_string_equal(out, "/st/dut1-/img/st/dut1");
	assert_int_equal(lab_expand(lab, h, "plain", out, sizeof(out), &err),
			 0);
	assert_string_equal(out, "plain");

	assert_int_equal(
	    lab_expand(lab, h, "{state}/{stat}", out, sizeof(out), &err), -1);
	assert_non_null(strstr(err.msg, "unknown placeholder '{stat}'"));
	assert_int_equal(lab_expand(lab, h, "{state", out, sizeof(out), &err),
			 -1);
	assert_non_null(strstr(err.msg, "without a closing"));
	assert_int_equal(
	    lab_expand(lab, NULL, "{state}/x", out, sizeof(out), &err), -1);
	assert_non_null(strstr(err.msg, "needs a host"));
	/* "/st/dut1" is 8 bytes: no room for the NUL in 8. */
	assert_int_equal(
	    lab_expand(lab, h, "{state}", tiny, sizeof(tiny), &err), -1);
	assert_non_null(strstr(err.msg, "more than 7 bytes"));
	assert_int_equal(
	    lab_expand(lab, h, "1234567", tiny, sizeof(tiny), &err), 0);
	assert_int_equal(
	    lab_expand(lab, h, "12345678", tiny, sizeof(tiny), &err), -1);
	free(lab);
}

/* A lab with nhosts hosts, the last one with nparams power settings. */
static char *gen_lab(int nhosts, int nparams)
{
	size_t cap = 64 + (size_t)nhosts * 64 + (size_t)nparams * 32;
	char *s = malloc(cap);
	size_t off = 0;

	assert_non_null(s);
	off += (size_t)snprintf(s + off, cap - off,
				"lab: gen\nstate_dir: /tmp/gen\nhosts:\n");
	for (int i = 0; i < nhosts; i++) {
		off += (size_t)snprintf(s + off, cap - off,
					"  h%d:\n    power:\n      driver: "
					"qemu\n",
					i + 1);
	}
	for (int i = 0; i < nparams; i++)
		off += (size_t)snprintf(s + off, cap - off, "      k%d: v%d\n",
					i + 1, i + 1);
	assert_true(off < cap);
	return s;
}

static void host_and_setting_limits(void **state)
{
	struct lab *lab = new_lab();
	struct al_err err;
	char *s;

	(void)state;
	s = gen_lab(LAB_MAX_HOSTS, LAB_MAX_PARAMS);
	if (lab_load_buf(lab, "gen.yaml", s, strlen(s), &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(lab->nhosts, LAB_MAX_HOSTS);
	assert_int_equal(lab->hosts[LAB_MAX_HOSTS - 1].power.nparams,
			 LAB_MAX_PARAMS);
	assert_string_equal(
	    lab_param(&lab->hosts[LAB_MAX_HOSTS - 1].power, "k32"), "v32");
	lab_free(lab);
	free(s);

	/* Host 33 starts at line 3 + 32 * 3 + 1. */
	s = gen_lab(LAB_MAX_HOSTS + 1, 0);
	assert_int_equal(lab_load_buf(lab, "gen.yaml", s, strlen(s), &err), -1);
	assert_err_at(&err, "gen.yaml", 3 + LAB_MAX_HOSTS * 3 + 1,
		      "too many hosts (at most 32)");
	free(s);

	/* Setting 33 of host 1: line 3 + 3 + 33. */
	s = gen_lab(1, LAB_MAX_PARAMS + 1);
	assert_int_equal(lab_load_buf(lab, "gen.yaml", s, strlen(s), &err), -1);
	assert_err_at(&err, "gen.yaml", 3 + 3 + LAB_MAX_PARAMS + 1,
		      "host h1 power: too many");
	free(s);
	free(lab);
}

static void byte_level_errors(void **state)
{
	struct lab *lab = new_lab();
	static const char bad_utf8[] = "lab: x\nhosts:\n  h\xff: {}\n";
	static const char nul[] = "lab: \"a\\0b\"\nhosts: {h: {}}\n";
	static const char tab[] = "lab: x\nhosts:\n\th: {}\n";
	/* A quoted newline in a key must not split the message. */
	static const char newline_key[] = "lab: x\n\"bad\\nkey\": 1\n";
	struct al_err err;

	(void)state;
	assert_int_equal(
	    lab_load_buf(lab, "utf8.yaml", bad_utf8, strlen(bad_utf8), &err),
	    -1);
	assert_err_at(&err, "utf8.yaml", 3, "YAML syntax error");
	assert_int_equal(lab_load_buf(lab, "nul.yaml", nul, strlen(nul), &err),
			 -1);
	assert_err_at(&err, "nul.yaml", 1, "NUL byte");
	assert_int_equal(lab_load_buf(lab, "tab.yaml", tab, strlen(tab), &err),
			 -1);
	assert_err_at(&err, "tab.yaml", 3, "YAML syntax error");
	assert_int_equal(lab_load_buf(lab, "nl.yaml", newline_key,
				      strlen(newline_key), &err),
			 -1);
	assert_err_at(&err, "nl.yaml", 2, "unknown key 'bad?key'");
	free(lab);
}

static void file_level_errors(void **state)
{
	struct lab *lab = new_lab();
	char path[PATH_MAX];
	struct al_err err;

	(void)state;
	data_path(path, sizeof(path), "lab/does-not-exist.yaml");
	assert_int_equal(lab_load(lab, path, &err), -1);
	assert_err_at(&err, path, 0, strerror(ENOENT));
	data_path(path, sizeof(path), "lab");
	assert_int_equal(lab_load(lab, path, &err), -1);
	assert_err_at(&err, path, 0, strerror(EISDIR));
	lab_free(lab); /* after a failed load */
	free(lab);
}

static const struct bad_case bad_labs[] = {
    {"lab/syntax.yaml", 6, "YAML syntax error: did not find expected ','"},
    {"lab/missing-name.yaml", 2, "'lab' is missing"},
    {"lab/dup-key.yaml", 9, "duplicate key 'port' (first at line 7)"},
    {"lab/dup-host.yaml", 6, "hosts: duplicate key 'dut1' (first at line 4)"},
    {"lab/unknown-top.yaml", 5, "unknown key 'attenuator'"},
    {"lab/unknown-concern.yaml", 6, "host dut1: unknown key 'powr'"},
    {"lab/no-driver.yaml", 6, "host dut1 console: 'driver' is missing"},
    {"lab/nonscalar-param.yaml", 7, "'cpus' must be a string, not a list"},
    {"lab/null-param.yaml", 7, "'user' has no value"},
    {"lab/bad-host-name.yaml", 5, "host name 'dut.2'"},
    {"lab/host-not-map.yaml", 4, "host dut1 must be a map, not a string"},
    {"lab/tilde-user.yaml", 3, "not ~user"},
    {"lab/two-docs.yaml", 6, "more than one YAML document"},
    {"lab/no-hosts.yaml", 2, "'hosts' is missing"},
    {"lab/empty.yaml", 1, "empty file"},
    {"lab/comments-only.yaml", 1, "empty file"},
    {"lab/top-list.yaml", 2, "lab file must be a map, not a list"},
    {"lab/bad-atten.yaml", 7, "attenuator rf2 must be a map, not a string"},
};

static void bad_lab_fails_at_line(void **state)
{
	const struct bad_case *c = *state;
	struct lab *lab = new_lab();
	char path[PATH_MAX];
	struct al_err err;

	data_path(path, sizeof(path), c->file);
	assert_int_equal(lab_load(lab, path, &err), -1);
	assert_err_at(&err, path, c->line, c->fragment);
	/* A failed load leaves nothing to free; freeing again is safe. */
	assert_int_equal(lab->nhosts, 0);
	lab_free(lab);
	free(lab);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(virtual_lab_parses),
	    cmocka_unit_test(full_fixture_parses),
	    cmocka_unit_test(defaults_apply),
	    cmocka_unit_test(buffer_resolves_from_display_name),
	    cmocka_unit_test(expand_rejects_unknown_and_overflow),
	    cmocka_unit_test(host_and_setting_limits),
	    cmocka_unit_test(byte_level_errors),
	    cmocka_unit_test(file_level_errors),
	};
	enum {
		NFIXED = sizeof(fixed) / sizeof(fixed[0]),
		NBAD = sizeof(bad_labs) / sizeof(bad_labs[0])
	};
	struct CMUnitTest tests[NFIXED + NBAD];
	int rc;

	memcpy(tests, fixed, sizeof(fixed));
	for (int i = 0; i < NBAD; i++)
		tests[NFIXED + i] = (struct CMUnitTest){
		    .name = bad_labs[i].file,
		    .test_func = bad_lab_fails_at_line,
		    .initial_state = (void *)&bad_labs[i],
		};
	rc = _cmocka_run_group_tests("lab", tests, NFIXED + NBAD, NULL, NULL);
	return rc;
}
