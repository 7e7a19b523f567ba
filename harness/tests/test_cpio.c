/* The newc cpio writer, checked by Debian's own cpio, and the qemu-image
 * flash driver that appends such an archive to the DUT's initramfs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../drivers/driver.h"
#include "../util/cpio.h"

static const char conf[] = "AP_SSID=airlab\nSTATIONS=4\n";

/* Runs a shell command, returns its stdout+stderr (malloc'd) and sets
 * *status. */
static char *run(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	char *out = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&out, &len);
	int ch;

	assert_non_null(p);
	assert_non_null(mem);
	while ((ch = fgetc(p)) != EOF)
		fputc(ch, mem);
	fclose(mem);
	*status = pclose(p);
	return out;
}

static char *run_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *run_ok(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int status;
	char *out;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	out = run(cmd, &status);
	if (status != 0)
		fail_msg("`%s` failed (%d): %s", cmd, status, out);
	return out;
}

static off_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static void make_tmpdir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/airlab-test-cpio.XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void rm_rf(const char *dir)
{
	char *out = run_ok("rm -rf '%s'", dir);
	free(out);
}

/* cpio's stderr holds only its block count: it warns about "junk" when a
 * header is not where the previous entry's padding says. */
static void assert_only_block_count(const char *dir)
{
	char *out = run_ok("cat '%s/stderr'", dir);
	unsigned blocks;
	char tail[16] = "";

	if (sscanf(out, "%u block%15s", &blocks, tail) < 1 ||
	    (strcmp(tail, "") && strcmp(tail, "s")) || !strchr(out, '\n') ||
	    strchr(out, '\n')[1])
		fail_msg("cpio said: %s", out);
	free(out);
}

/* Names and sizes 0..5 bytes so every padding case occurs. */
static const struct {
	const char *name;
	const char *data;
} files[] = {
    {"a", ""},	     {"bb", "1"},	{"ccc", "22"},
    {"dddd", "333"}, {"eeeee", "4444"}, {"etc/airlab/cell.conf", conf},
};

static void archive_lists_and_extracts(void **state)
{
	(void)state;
	char dir[64], path[128];
	struct cpio_writer w;
	struct al_err err = {0};
	char *out;
	int fd;

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/test.cpio", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	cpio_begin(&w, fd, path);
	assert_int_equal(cpio_add_dir(&w, "etc", 0755, &err), 0);
	assert_int_equal(cpio_add_dir(&w, "etc/airlab", 0755, &err), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		assert_int_equal(cpio_add_file(&w, files[i].name, 0644,
					       files[i].data,
					       strlen(files[i].data), &err),
				 0);
	assert_int_equal(cpio_finish(&w, &err), 0);
	close(fd);
	assert_int_equal(file_size(path) % 4, 0);
	assert_int_equal((uint64_t)file_size(path), w.written);

	out = run_ok("cpio -it < '%s' 2>'%s/stderr'", path, dir);
	assert_string_equal(out, "etc\netc/airlab\na\nbb\nccc\ndddd\neeeee\n"
				 "etc/airlab/cell.conf\n");
	free(out);
	assert_only_block_count(dir);
	out = run_ok("cpio -itv < '%s' 2>/dev/null | awk '{print $1, $NF}'",
		     path);
	assert_non_null(strstr(out, "drwxr-xr-x etc\n"));
	assert_non_null(strstr(out, "drwxr-xr-x etc/airlab\n"));
	assert_non_null(strstr(out, "-rw-r--r-- etc/airlab/cell.conf\n"));
	free(out);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		out = run_ok("cpio -i --quiet --to-stdout '%s' < '%s'",
			     files[i].name, path);
		assert_string_equal(out, files[i].data);
		free(out);
	}
	rm_rf(dir);
}

static void bad_names_refused(void **state)
{
	(void)state;
	struct cpio_writer w;
	struct al_err err = {0};
	int fd = open("/dev/null", O_WRONLY);

	cpio_begin(&w, fd, "/dev/null");
	assert_int_equal(cpio_add_file(&w, "/etc/passwd", 0644, "", 0, &err),
			 -1);
	assert_non_null(strstr(err.msg, "/etc/passwd"));
	assert_int_equal(cpio_add_dir(&w, "", 0755, &err), -1);
	assert_int_equal(cpio_add_dir(&w, "TRAILER!!!", 0755, &err), -1);
	assert_int_equal(w.written, 0);
	close(fd);
}

/* ---- the flash driver ---- */

struct flash_fixture {
	char dir[64];
	struct lab lab;
	struct lab_host host;
	struct drv_target t;
	off_t base_len;
};

/* An image directory with a stand-in kernel and a gzip-compressed base
 * initramfs whose length is not a multiple of 4. */
static int flash_setup(void **state)
{
	struct flash_fixture *f = calloc(1, sizeof(*f));
	char *out;
	char initrd[4200];

	assert_non_null(f);
	make_tmpdir(f->dir, sizeof(f->dir));
	snprintf(f->lab.image_dir, sizeof(f->lab.image_dir), "%s/images",
		 f->dir);
	snprintf(f->host.name, sizeof(f->host.name), "dut1");
	snprintf(f->host.flash.driver, sizeof(f->host.flash.driver),
		 "qemu-image");
	snprintf(f->host.state_dir, sizeof(f->host.state_dir), "%s/state/dut1",
		 f->dir);
	f->t.lab = &f->lab;
	f->t.host = &f->host;
	f->t.binding = &f->host.flash;
	snprintf(initrd, sizeof(initrd), "%s/6.1/initrd.img", f->lab.image_dir);
	for (int pad = 0;; pad++) {
		out = run_ok("set -e; cd '%s'; mkdir -p images/6.1 base/etc; "
			     "echo base-%d > base/etc/hostname; "
			     "head -c 4099 /dev/urandom > images/6.1/vmlinuz; "
			     "cd base; find etc | cpio -o -H newc --quiet | "
			     "gzip -n > ../images/6.1/initrd.img",
			     f->dir, pad);
		free(out);
		if (file_size(initrd) % 4)
			break;
	}
	f->base_len = file_size(initrd);
	*state = f;
	return 0;
}

static int flash_teardown(void **state)
{
	struct flash_fixture *f = *state;

	rm_rf(f->dir);
	free(f);
	return 0;
}

static void flash_appends_cell_conf(void **state)
{
	struct flash_fixture *f = *state;
	struct flash_image img = {"stock-6.1", "6.1", conf};
	struct al_err err = {0};
	char *out;
	off_t aligned = (f->base_len + 3) & ~(off_t)3;

	if (flash_qemu_image_ops.flash(&f->t, &img, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	out =
	    run_ok("cd '%s' && cmp images/6.1/vmlinuz state/dut1/flash/vmlinuz"
		   " && cmp -n %lld images/6.1/initrd.img "
		   "state/dut1/flash/initrd.img && cat state/dut1/flash/variant"
		   " state/dut1/flash/cmdline && ls state/dut1",
		   f->dir, (long long)f->base_len);
	/* No staging or old directories left behind. */
	assert_string_equal(out, "stock-6.1\nflash\n");
	free(out);
	/* Zero padding up to the 4-byte boundary, then our archive. */
	out = run_ok("cd '%s'/state/dut1/flash && "
		     "tail -c +%lld initrd.img | head -c %lld | od -An -tx1 | "
		     "tr -d ' \\n'; tail -c +%lld initrd.img | "
		     "cpio -it 2>'%s/stderr'",
		     f->dir, (long long)f->base_len + 1,
		     (long long)(aligned - f->base_len), (long long)aligned + 1,
		     f->dir);
	char expect[256];
	snprintf(expect, sizeof(expect),
		 "%.*setc\netc/airlab\netc/airlab/cell.conf\n",
		 (int)(aligned - f->base_len) * 2, "000000");
	assert_string_equal(out, expect);
	free(out);
	assert_only_block_count(f->dir);
	out = run_ok("cd '%s'/state/dut1/flash && tail -c +%lld initrd.img | "
		     "cpio -i --quiet --to-stdout etc/airlab/cell.conf",
		     f->dir, (long long)aligned + 1);
	assert_string_equal(out, conf);
	free(out);
	/* The base archive is still intact in front. */
	out = run_ok("cd '%s'/state/dut1/flash && head -c %lld initrd.img | "
		     "gzip -dc | cpio -i --quiet --to-stdout etc/hostname",
		     f->dir, (long long)f->base_len);
	assert_non_null(strstr(out, "base-"));
	free(out);

	/* Flashing again replaces the image as a whole. */
	img.variant = "fq_codel-6.1";
	img.cell_conf = "STATIONS=2\n";
	if (flash_qemu_image_ops.flash(&f->t, &img, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	out = run_ok("cd '%s'/state/dut1 && cat flash/variant && ls && "
		     "tail -c +%lld flash/initrd.img | "
		     "cpio -i --quiet --to-stdout etc/airlab/cell.conf",
		     f->dir, (long long)aligned + 1);
	assert_string_equal(out, "fq_codel-6.1\nflash\nSTATIONS=2\n");
	free(out);
}

/* Flashes img and returns the cell.conf riding after the base initrd
 * (which ends at aligned). */
static char *flash_cell_conf(struct flash_fixture *f,
			     const struct flash_image *img, off_t aligned)
{
	struct al_err err = {0};

	if (flash_qemu_image_ops.flash(&f->t, img, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	return run_ok("cd '%s'/state/dut1/flash && tail -c +%lld initrd.img | "
		      "cpio -i --quiet --to-stdout etc/airlab/cell.conf",
		      f->dir, (long long)aligned + 1);
}

/* spare_radios: the guest's extra radios ride in cell.conf; a bad value
 * is refused at its line before anything is written. */
static void flash_spare_radios(void **state)
{
	struct flash_fixture *f = *state;
	struct flash_image img = {"stock-6.1", "6.1", "STATIONS=1\n"};
	struct lab_param *p = &f->host.flash.params[0];
	static char two[] = "2", bad[] = "2x";
	struct al_err err = {0};
	off_t aligned = (f->base_len + 3) & ~(off_t)3;
	char *out;

	snprintf(f->lab.path, sizeof(f->lab.path), "lab.yaml");
	snprintf(p->key, sizeof(p->key), "spare_radios");
	p->value = two;
	p->line = 9;
	f->host.flash.nparams = 1;
	out = flash_cell_conf(f, &img, aligned);
	assert_string_equal(out, "STATIONS=1\nAIRLAB_SPARE_RADIOS='2'\n");
	free(out);

	p->value = bad;
	img.variant = "fq_codel-6.1";
	assert_int_equal(flash_qemu_image_ops.flash(&f->t, &img, NULL, &err),
			 -1);
	assert_non_null(strstr(err.msg, "lab.yaml:9: dut1 flash (driver "
					"qemu-image): spare_radios '2x' is not "
					"a whole number from 0 to 32"));
	out = run_ok("cat '%s'/state/dut1/flash/variant", f->dir);
	assert_string_equal(out, "stock-6.1\n");
	free(out);

	/* hw_crypto: the radios' CCMP engine on or off, said in cell.conf
	 * (the image's init turns it into hwsim's hwcrypto). */
	static char off[] = "off", maybe[] = "maybe";
	img.variant = "stock-6.1";
	snprintf(p->key, sizeof(p->key), "hw_crypto");
	p->value = off;
	out = flash_cell_conf(f, &img, aligned);
	assert_string_equal(out, "STATIONS=1\nAIRLAB_HW_CRYPTO='0'\n");
	free(out);
	p->value = maybe;
	assert_int_equal(flash_qemu_image_ops.flash(&f->t, &img, NULL, &err),
			 -1);
	assert_non_null(strstr(err.msg, "lab.yaml:9: dut1 flash (driver "
					"qemu-image): hw_crypto 'maybe' is not "
					"one of on, off"));
	f->host.flash.nparams = 0;
}

static void flash_missing_image_says_make_image(void **state)
{
	struct flash_fixture *f = *state;
	struct flash_image img = {"mac80211-6.12", "6.12", conf};
	struct al_err err = {0};
	char want[4200];

	assert_int_equal(flash_qemu_image_ops.flash(&f->t, &img, NULL, &err),
			 -1);
	snprintf(want, sizeof(want), "%s/6.12/vmlinuz", f->lab.image_dir);
	assert_non_null(strstr(err.msg, want));
	assert_non_null(strstr(err.msg, "make image"));
	assert_non_null(strstr(err.msg, "dut1"));
	/* Nothing was half-written. */
	assert_int_equal(access(f->host.state_dir, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(archive_lists_and_extracts),
	    cmocka_unit_test(bad_names_refused),
	    cmocka_unit_test_setup_teardown(flash_appends_cell_conf,
					    flash_setup, flash_teardown),
	    cmocka_unit_test_setup_teardown(flash_spare_radios, flash_setup,
					    flash_teardown),
	    cmocka_unit_test_setup_teardown(flash_missing_image_says_make_image,
					    flash_setup, flash_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
