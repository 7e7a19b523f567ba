#include "job.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Boot under TCG takes ~30 s here; a slower worker gets margin. */
#define BOOT_MIN 5

bool lava_plain_name(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._-+", *s)))
			return false;
	return true;
}

/* A URL inside double quotes in YAML: no quote, backslash or control. */
static bool quotable(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

char *lava_job_yaml(const struct lava_job_spec *j, struct al_err *err)
{
	const struct {
		const char *what, *v;
	} names[] = {{"device type", j->device_type},
		     {"suite", j->suite},
		     {"variant", j->variant},
		     {"plan", j->plan},
		     {"lab", j->lab},
		     {"topology", j->topology}};
	int test_min = (int)((j->wait_s + 2 * j->length_s + 59) / 60) + 3;
	char *out = NULL;
	size_t len = 0;
	bool bench;
	FILE *f;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!lava_plain_name(names[i].v)) {
			al_errf(err,
				"LAVA job: %s '%s' is not a plain name "
				"(letters, digits, . _ - +)",
				names[i].what, names[i].v ? names[i].v : "");
			return NULL;
		}
	bench = strcmp(j->device_type, LAVA_BENCH_TYPE) == 0;
	if (!bench && (!quotable(j->kernel_url) || !quotable(j->ramdisk_url))) {
		al_errf(err, "LAVA job: the image URLs must not contain quotes "
			     "or backslashes");
		return NULL;
	}
	if (!(j->length_s > 0) || j->wait_s <= 0) {
		al_errf(err,
			"LAVA job: length %.1f s and wait %d s must be "
			"positive",
			j->length_s, j->wait_s);
		return NULL;
	}
	f = open_memstream(&out, &len);
	if (!f) {
		al_errf(err, "LAVA job: out of memory");
		return NULL;
	}
	fprintf(f,
		"# airlab: %s on %s, plan %s (written by airlab lava submit)\n"
		"device_type: %s\n"
		"job_name: airlab %s %s %s\n"
		"priority: medium\n"
		"visibility: public\n"
		"metadata:\n"
		"  airlab.suite: %s\n"
		"  airlab.variant: %s\n"
		"  airlab.plan: %s\n"
		"  airlab.lab: %s\n"
		"  airlab.topology: %s\n"
		"  airlab.length_s: \"%g\"\n"
		"timeouts:\n"
		"  job: {minutes: %d}\n"
		"  action: {minutes: %d}\n"
		"  connection: {minutes: 2}\n"
		"context:\n"
		"  arch: amd64\n"
		"  no_kvm: true\n",
		j->suite, j->variant, j->plan, j->device_type, j->plan,
		j->suite, j->variant, j->suite, j->variant, j->plan, j->lab,
		j->topology, j->length_s, 2 * BOOT_MIN + test_min + 2,
		test_min > BOOT_MIN ? test_min : BOOT_MIN);
	if (bench) {
		char cmd[LAVA_BENCH_CMD_MAX];

		/* airlab on the worker does the bring-up (power, flash,
		 * stations) and the run; LAVA holds the device meanwhile. */
		fprintf(
		    f,
		    "actions:\n"
		    "- command:\n"
		    "    name: %s\n"
		    "    timeout: {minutes: %d}\n",
		    lava_bench_command(j->suite, j->variant, cmd, sizeof(cmd)),
		    2 * BOOT_MIN + test_min);
		goto done;
	}
	/* LAVA unpacks the gzip'd ramdisk, adds its test shell and packs it
	 * again; the kernel's command line is the virtual lab's own. */
	fprintf(f,
		"actions:\n"
		"- deploy:\n"
		"    timeout: {minutes: %d}\n"
		"    to: tmpfs\n"
		"    images:\n"
		"      kernel:\n"
		"        image_arg: -kernel {kernel} -append "
		"\"console=ttyS0,115200 rdinit=/init\"\n"
		"        url: \"%s\"\n"
		"      ramdisk:\n"
		"        image_arg: -initrd {ramdisk}\n"
		"        url: \"%s\"\n"
		"        compression: gz\n"
		"        format: cpio.newc\n"
		"        overlays:\n"
		"          lava: true\n"
		"- boot:\n"
		"    timeout: {minutes: %d}\n"
		"    method: qemu\n"
		"    media: tmpfs\n"
		"    prompts:\n"
		"    - 'airlab-dut:.*# '\n",
		BOOT_MIN, j->kernel_url, j->ramdisk_url, BOOT_MIN);
	fprintf(f,
		"- test:\n"
		"    timeout: {minutes: %d}\n"
		"    definitions:\n"
		"    - from: inline\n"
		"      name: airlab-%s\n"
		"      path: inline/airlab-%s.yaml\n"
		"      repository:\n"
		"        metadata:\n"
		"          format: Lava-Test Test Definition 1.0\n"
		"          name: airlab-%s\n"
		"          description: airlab suite %s on variant %s\n"
		"        run:\n"
		"          steps:\n"
		"          - airlab-lava-run %s %g %d\n",
		test_min, j->suite, j->suite, j->suite, j->suite, j->variant,
		j->suite, j->length_s, j->wait_s);
done:
	if (fclose(f) != 0 || !out) {
		free(out);
		al_errf(err, "LAVA job: out of memory");
		return NULL;
	}
	return out;
}

const char *lava_bench_command(const char *suite, const char *variant,
			       char *buf, size_t len)
{
	snprintf(buf, len, "airlab-%s-%s", suite, variant);
	return buf;
}
