#include "export.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../util/path.h"
#include "job.h"

#define DEVICES_DIR "/etc/lava-server/dispatcher-config/devices"
#define TYPES_DIR   "/etc/lava-server/dispatcher-config/device-types"

/* Real benches: LAVA powers and reaches the board through airlab, then
 * boots it as it is (the image is airlab's to flash). */
static const char bench_type[] =
    "{# airlab-bench: a DUT on an airlab bench (written by airlab lava "
    "export). #}\n"
    "{% extends 'base.jinja2' %}\n"
    "{% block body %}\n"
    "actions:\n"
    "  deploy:\n"
    "    methods:\n"
    "      image:\n"
    "  boot:\n"
    "    connections:\n"
    "      serial:\n"
    "    methods:\n"
    "      minimal:\n"
    "{% endblock body %}\n";

void lava_device_name(const struct lab *lab, const struct lab_host *h,
		      char *out, size_t len)
{
	snprintf(out, len, "%s-%s", lab->name, h->name);
}

static int write_text(const char *path, const char *text, struct al_err *err)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return al_errf(err, "%s: %s", path, strerror(errno));
	fputs(text, f);
	if (fclose(f) != 0)
		return al_errf(err, "%s: %s", path, strerror(errno));
	printf("wrote %s\n", path);
	return 0;
}

/* The dispatcher splits a command on blanks and the device type puts it
 * in YAML unquoted: a path must be a plain one. */
static int plain_path(const char *p, struct al_err *err)
{
	for (const char *c = p; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr("/._+-", *c)))
			return al_errf(err,
				       "%s: a LAVA device dictionary carries "
				       "only paths of letters, digits and "
				       "/ . _ + - ('%c' is not one)",
				       p, *c);
	return 0;
}

/* One user command per (suite, variant) of the plan: what a bench job
 * names (`command: name:`), run on the worker. */
static void plan_commands(FILE *f, const char *bin, const struct plan *p)
{
	char cmd[LAVA_BENCH_CMD_MAX];

	fprintf(f, "{%% set user_commands = {\n");
	for (int v = 0; v < p->nvariants; v++)
		for (int k = 0; k < p->nsuites; k++)
			fprintf(f,
				"  '%s': {'do': '%s lava bench-run %s %s "
				"%s'},\n",
				lava_bench_command(p->suites[k].name,
						   p->variants[v], cmd,
						   sizeof(cmd)),
				bin, p->path, p->suites[k].name,
				p->variants[v]);
	fprintf(f, "} %%}\n");
}

static int device_dict(const struct lab *lab, const struct lab_host *h,
		       const char *bin, bool bench, const struct plan *p,
		       char **text, bool *qemu, struct al_err *err)
{
	char who[LAB_NAME_MAX + 8];
	size_t len = 0;
	long mem, cpus;
	FILE *f;

	*text = NULL;
	*qemu = !bench && strcmp(h->power.driver, "qemu") == 0;
	snprintf(who, sizeof(who), "%s power", h->name);
	if (*qemu && (lab_param_long(lab, who, &h->power, "memory_mb", 1024,
				     256, 65536, &mem, err) < 0 ||
		      lab_param_long(lab, who, &h->power, "cpus", 2, 1, 64,
				     &cpus, err) < 0))
		return -1;
	if (!*qemu &&
	    (plain_path(bin, err) < 0 || plain_path(lab->path, err) < 0 ||
	     (p && plain_path(p->path, err) < 0)))
		return -1;
	if (!(f = open_memstream(text, &len)))
		return al_errf(err, "out of memory");
	fprintf(f, "{# %s of lab %s (written by airlab lava export) #}\n",
		h->name, lab->path);
	if (*qemu) {
		/* KVM does not boot stock kernels on these hosts: TCG. */
		fprintf(f,
			"{%% extends 'qemu.jinja2' %%}\n"
			"{%% set memory = %ld %%}\n"
			"{%% set netdevice = 'user' %%}\n"
			"{%% set no_kvm = True %%}\n"
			"{%% set extra_options = ['-smp %ld'] %%}\n",
			mem, cpus);
	} else {
		static const char *const cmds[][2] = {
		    {"power_on_command", "power on"},
		    {"power_off_command", "power off"},
		    {"hard_reset_command", "power cycle"},
		    {"connection_command", "console"}};

		fprintf(f, "{%% extends 'airlab-bench.jinja2' %%}\n");
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			fprintf(f, "{%% set %s = '%s --lab %s %s %s' %%}\n",
				cmds[i][0], bin, lab->path, cmds[i][1],
				h->name);
		if (p)
			plan_commands(f, bin, p);
	}
	if (fclose(f) != 0 || !*text) {
		free(*text);
		*text = NULL;
		return al_errf(err, "out of memory");
	}
	return 0;
}

/* Runs a lava-server command (argv as one quoted line); -1 naming it. */
static int run_manage(const char *line, struct al_err *err)
{
	int st = system(line);

	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return al_errf(err, "'%s' failed (exit %d)", line,
			       st == -1 || !WIFEXITED(st) ? -1
							  : WEXITSTATUS(st));
	return 0;
}

static int apply_device(const char *name, const char *type, const char *dict,
			const char *worker, struct al_err *err)
{
	char path[PATH_MAX], cmd[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s.jinja2", DEVICES_DIR, name);
	if (write_text(path, dict, err) < 0)
		return -1;
	/* Known types and devices are kept; a new one is added. */
	snprintf(
	    cmd, sizeof(cmd),
	    "lava-server manage device-types list | grep -w '%s' >/dev/null || "
	    "lava-server manage device-types add '%s'",
	    type, type);
	if (run_manage(cmd, err) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "lava-server manage devices details '%s' >/dev/null 2>&1 || "
		 "lava-server manage devices add --device-type '%s' --worker "
		 "'%s' '%s'",
		 name, type, worker, name);
	return run_manage(cmd, err);
}

int lava_export_lab(const struct lab *lab, const char *airlab_bin,
		    const char *out_dir, const char *worker, bool apply,
		    bool bench_all, const struct plan *plan, struct al_err *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 256], name[LAB_NAME_MAX * 2 + 2];
	char *text = NULL;
	bool qemu, bench = false;
	int ndev = 0, rc = -1;

	if (!lava_plain_name(worker))
		return al_errf(err, "LAVA worker '%s' is not a plain name",
			       worker);
	for (int v = 0; plan && v < plan->nvariants; v++)
		if (!lava_plain_name(plan->variants[v]))
			return al_errf(err,
				       "%s: variant '%s' is not a plain name "
				       "(letters, digits, . _ - +)",
				       plan->path, plan->variants[v]);
	snprintf(dir, sizeof(dir), "%s/devices", out_dir);
	if (path_mkdirs(dir) < 0)
		return al_errf(err, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < lab->nhosts; i++) {
		const struct lab_host *h = &lab->hosts[i];

		if (!h->power.driver[0])
			continue; /* a station host or server: not a DUT */
		if (device_dict(lab, h, airlab_bin, bench_all, plan, &text,
				&qemu, err) < 0)
			return -1;
		lava_device_name(lab, h, name, sizeof(name));
		/* The virtual DUT as a bench beside its qemu device. */
		if (!qemu && !strcmp(h->power.driver, "qemu"))
			strncat(name, "-bench",
				sizeof(name) - strlen(name) - 1);
		snprintf(path, sizeof(path), "%s/%s.jinja2", dir, name);
		if (write_text(path, text, err) < 0)
			goto out;
		bench |= !qemu;
		ndev++;
		if (apply && !qemu) {
			char tpath[PATH_MAX];

			if (path_mkdirs(TYPES_DIR) < 0) {
				al_errf(err, "%s: %s", TYPES_DIR,
					strerror(errno));
				goto out;
			}
			snprintf(tpath, sizeof(tpath), "%s/airlab-bench.jinja2",
				 TYPES_DIR);
			if (write_text(tpath, bench_type, err) < 0)
				goto out;
		}
		if (apply && apply_device(name, qemu ? "qemu" : "airlab-bench",
					  text, worker, err) < 0)
			goto out;
		free(text);
		text = NULL;
	}
	if (!ndev) {
		al_errf(err, "%s: no host with a power: binding (no DUT)",
			lab->path);
		goto out;
	}
	if (bench) {
		snprintf(dir, sizeof(dir), "%s/device-types", out_dir);
		if (path_mkdirs(dir) < 0) {
			al_errf(err, "%s: %s", dir, strerror(errno));
			goto out;
		}
		snprintf(path, sizeof(path), "%s/airlab-bench.jinja2", dir);
		if (write_text(path, bench_type, err) < 0)
			goto out;
	}
	rc = 0;
out:
	free(text);
	return rc;
}
