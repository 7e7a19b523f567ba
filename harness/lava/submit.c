#include "submit.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../util/cpio.h"
#include "../util/path.h"
#include "job.h"
#include "results.h"

#define CONF_MAX (64 * 1024)

static int copy_file(const char *src, const char *dst, struct al_err *err)
{
	char tmp[4600], buf[65536];
	FILE *in = fopen(src, "re"), *out;
	size_t n;
	int rc = 0;

	if (!in)
		return al_errf(err, "%s: %s (build the DUT images: make image)",
			       src, strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s.tmp", dst);
	out = fopen(tmp, "we");
	if (!out) {
		fclose(in);
		return al_errf(err, "%s: %s", tmp, strerror(errno));
	}
	while (rc == 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = al_errf(err, "%s: %s", tmp, strerror(errno));
	if (ferror(in))
		rc = al_errf(err, "%s: read error", src);
	fclose(in);
	if (fclose(out) != 0 && rc == 0)
		rc = al_errf(err, "%s: %s", tmp, strerror(errno));
	if (rc == 0 && rename(tmp, dst) < 0)
		rc = al_errf(err, "%s: %s", dst, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	return rc;
}

/* The image's files and the cell's configuration in one archive. */
static int build_ramdisk(const char *base, const char *dst, const char *conf,
			 struct al_err *err)
{
	char tmp[4600];
	struct cpio_writer w;
	gzFile in, out;
	int rc;

	in = gzopen(base, "rb");
	if (!in)
		return al_errf(err, "%s: %s (build the DUT images: make image)",
			       base, strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s.tmp", dst);
	out = gzopen(tmp, "wb6");
	if (!out) {
		gzclose(in);
		return al_errf(err, "%s: %s", tmp, strerror(errno));
	}
	cpio_begin_gz(&w, out, tmp);
	rc = cpio_copy_entries(&w, in, base, err);
	gzclose(in);
	if (rc == 0 && (cpio_add_dir(&w, "etc", 0755, err) < 0 ||
			cpio_add_dir(&w, "etc/airlab", 0755, err) < 0 ||
			cpio_add_file(&w, "etc/airlab/cell.conf", 0644, conf,
				      strlen(conf), err) < 0 ||
			cpio_finish(&w, err) < 0))
		rc = -1;
	if (gzclose(out) != Z_OK && rc == 0)
		rc = al_errf(err, "%s: write error", tmp);
	if (rc == 0 && rename(tmp, dst) < 0)
		rc = al_errf(err, "%s: %s", dst, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	return rc;
}

int lava_artifacts(const struct cell *c, const struct lava_submit_opts *o,
		   char *kernel_url, char *ramdisk_url, size_t len,
		   struct al_err *err)
{
	char dir[4400], src[4400], dst[4500], *conf;
	int rc;

	snprintf(dir, sizeof(dir), "%s/%s-%s", o->artifacts, c->topo.name,
		 c->variant.name);
	if (path_mkdirs(dir) < 0)
		return al_errf(err, "%s: %s", dir, strerror(errno));
	snprintf(src, sizeof(src), "%s/%s/vmlinuz", c->lab.image_dir,
		 c->variant.kernel);
	snprintf(dst, sizeof(dst), "%s/vmlinuz", dir);
	if (copy_file(src, dst, err) < 0)
		return -1;
	if (!(conf = malloc(CONF_MAX)))
		return al_errf(err, "out of memory");
	snprintf(src, sizeof(src), "%s/%s/initrd.cpio.gz", c->lab.image_dir,
		 c->variant.kernel);
	snprintf(dst, sizeof(dst), "%s/initrd.cpio.gz", dir);
	rc = cell_conf_render(c, conf, CONF_MAX, err) < 0
		 ? -1
		 : build_ramdisk(src, dst, conf, err);
	free(conf);
	if (rc < 0)
		return -1;
	if (o->url_base) {
		snprintf(kernel_url, len, "%s/%s-%s/vmlinuz", o->url_base,
			 c->topo.name, c->variant.name);
		snprintf(ramdisk_url, len, "%s/%s-%s/initrd.cpio.gz",
			 o->url_base, c->topo.name, c->variant.name);
	} else {
		snprintf(kernel_url, len, "file://%s/vmlinuz", dir);
		snprintf(ramdisk_url, len, "file://%s/initrd.cpio.gz", dir);
	}
	return 0;
}

struct variant_urls {
	char kernel[4600], ramdisk[4600];
	char lab[64], topology[64];
};

int lava_submit_plan(const struct lava_server *s, const struct plan *p,
		     const struct lava_submit_opts *o,
		     struct lava_submitted *jobs, size_t max, size_t *n,
		     struct al_err *err)
{
	struct variant_urls *urls = calloc((size_t)p->nvariants, sizeof(*urls));
	struct cell *c = calloc(1, sizeof(*c));
	size_t total =
	    (size_t)p->nvariants * (size_t)p->nsuites * (size_t)p->repeat;
	char user[128];
	bool bench =
	    o->device_type && strcmp(o->device_type, LAVA_BENCH_TYPE) == 0;
	int rc = -1;

	*n = 0;
	if (!urls || !c) {
		al_errf(err, "out of memory");
		goto out;
	}
	if (total > max) {
		al_errf(err, "%s: %zu jobs, at most %zu", p->path, total, max);
		goto out;
	}
	/* The server and the token before any image is made. */
	if (lava_whoami(s, user, sizeof(user), err) < 0)
		goto out;
	/* Every variant's cell and images first: a bad one submits
	 * nothing. */
	for (int v = 0; v < p->nvariants; v++) {
		struct cell_paths cp = {p->lab, p->topology, p->variants[v],
					o->variant_dir};

		if (cell_load(c, &cp, err) < 0)
			goto out;
		snprintf(urls[v].lab, sizeof(urls[v].lab), "%s", c->lab.name);
		snprintf(urls[v].topology, sizeof(urls[v].topology), "%s",
			 c->topo.name);
		/* A bench flashes with its own drivers: no images here. */
		if (bench) {
			cell_free(c);
			continue;
		}
		fprintf(stderr, "lava: images for %s on %s in %s/%s-%s\n",
			c->variant.name, c->topo.name, o->artifacts,
			c->topo.name, c->variant.name);
		rc = lava_artifacts(c, o, urls[v].kernel, urls[v].ramdisk,
				    sizeof(urls[v].kernel), err);
		cell_free(c);
		if (rc < 0)
			goto out;
		rc = -1;
	}
	for (int v = 0; v < p->nvariants; v++)
		for (int k = 0; k < p->nsuites; k++)
			for (int r = 0; r < p->repeat; r++) {
				struct lava_job_spec js = {
				    o->device_type ? o->device_type : "qemu",
				    urls[v].kernel,
				    urls[v].ramdisk,
				    p->suites[k].name,
				    p->variants[v],
				    p->name,
				    urls[v].lab,
				    urls[v].topology,
				    p->suites[k].length_s > 0
					? p->suites[k].length_s
					: 30,
				    o->wait_s};
				char *yaml = lava_job_yaml(&js, err), url[1200];
				json_t *body, *reply, *ids;

				if (!yaml)
					goto out;
				body = json_pack("{s:s}", "definition", yaml);
				free(yaml);
				reply = lava_post_json(s, "/api/v0.2/jobs/",
						       body, err);
				json_decref(body);
				ids = reply ? json_object_get(reply, "job_ids")
					    : NULL;
				if (!json_is_integer(json_array_get(ids, 0))) {
					if (reply)
						al_errf(err,
							"LAVA server %s took "
							"the job but sent no "
							"job id",
							s->url);
					json_decref(reply);
					goto out;
				}
				jobs[*n].id = (long)json_integer_value(
				    json_array_get(ids, 0));
				json_decref(reply);
				snprintf(jobs[*n].suite, sizeof(jobs[*n].suite),
					 "%s", p->suites[k].name);
				snprintf(jobs[*n].variant,
					 sizeof(jobs[*n].variant), "%s",
					 p->variants[v]);
				lava_job_url(s, jobs[*n].id, url, sizeof(url));
				printf("job %ld: %s on %s %s\n", jobs[*n].id,
				       p->suites[k].name, p->variants[v], url);
				fflush(stdout);
				(*n)++;
			}
	rc = 0;
out:
	if (rc < 0 && *n > 0)
		al_err_prefix(err, "%zu job%s went in before this and will run",
			      *n, *n > 1 ? "s" : "");
	free(urls);
	free(c);
	return rc;
}

int lava_wait(const struct lava_server *s, const long *ids, size_t n,
	      int timeout_s, struct al_err *err)
{
	char(*last)[32] = calloc(n ? n : 1, sizeof(*last));
	time_t t0 = time(NULL);
	size_t done = 0;

	if (!last)
		return al_errf(err, "out of memory");
	while (done < n) {
		done = 0;
		for (size_t i = 0; i < n; i++) {
			struct lava_job j;

			if (lava_job_get(s, ids[i], &j, err) < 0) {
				free(last);
				return -1;
			}
			if (strcmp(last[i], j.state) != 0) {
				fprintf(stderr, "lava: job %ld %s%s%s\n",
					ids[i], j.state,
					lava_job_finished(&j) ? ", " : "",
					lava_job_finished(&j) ? j.health : "");
				snprintf(last[i], sizeof(last[i]), "%s",
					 j.state);
			}
			done += lava_job_finished(&j);
		}
		if (done == n)
			break;
		if (time(NULL) - t0 > timeout_s) {
			free(last);
			return al_errf(err,
				       "%zu of %zu LAVA jobs not finished "
				       "after %d s (they go on; `airlab lava "
				       "results` stores them later)",
				       n - done, n, timeout_s);
		}
		sleep(5);
	}
	free(last);
	return 0;
}
