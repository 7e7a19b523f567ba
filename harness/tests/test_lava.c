/* airlab's side of LAVA without a server: reading a job log (console
 * lines, AIRLAB-INFO, base64 file blocks whole, cut or garbled), the job
 * definition (valid YAML, airlab's metadata, names refused), and the
 * one-archive ramdisk LAVA can unpack (GNU cpio reads it all). The server
 * itself is exercised for real by `make check-lava`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../lab/ydoc.h"
#include "../lava/job.h"
#include "../lava/log.h"
#include "../util/cpio.h"

/* "airlab\n" and 0..255: text and every byte value. */
static void payload(unsigned char *p, size_t *len)
{
	memcpy(p, "airlab\n", 7);
	for (int i = 0; i < 256; i++)
		p[7 + i] = (unsigned char)i;
	*len = 263;
}

/* base64(1)'s text for p, without its newlines: the DUT's own encoder is
 * the oracle. */
static char *b64(const unsigned char *p, size_t len)
{
	char path[] = "/tmp/airlab-test-b64.XXXXXX", cmd[64], *out;
	int fd = mkstemp(path), c;
	size_t n = 0;
	FILE *fp;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	close(fd);
	snprintf(cmd, sizeof(cmd), "base64 -w0 %s", path);
	fp = popen(cmd, "r");
	assert_non_null(fp);
	out = calloc(len * 2 + 8, 1);
	while ((c = fgetc(fp)) != EOF)
		if (c != '\n')
			out[n++] = (char)c;
	assert_int_equal(pclose(fp), 0);
	unlink(path);
	return out;
}

/* A log as the dispatcher writes it: the block's base64 split in lines
 * of 76 as base64(1) does, wrapped in target entries; `cut` drops the END
 * line, `garble` puts a kernel message inside the block, `size` is what
 * the BEGIN line claims. */
static char *make_log(const char *enc, size_t size, bool cut, bool garble)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	fputs("- {\"dt\": \"2026-12-06T23:08:19.1\", \"lvl\": \"info\", "
	      "\"msg\": \"AIRLAB-INFO kernel not-from-the-dut\"}\n",
	      f);
	fputs("- {\"dt\": \"2026-12-06T23:08:27.7\", \"lvl\": \"target\", "
	      "\"msg\": \"AIRLAB-INFO kernel 6.1.0-57-amd64\\r\"}\n",
	      f);
	fputs("- {\"dt\": \"2026-12-06T23:08:27.8\", \"lvl\": \"target\", "
	      "\"msg\": \"say \\\"hi\\\" \\\\ \\x41\\e[0m\"}\n",
	      f);
	fputs(
	    "- {\"dt\": \"2026-12-06T23:08:50.6\", \"lvl\": \"results\", "
	    "\"msg\": {\"case\": \"rrul-run\", \"measurement\": ! \"599\"}}\n",
	    f);
	fprintf(f,
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": "
		"\"AIRLAB-FILE-BEGIN data.bin %zu\"}\n",
		size);
	for (size_t i = 0, n = strlen(enc); i < n; i += 76) {
		if (garble && i == 76)
			fputs("- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": "
			      "\"[   12.5] hwsim: a kernel message\"}\n",
			      f);
		fprintf(f,
			"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": "
			"\"%.76s\"}\n",
			enc + i);
	}
	if (!cut)
		fputs("- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": "
		      "\"AIRLAB-FILE-END data.bin\"}\n",
		      f);
	fclose(f);
	return out;
}

static void check_block(bool cut, bool garble, size_t claim, const char *want)
{
	unsigned char p[300], *data = NULL;
	size_t len, n = 0, got = 0;
	char **lines = NULL, *enc, *log;
	struct al_err err = {0};
	int rc;

	payload(p, &len);
	enc = b64(p, len);
	log = make_log(enc, claim ? claim : len, cut, garble);
	assert_int_equal(lava_log_target_lines(log, &lines, &n, &err), 0);
	rc = lava_log_file(lines, n, "data.bin", &data, &got, &err);
	if (!want) {
		assert_int_equal(rc, 0);
		assert_int_equal(got, len);
		assert_memory_equal(data, p, len);
	} else {
		assert_int_equal(rc, -1);
		assert_null(data);
		if (!strstr(err.msg, want))
			fail_msg("error '%s' lacks '%s'", err.msg, want);
	}
	free(data);
	lava_log_lines_free(lines, n);
	free(log);
	free(enc);
}

static void log_file_block_whole(void **state)
{
	(void)state;
	check_block(false, false, 0, NULL);
}

static void log_file_block_cut(void **state)
{
	(void)state;
	check_block(true, false, 0, "cut short");
}

static void log_file_block_garbled(void **state)
{
	(void)state;
	check_block(false, true, 0, "not base64");
}

static void log_file_block_wrong_size(void **state)
{
	(void)state;
	check_block(false, false, 262, "263 bytes, the job said 262");
}

static void log_lines_and_info(void **state)
{
	unsigned char p[300];
	size_t len, n = 0;
	char **lines = NULL, *enc, *log;
	struct al_err err = {0};
	unsigned char *data = NULL;

	(void)state;
	payload(p, &len);
	enc = b64(p, len);
	log = make_log(enc, len, false, false);
	assert_int_equal(lava_log_target_lines(log, &lines, &n, &err), 0);
	/* info and results entries are not the console. */
	assert_int_equal(n, 2 + 2 + (strlen(enc) + 75) / 76);
	/* Escapes undone; control characters (ESC) made harmless. */
	assert_string_equal(lines[1], "say \"hi\" \\ A?[0m");
	/* The DUT's word, not the dispatcher's; the CR gone. */
	assert_string_equal(lava_log_info(lines, n, "kernel"),
			    "6.1.0-57-amd64");
	assert_null(lava_log_info(lines, n, "hostapd"));
	assert_int_equal(
	    lava_log_file(lines, n, "record.json", &data, &len, &err), -1);
	assert_non_null(strstr(err.msg, "no record.json"));
	lava_log_lines_free(lines, n);
	free(log);
	free(enc);
}

/* What bench-run sends comes back byte for byte. */
static void log_send_round_trip(void **state)
{
	char path[] = "/tmp/airlab-test-send.XXXXXX", *sent = NULL, *log = NULL;
	unsigned char p[300], *data = NULL;
	size_t len, slen = 0, llen = 0, n = 0, got = 0;
	char **lines = NULL, *line, *save = NULL;
	struct al_err err = {0};
	FILE *f, *lf;
	int fd;

	(void)state;
	payload(p, &len);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	close(fd);
	f = open_memstream(&sent, &slen);
	assert_int_equal(lava_log_send_file(f, "data.bin", path, &err), 0);
	fclose(f);
	lf = open_memstream(&log, &llen);
	for (line = strtok_r(sent, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(lf,
			"- {\"dt\": \"x\", \"lvl\": \"debug\", \"msg\": "
			"\">> %s\\r\"}\n",
			line);
	fclose(lf);
	assert_int_equal(lava_log_target_lines(log, &lines, &n, &err), 0);
	assert_int_equal(lava_log_file(lines, n, "data.bin", &data, &got, &err),
			 0);
	assert_int_equal(got, len);
	assert_memory_equal(data, p, len);
	free(data);
	lava_log_lines_free(lines, n);
	free(log);
	free(sent);
	unlink(path);
}

static struct lava_job_spec spec(void)
{
	struct lava_job_spec j = {"qemu",
				  "file:///srv/img/vmlinuz",
				  "file:///srv/img/initrd.cpio.gz",
				  "rrul",
				  "mac80211-6.12",
				  "nightly-virtual",
				  "virtual",
				  "cell-4sta",
				  20,
				  120};
	return j;
}

static void job_yaml_loads_with_metadata(void **state)
{
	struct lava_job_spec j = spec();
	struct al_err err = {0};
	char *y = lava_job_yaml(&j, &err), v[64];
	struct ydoc d;
	yaml_node_t *root, *meta;

	(void)state;
	assert_non_null(y);
	assert_int_equal(ydoc_load_buf(&d, "job", y, strlen(y), &err), 0);
	root = ydoc_root(&d);
	meta = ydoc_get(&d, root, "metadata", NULL);
	assert_non_null(meta);
	assert_int_equal(ydoc_get_str(&d, meta, "airlab.variant", "m", 1, v,
				      sizeof(v), &err),
			 0);
	assert_string_equal(v, "mac80211-6.12");
	assert_int_equal(ydoc_get_str(&d, meta, "airlab.length_s", "m", 1, v,
				      sizeof(v), &err),
			 0);
	assert_string_equal(v, "20");
	assert_int_equal(
	    ydoc_get_str(&d, root, "device_type", "job", 1, v, sizeof(v), &err),
	    0);
	assert_string_equal(v, "qemu");
	/* The DUT's step, and LAVA's gzip'd one-archive ramdisk. */
	assert_non_null(strstr(y, "- airlab-lava-run rrul 20 120\n"));
	assert_non_null(strstr(y, "compression: gz\n"));
	assert_non_null(strstr(y, "url: \"file:///srv/img/initrd.cpio.gz\""));
	ydoc_free(&d);
	free(y);
}

static void job_yaml_refuses_bad_names(void **state)
{
	struct lava_job_spec j = spec();
	struct al_err err = {0};

	(void)state;
	j.suite = "rrul; reboot";
	assert_null(lava_job_yaml(&j, &err));
	assert_non_null(strstr(err.msg, "suite 'rrul; reboot'"));
	j = spec();
	j.ramdisk_url = "file:///a\"b";
	assert_null(lava_job_yaml(&j, &err));
	j = spec();
	j.length_s = 0;
	assert_null(lava_job_yaml(&j, &err));
}

/* Two archives (the image's userland and modules), zero padding between
 * and after, as the image builder writes them; copied and joined with
 * the cell's file into one archive that GNU cpio reads to the end. */
static void ramdisk_one_archive(void **state)
{
	char dir[] = "/tmp/airlab-test-lava.XXXXXX", in[64], out[64];
	char cmd[256], line[128];
	static const char zeros[512];
	struct cpio_writer w;
	struct al_err err = {0};
	gzFile gin, gout;
	FILE *fp, *ls;
	int found = 0, lines = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/base.cpio.gz", dir);
	snprintf(out, sizeof(out), "%s/joined.cpio.gz", dir);
	gout = gzopen(in, "wb");
	cpio_begin_gz(&w, gout, in);
	assert_int_equal(cpio_add_dir(&w, "bin", 0755, &err), 0);
	assert_int_equal(cpio_add_file(&w, "bin/a", 0755, "aaa", 3, &err), 0);
	assert_int_equal(cpio_finish(&w, &err), 0);
	gzwrite(gout, zeros, 128);
	cpio_begin_gz(&w, gout, in);
	assert_int_equal(cpio_add_file(&w, "mod.ko", 0644, "kk", 2, &err), 0);
	assert_int_equal(cpio_finish(&w, &err), 0);
	gzwrite(gout, zeros, sizeof(zeros));
	gzclose(gout);

	gin = gzopen(in, "rb");
	gout = gzopen(out, "wb");
	cpio_begin_gz(&w, gout, out);
	assert_int_equal(cpio_copy_entries(&w, gin, in, &err), 0);
	assert_int_equal(cpio_add_file(&w, "cell.conf", 0644, "X=1\n", 4, &err),
			 0);
	assert_int_equal(cpio_finish(&w, &err), 0);
	gzclose(gin);
	gzclose(gout);

	snprintf(cmd, sizeof(cmd), "zcat %s | cpio -it 2>/dev/null", out);
	ls = popen(cmd, "r");
	assert_non_null(ls);
	while (fgets(line, sizeof(line), ls)) {
		line[strcspn(line, "\n")] = 0;
		lines++;
		found += !strcmp(line, "bin/a") + !strcmp(line, "mod.ko") +
			 !strcmp(line, "cell.conf");
	}
	assert_int_equal(pclose(ls), 0);
	assert_int_equal(found, 3);
	assert_int_equal(lines, 4);

	/* A base cut inside an entry is said, not passed on. */
	fp = fopen(in, "r+");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), 40), 0);
	fclose(fp);
	gin = gzopen(in, "rb");
	gout = gzopen(out, "wb");
	cpio_begin_gz(&w, gout, out);
	assert_int_equal(cpio_copy_entries(&w, gin, in, &err), -1);
	gzclose(gin);
	gzclose(gout);
	assert_non_null(strstr(err.msg, in));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(log_file_block_whole),
	    cmocka_unit_test(log_file_block_cut),
	    cmocka_unit_test(log_file_block_garbled),
	    cmocka_unit_test(log_file_block_wrong_size),
	    cmocka_unit_test(log_lines_and_info),
	    cmocka_unit_test(log_send_round_trip),
	    cmocka_unit_test(job_yaml_loads_with_metadata),
	    cmocka_unit_test(job_yaml_refuses_bad_names),
	    cmocka_unit_test(ramdisk_one_archive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
