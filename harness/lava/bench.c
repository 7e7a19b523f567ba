/* A bench job's run on the worker (bench.h). */
#include "bench.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../results/run_doc.h"
#include "../strategy/plan.h"
#include "../util/path.h"
#include "log.h"

/* What LAVA shows of the run (AIRLAB-INFO lines), then its record and
 * Flent file as blocks of the log. */
static int bench_send(FILE *log, const char *dir, struct al_err *err)
{
	char path[4800];
	struct run_doc d;
	int rc = 0;

	if (run_doc_read(dir, &d, err) < 0)
		return -1;
	fprintf(log, "AIRLAB-INFO kernel %s\n", d.kernel ? d.kernel : "");
	fprintf(log, "AIRLAB-INFO hostapd %s\n", d.hostapd ? d.hostapd : "");
	fprintf(log, "AIRLAB-INFO wpa_supplicant %s\n",
		d.wpa_supplicant ? d.wpa_supplicant : "");
	snprintf(path, sizeof(path), "%s/run.json", dir);
	if (lava_log_send_file(log, "record.json", path, err) < 0)
		rc = -1;
	snprintf(path, sizeof(path), "%s/%s", dir,
		 d.flent_file ? d.flent_file : "");
	if (rc == 0 && d.flent_file &&
	    lava_log_send_file(log, d.flent_file, path, err) < 0)
		rc = -1;
	run_doc_free(&d);
	return rc;
}

int lava_bench_run(const struct lava_bench *b, struct run_result *r,
		   struct al_err *err)
{
	struct plan *p = calloc(1, sizeof(*p));
	const struct plan_suite *ps = NULL;
	struct run_request rq = {.cell = b->cell,
				 .root = b->root,
				 .suite = b->suite,
				 .out_dir = b->out_dir,
				 .wait_s = 120,
				 .show = b->log};
	bool known = false;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (!p)
		return al_errf(err, "out of memory");
	if (plan_load(p, b->plan_file, err) < 0) {
		err->bad_input = true;
		goto out;
	}
	for (int i = 0; i < p->nsuites; i++)
		if (!strcmp(p->suites[i].name, b->suite))
			ps = &p->suites[i];
	for (int i = 0; i < p->nvariants; i++)
		known |= !strcmp(p->variants[i], b->variant);
	if (!ps || !known) {
		al_err_input(err, "%s has no %s '%s'", p->path,
			     ps ? "variant" : "suite",
			     ps ? b->variant : b->suite);
		goto out;
	}
	if (p->lab[0])
		rq.cell.lab = p->lab;
	if (p->topology[0])
		rq.cell.topology = p->topology;
	rq.cell.variant = b->variant;
	rq.params.length_s = ps->length_s;
	rq.params.streams = ps->streams;
	if (path_mkdirs(b->out_dir) < 0) {
		al_errf(err, "%s: %s", b->out_dir, strerror(errno));
		goto out;
	}
	rc = run_suite(&rq, r, err);
	if (r->dir[0]) {
		if (rc < 0) /* the record carries it (failed, lab-failed) */
			fprintf(stderr, "airlab: %s\n", err->msg);
		rc = bench_send(b->log, r->dir, err);
	}
out:
	free(p);
	return rc;
}
