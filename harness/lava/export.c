#include "export.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../util/path.h"
#include "../util/shquote.h"

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

/* An airlab command line for the device dictionary, quoted for the shell
 * LAVA runs it with, inside a Jinja double-quoted string. */
static int airlab_cmd(char *out, size_t len, const char *bin,
		      const char *lab_path, const char *verb, const char *host,
		      struct al_err *err)
{
	size_t off = 0;

	if (strpbrk(bin, "\"\\") || strpbrk(lab_path, "\"\\"))
		return al_errf(err,
			       "%s: a path with a double quote or backslash "
			       "cannot go into a LAVA device dictionary",
			       strpbrk(bin, "\"\\") ? bin : lab_path);
	if (sh_quote(out, len, &off, bin) < 0 ||
	    snprintf(out + off, len - off, " --lab ") >= (int)(len - off) ||
	    sh_quote(out, len, (off += 7, &off), lab_path) < 0 ||
	    snprintf(out + off, len - off, " %s %s", verb, host) >=
		(int)(len - off))
		return al_errf(err, "%s: path too long", lab_path);
	return 0;
}

static int device_dict(const struct lab *lab, const struct lab_host *h,
		       const char *bin, char *text, size_t len, bool *qemu,
		       struct al_err *err)
{
	char who[LAB_NAME_MAX + 8], on[PATH_MAX * 5], off[PATH_MAX * 5];
	char cycle[PATH_MAX * 5], con[PATH_MAX * 5];
	long mem, cpus;

	*qemu = strcmp(h->power.driver, "qemu") == 0;
	snprintf(who, sizeof(who), "%s power", h->name);
	if (*qemu) {
		if (lab_param_long(lab, who, &h->power, "memory_mb", 1024, 256,
				   65536, &mem, err) < 0 ||
		    lab_param_long(lab, who, &h->power, "cpus", 2, 1, 64, &cpus,
				   err) < 0)
			return -1;
		/* KVM does not boot stock kernels on these hosts: TCG. */
		snprintf(text, len,
			 "{# %s of lab %s (written by airlab lava export) #}\n"
			 "{%% extends 'qemu.jinja2' %%}\n"
			 "{%% set memory = %ld %%}\n"
			 "{%% set netdevice = 'user' %%}\n"
			 "{%% set no_kvm = True %%}\n"
			 "{%% set extra_options = ['-smp %ld'] %%}\n",
			 h->name, lab->path, mem, cpus);
		return 0;
	}
	if (airlab_cmd(on, sizeof(on), bin, lab->path, "power on", h->name,
		       err) < 0 ||
	    airlab_cmd(off, sizeof(off), bin, lab->path, "power off", h->name,
		       err) < 0 ||
	    airlab_cmd(cycle, sizeof(cycle), bin, lab->path, "power cycle",
		       h->name, err) < 0 ||
	    airlab_cmd(con, sizeof(con), bin, lab->path, "console", h->name,
		       err) < 0)
		return -1;
	snprintf(text, len,
		 "{# %s of lab %s (written by airlab lava export) #}\n"
		 "{%% extends 'airlab-bench.jinja2' %%}\n"
		 "{%% set power_on_command = \"%s\" %%}\n"
		 "{%% set power_off_command = \"%s\" %%}\n"
		 "{%% set hard_reset_command = \"%s\" %%}\n"
		 "{%% set connection_command = \"%s\" %%}\n",
		 h->name, lab->path, on, off, cycle, con);
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
	snprintf(cmd, sizeof(cmd),
		 "lava-server manage device-types list | grep -qw '%s' || "
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
		    struct al_err *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 256], name[LAB_NAME_MAX * 2 + 2];
	char text[PATH_MAX * 24];
	bool qemu, bench = false;
	int ndev = 0;

	snprintf(dir, sizeof(dir), "%s/devices", out_dir);
	if (path_mkdirs(dir) < 0)
		return al_errf(err, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < lab->nhosts; i++) {
		const struct lab_host *h = &lab->hosts[i];

		if (!h->power.driver[0])
			continue; /* a station host or server: not a DUT */
		if (device_dict(lab, h, airlab_bin, text, sizeof(text), &qemu,
				err) < 0)
			return -1;
		lava_device_name(lab, h, name, sizeof(name));
		snprintf(path, sizeof(path), "%s/%s.jinja2", dir, name);
		if (write_text(path, text, err) < 0)
			return -1;
		bench |= !qemu;
		ndev++;
		if (apply && !qemu) {
			char tpath[PATH_MAX];

			snprintf(tpath, sizeof(tpath), "%s/airlab-bench.jinja2",
				 TYPES_DIR);
			if (write_text(tpath, bench_type, err) < 0)
				return -1;
		}
		if (apply && apply_device(name, qemu ? "qemu" : "airlab-bench",
					  text, worker, err) < 0)
			return -1;
	}
	if (!ndev)
		return al_errf(err,
			       "%s: no host with a power: binding (no DUT)",
			       lab->path);
	if (bench) {
		snprintf(dir, sizeof(dir), "%s/device-types", out_dir);
		if (path_mkdirs(dir) < 0)
			return al_errf(err, "%s: %s", dir, strerror(errno));
		snprintf(path, sizeof(path), "%s/airlab-bench.jinja2", dir);
		if (write_text(path, bench_type, err) < 0)
			return -1;
	}
	return 0;
}
