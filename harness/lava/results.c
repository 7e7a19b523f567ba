#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lab/ydoc.h"
#include "../results/run_doc.h"
#include "../results/store.h"
#include "../util/json_file.h"
#include "../util/path.h"
#include "log.h"

/* The record airlab-suite-local writes in the DUT (--record). */
#define RECORD_NAME "record.json"

static void copy_str(char *out, size_t len, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	snprintf(out, len, "%s", json_is_string(v) ? json_string_value(v) : "");
}

/* airlab's keys in the definition's metadata: map. */
static int read_metadata(struct lava_job *j, const char *def,
			 struct al_err *err)
{
	struct ydoc d;
	yaml_node_t *root, *meta;
	char name[64], len[32];
	const struct {
		const char *key;
		char *out;
		size_t size;
	} keys[] = {
	    {"airlab.suite", j->suite, sizeof(j->suite)},
	    {"airlab.variant", j->variant, sizeof(j->variant)},
	    {"airlab.plan", j->plan, sizeof(j->plan)},
	    {"airlab.lab", j->lab, sizeof(j->lab)},
	    {"airlab.topology", j->topology, sizeof(j->topology)},
	    {"airlab.length_s", len, sizeof(len)},
	};

	snprintf(name, sizeof(name), "LAVA job %ld definition", j->id);
	if (ydoc_load_buf(&d, name, def, strlen(def), err) < 0)
		return -1;
	root = ydoc_root(&d);
	meta = root && root->type == YAML_MAPPING_NODE
		   ? ydoc_get(&d, root, "metadata", NULL)
		   : NULL;
	for (size_t i = 0; meta && meta->type == YAML_MAPPING_NODE &&
			   i < sizeof(keys) / sizeof(keys[0]);
	     i++)
		if (ydoc_get_str(&d, meta, keys[i].key, "metadata", 0,
				 keys[i].out, keys[i].size, err) < 0) {
			ydoc_free(&d);
			return -1;
		}
	ydoc_free(&d);
	if (!j->suite[0] || !j->variant[0])
		return al_errf(err,
			       "LAVA job %ld was not submitted by airlab (its "
			       "metadata has no airlab.suite and "
			       "airlab.variant)",
			       j->id);
	j->length_s = len[0] ? atof(len) : 0;
	return 0;
}

int lava_job_get(const struct lava_server *s, long id, struct lava_job *j,
		 struct al_err *err)
{
	char path[64];
	json_t *o, *def;
	int rc;

	memset(j, 0, sizeof(*j));
	j->id = id;
	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/", id);
	if (!(o = lava_get_json(s, path, err)))
		return al_err_prefix(err, "job %ld", id);
	copy_str(j->state, sizeof(j->state), o, "state");
	copy_str(j->health, sizeof(j->health), o, "health");
	copy_str(j->start_time, sizeof(j->start_time), o, "start_time");
	copy_str(j->end_time, sizeof(j->end_time), o, "end_time");
	copy_str(j->failure, sizeof(j->failure), o, "failure_comment");
	if (json_is_integer(json_object_get(o, "actual_device")))
		snprintf(
		    j->device, sizeof(j->device), "%lld",
		    json_integer_value(json_object_get(o, "actual_device")));
	else
		copy_str(j->device, sizeof(j->device), o, "actual_device");
	def = json_object_get(o, "definition");
	rc = json_is_string(def)
		 ? read_metadata(j, json_string_value(def), err)
		 : al_errf(err, "LAVA job %ld: the server sent no definition",
			   id);
	json_decref(o);
	return rc;
}

bool lava_job_finished(const struct lava_job *j)
{
	return strcmp(j->state, "Finished") == 0;
}

/* Every test case of the job, LAVA's own (suite "lava") and airlab's. */
static json_t *job_cases(const struct lava_server *s, long id,
			 struct al_err *err)
{
	json_t *all = json_array();

	for (size_t off = 0;;) {
		char path[128];
		json_t *page, *res;
		size_t n;

		snprintf(path, sizeof(path),
			 "/api/v0.2/jobs/%ld/tests/?limit=100&offset=%zu", id,
			 off);
		if (!(page = lava_get_json(s, path, err))) {
			json_decref(all);
			return NULL;
		}
		res = json_object_get(page, "results");
		n = json_array_size(res);
		for (size_t i = 0; i < n; i++) {
			json_t *c = json_array_get(res, i), *m;
			const char *ms;

			m = json_object_get(c, "measurement");
			ms = json_is_string(m) ? json_string_value(m) : NULL;
			json_array_append_new(
			    all,
			    json_pack(
				"{s:O?, s:O?, s:o, s:O?, s:O?}", "name",
				json_object_get(c, "name"), "result",
				json_object_get(c, "result"), "measurement",
				ms ? json_real(atof(ms)) : json_null(), "units",
				json_object_get(c, "unit"),
				/* LAVA's YAML text: the "job" case's
				 * error_msg is the job's reason */
				"metadata", json_object_get(c, "metadata")));
		}
		off += n;
		if (n == 0 || json_is_null(json_object_get(page, "next"))) {
			json_decref(page);
			return all;
		}
		json_decref(page);
	}
}

/* "2026-12-06T23:01:02.123Z" as "20261206T230102Z" (a run id's start). */
static void id_stamp(const char *iso, char *out, size_t len)
{
	int y, mo, d, h, mi, sec;

	if (sscanf(iso, "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &sec) == 6)
		snprintf(out, len, "%04d%02d%02dT%02d%02d%02dZ", y, mo, d, h,
			 mi, sec);
	else
		path_utc_stamp(out, len);
}

static int write_file(const char *dir, const char *name, const void *data,
		      size_t len, struct al_err *err)
{
	char path[4800], tmp[4808];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fp = fopen(tmp, "wxe");
	if (!fp)
		return al_errf(err, "%s: %s", tmp, strerror(errno));
	if (fwrite(data, 1, len, fp) != len || fflush(fp) != 0 ||
	    fsync(fileno(fp)) != 0) {
		al_errf(err, "%s: %s", tmp, strerror(errno));
		fclose(fp);
		unlink(tmp);
		return -1;
	}
	fclose(fp);
	if (rename(tmp, path) < 0) {
		al_errf(err, "%s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void add_reason(char *buf, size_t len, const char *fmt, const char *a)
{
	size_t used = strlen(buf);

	if (used && used + 2 < len)
		used += (size_t)snprintf(buf + used, len - used, "; ");
	if (used < len)
		snprintf(buf + used, len - used, fmt, a);
}

/* LAVA's reason for a job that did not complete when the job has no
 * failure comment: its "job" case's error_msg, cut at the line's end
 * into buf. */
static const char *job_error(json_t *cases, char *buf, size_t len)
{
	size_t i;
	json_t *c;

	json_array_foreach(cases, i, c)
	{
		const char *n = json_string_value(json_object_get(c, "name"));
		const char *m =
		    json_string_value(json_object_get(c, "metadata"));
		const char *e = m ? strstr(m, "error_msg: ") : NULL;

		if (!e || !n || strcmp(n, "job") != 0)
			continue;
		e += 11;
		snprintf(buf, len, "%.*s", (int)strcspn(e, "\n"), e);
		return buf;
	}
	return "no reason given";
}

/* The record's status, then LAVA's word on it: a job that did not
 * finish well, a failing test case. */
static void judge(const struct lava_job *j, json_t *record, json_t *cases,
		  const char *why_no_record, struct lava_stored *out)
{
	const char *rs =
	    record ? json_string_value(json_object_get(record, "status"))
		   : NULL;
	const char *rr =
	    record ? json_string_value(json_object_get(record, "reasons"))
		   : NULL;
	char failed[512] = "";
	size_t i;
	json_t *c;

	snprintf(out->status, sizeof(out->status), "%s", rs ? rs : "failed");
	snprintf(out->reasons, sizeof(out->reasons), "%s", rr ? rr : "");
	json_array_foreach(cases, i, c)
	{
		const char *res =
		    json_string_value(json_object_get(c, "result"));

		if (res && strcmp(res, "fail") == 0)
			add_reason(
			    failed, sizeof(failed), "%s",
			    json_string_value(json_object_get(c, "name")));
	}
	if (strcmp(j->health, "Complete") != 0) {
		char why[700], lava_why[400];

		snprintf(why, sizeof(why), "LAVA job %ld %s: %s", j->id,
			 j->health,
			 j->failure[0]
			     ? j->failure
			     : job_error(cases, lava_why, sizeof(lava_why)));
		/* No record: the lab failed before the suite ran. */
		snprintf(out->status, sizeof(out->status), "%s",
			 record ? "failed" : "lab-failed");
		add_reason(out->reasons, sizeof(out->reasons), "%s", why);
	} else if (!record) {
		add_reason(out->reasons, sizeof(out->reasons), "%s",
			   why_no_record);
	}
	if (failed[0]) {
		if (strcmp(out->status, "complete") == 0)
			snprintf(out->status, sizeof(out->status), "failed");
		add_reason(out->reasons, sizeof(out->reasons),
			   "failing LAVA test cases: %s", failed);
	}
}

/* The run's record: the job's metadata and log, and the run's own part
 * (summary, flows, goodput, Flent file) as the DUT wrote it. */
static int run_write(const struct lava_server *s, const struct lava_job *j,
		     const struct lava_stored *st, json_t *record,
		     json_t *cases, char *const *lines, size_t n,
		     const char *commit, struct al_err *err)
{
	char url[1200];
	const char *kernel = lava_log_info(lines, n, "kernel");
	const char *hostapd = lava_log_info(lines, n, "hostapd");
	const char *wpa = lava_log_info(lines, n, "wpa_supplicant");
	struct run_doc d = {
	    .id = st->run_id,
	    .status = st->status,
	    .reasons = st->reasons,
	    .lab = j->lab,
	    .lab_file = "",
	    .topology = j->topology,
	    .variant = j->variant,
	    .suite = j->suite,
	    .length_s = j->length_s,
	    .step_s = json_num_at(record, "step_s"),
	    .kernel = kernel ? kernel : "",
	    .hostapd = hostapd ? hostapd : "",
	    .wpa_supplicant = wpa ? wpa : "",
	    .airlab_commit = commit,
	    .start = j->start_time,
	    .end = j->end_time,
	    .flent_file = json_str_at(record, "flent_file", NULL),
	    .summary = json_object_get(record, "summary"),
	    .flows = json_object_get(record, "flows"),
	    .station_goodput = json_object_get(record, "station_goodput"),
	};
	int rc;

	lava_job_url(s, j->id, url, sizeof(url));
	d.stations = json_array();
	/* The host cannot read the medium or nl80211 around a LAVA job. */
	d.airtime = json_pack("{s:{s:s}, s:{s:s}}", "medium", "error",
			      "not read in a LAVA job", "nl80211", "error",
			      "not read in a LAVA job");
	d.lava =
	    json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:O}", "server",
		      s->url, "job_id", (json_int_t)j->id, "url", url, "device",
		      j->device, "state", j->state, "health", j->health,
		      "failure_comment", j->failure, "cases", cases);
	rc = run_doc_write(st->dir, &d, err);
	json_decref(d.stations);
	json_decref(d.airtime);
	json_decref(d.lava);
	return rc;
}

/* A Flent file name from the job, written into the run directory: one
 * plain name that cannot land on run.json or lava.log. */
static bool flent_name_ok(const char *n)
{
	size_t len = strlen(n), sfx = strlen(".flent.gz");

	return len > sfx && n[0] != '.' && !strchr(n, '/') &&
	       strcmp(n + len - sfx, ".flent.gz") == 0;
}

int lava_job_store(const struct lava_server *s, const struct lava_job *j,
		   const char *results_dir, const char *airlab_commit,
		   struct lava_stored *out, struct al_err *err)
{
	char stamp[32], path[4800], why[1024] = "", logpath[64];
	char **lines = NULL, *log = NULL;
	unsigned char *data = NULL;
	size_t n = 0, len;
	json_t *cases = NULL, *record = NULL;
	struct store *db;
	struct stat st;
	struct al_err e2;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!lava_job_finished(j))
		return al_errf(err, "LAVA job %ld is %s, not finished yet",
			       j->id, j->state);
	id_stamp(j->start_time[0] ? j->start_time : j->end_time, stamp,
		 sizeof(stamp));
	snprintf(out->run_id, sizeof(out->run_id), "%s-%s-%s-lava%ld", stamp,
		 j->suite, j->variant, j->id);
	snprintf(out->dir, sizeof(out->dir), "%s/%s", results_dir, out->run_id);
	snprintf(path, sizeof(path), "%s/run.json", out->dir);
	if (stat(path, &st) == 0) {
		struct run_doc old;

		/* What was stored stands; its verdict is told again. */
		out->already = true;
		snprintf(out->status, sizeof(out->status), "%s",
			 run_doc_read(out->dir, &old, &e2) == 0 ? old.status
								: "unreadable");
		run_doc_free(&old);
		return 0;
	}
	if (path_mkdirs(out->dir) < 0)
		return al_errf(err, "%s: %s", out->dir, strerror(errno));
	if (!(cases = job_cases(s, j->id, err)))
		goto out;
	/* A job that never booted may have a log without a line from the
	 * DUT; one with no log at all says so in its failure. */
	snprintf(logpath, sizeof(logpath), "/api/v0.2/jobs/%ld/logs/", j->id);
	if (lava_get(s, logpath, &log, &e2) < 0)
		snprintf(why, sizeof(why), "no job log: %.900s", e2.msg);
	else if (write_file(out->dir, "lava.log", log, strlen(log), err) < 0 ||
		 lava_log_target_lines(log, &lines, &n, err) < 0)
		goto out;
	if (log && lava_log_file(lines, n, RECORD_NAME, &data, &len, &e2) < 0)
		snprintf(why, sizeof(why), "%s", e2.msg);
	else if (data) {
		json_error_t je;
		json_t *fn;

		record = json_loadb((const char *)data, len, 0, &je);
		free(data);
		data = NULL;
		fn = record ? json_object_get(record, "flent_file") : NULL;
		if (!record) {
			snprintf(why, sizeof(why), "%s from the job: %s",
				 RECORD_NAME, je.text);
		} else if (!fn || json_is_null(fn)) {
			/* A run that made no Flent file (its lab failed):
			 * the record and its verdict are all there is. */
		} else if (!json_is_string(fn) ||
			   !flent_name_ok(json_string_value(fn))) {
			snprintf(why, sizeof(why),
				 "%s names no Flent file of its own (a plain "
				 "*.flent.gz name)",
				 RECORD_NAME);
			json_decref(record);
			record = NULL;
		} else if (lava_log_file(lines, n, json_string_value(fn), &data,
					 &len, &e2) < 0) {
			snprintf(why, sizeof(why), "%s", e2.msg);
			json_decref(record);
			record = NULL;
		} else if (write_file(out->dir, json_string_value(fn), data,
				      len, err) < 0) {
			goto out;
		}
	}
	judge(j, record, cases, why, out);
	if (run_write(s, j, out, record, cases, lines, n, airlab_commit, err) <
	    0)
		goto out;
	rc = 0;
	/* The directory is the truth; an index that cannot take it is
	 * rebuilt later (airlab reindex). */
	if (store_open(&db, results_dir, &e2) < 0 ||
	    store_add_run(db, out->dir, &e2) < 0)
		fprintf(stderr,
			"airlab lava: %s (the run is kept in %s; `airlab "
			"reindex` indexes it)\n",
			e2.msg, out->dir);
	store_close(db);
out:
	free(data);
	free(log);
	lava_log_lines_free(lines, n);
	json_decref(cases);
	json_decref(record);
	return rc;
}

enum lava_worst lava_jobs_store(const struct lava_server *s, const long *ids,
				size_t n, const char *results_dir,
				const char *airlab_commit, FILE *out)
{
	enum lava_worst worst = LAVA_ALL_COMPLETE;

	for (size_t i = 0; i < n; i++) {
		struct lava_stored st;
		struct lava_job j;
		struct al_err err;

		if (lava_job_get(s, ids[i], &j, &err) < 0 ||
		    lava_job_store(s, &j, results_dir, airlab_commit, &st,
				   &err) < 0) {
			fprintf(stderr, "airlab lava results: %s\n", err.msg);
			worst = LAVA_SOME_FAILED;
			continue;
		}
		if (st.already)
			fprintf(out, "job %ld: already stored as %s (%s)\n",
				ids[i], st.run_id, st.status);
		else
			fprintf(out, "job %ld: %s on %s %s, run %s in %s%s%s\n",
				ids[i], j.suite, j.variant, st.status,
				st.run_id, st.dir, st.reasons[0] ? ": " : "",
				st.reasons);
		if (!strcmp(st.status, "partial") && worst < LAVA_SOME_PARTIAL)
			worst = LAVA_SOME_PARTIAL;
		else if (strcmp(st.status, "complete") &&
			 strcmp(st.status, "partial"))
			worst = LAVA_SOME_FAILED;
	}
	return worst;
}
