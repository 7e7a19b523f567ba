/* Flash driver `qemu-image`: "flashing" a QEMU DUT means putting a kernel,
 * an initramfs and a kernel command line into <host state>/flash/, which the
 * qemu power driver boots on the next power-on. The DUT's cell
 * configuration rides along as a second cpio archive appended to the
 * initramfs, so the guest finds it at /etc/airlab/cell.conf.
 *
 * Setting: spare_radios (0): hwsim radios the guest creates beyond the
 * cell's and leaves alone in the network namespace "stabox", named
 * spare1.. (netdev) and sparephy1.. (phy), for a station host that is the
 * same guest (its shell: exec_prefix "ip netns exec stabox").
 * Setting: medium_time_scale (1): airlab-medium's -T, medium time running
 * that many times slower than the host's, so that the simulated air and
 * not the guest's emulated CPU is the cell's bottleneck
 * (harness/medium/README.md).
 * Setting: hw_crypto (on): the radios encrypt CCMP themselves, as ath9k
 * and ath10k do (hwsim's hwcrypto), instead of the guest's CPU for every
 * frame; off: mac80211's software CCMP, stock hwsim.
 *
 * The new image is assembled in flash.new/ and swapped in with one rename,
 * so an interrupted flash never leaves a half image behind. */
#include "../driver.h"
#include "../../util/cpio.h"
#include "../../util/path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COPY_CHUNK (1u << 20)

/* The settings ride in cell.conf only when given. */
struct qemu_image_conf {
	int spare_radios;	  /* -1: not given */
	double medium_time_scale; /* 0: not given */
	int hw_crypto;		  /* -1: not given, else 0 off, 1 on */
};

static const struct drv_setting settings[] = {
    {.name = "spare_radios",
     .type = DRV_INT,
     .min = 0,
     .max = 32,
     DRV_FIELD(struct qemu_image_conf, spare_radios)},
    {.name = "medium_time_scale",
     .type = DRV_DOUBLE,
     .min = 1,
     .max = 1000,
     DRV_FIELD(struct qemu_image_conf, medium_time_scale)},
    {.name = "hw_crypto",
     .type = DRV_CHOICE,
     .choices = drv_on_off,
     DRV_FIELD(struct qemu_image_conf, hw_crypto)},
    {0},
};

/* Appends printf output to the malloc'd string *s; -1 out of memory. */
__attribute__((format(printf, 2, 3))) static int append(char **s,
							const char *fmt, ...)
{
	char *more = NULL, *both = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&more, fmt, ap);
	va_end(ap);
	if (n < 0 || asprintf(&both, "%s%s", *s, more) < 0) {
		free(more);
		return -1;
	}
	free(more);
	free(*s);
	*s = both;
	return 0;
}

static int mkdirs(const char *dev, const char *path, struct al_err *err)
{
	if (path_mkdirs(path) < 0)
		return al_errf(err, "%s: mkdir -p %s: %s", dev, path,
			       strerror(errno));
	return 0;
}

/* Removes a directory holding only plain files (our flash layout). */
static int rm_flat_dir(const char *dev, const char *dir, struct al_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX];

	if (!d)
		return errno == ENOENT ? 0
				       : al_errf(err, "%s: opendir %s: %s", dev,
						 dir, strerror(errno));
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (unlink(p) < 0 && errno != ENOENT) {
			al_errf(err, "%s: unlink %s: %s", dev, p,
				strerror(errno));
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	if (rmdir(dir) < 0 && errno != ENOENT)
		return al_errf(err, "%s: rmdir %s: %s", dev, dir,
			       strerror(errno));
	return 0;
}

static int write_all(const char *dev, int fd, const char *path, const void *buf,
		     size_t len, struct al_err *err)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return al_errf(err, "%s: write %s: %s", dev, path,
				       n < 0 ? strerror(errno) : "wrote 0");
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Copies src to the open fd dst; returns the bytes copied or -1. */
static off_t copy_into(const char *dev, const char *src, int dst,
		       const char *dst_path, struct al_err *err)
{
	char *buf;
	int in = open(src, O_RDONLY | O_CLOEXEC);
	off_t total = 0;

	if (in < 0)
		return al_errf(err, "%s: open %s: %s", dev, src,
			       strerror(errno));
	buf = malloc(COPY_CHUNK);
	if (!buf) {
		close(in);
		return al_errf(err, "%s: copy %s: out of memory", dev, src);
	}
	for (;;) {
		ssize_t n = read(in, buf, COPY_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			al_errf(err, "%s: read %s: %s", dev, src,
				strerror(errno));
			total = -1;
			break;
		}
		if (n == 0)
			break;
		if (write_all(dev, dst, dst_path, buf, (size_t)n, err) < 0) {
			total = -1;
			break;
		}
		total += n;
	}
	free(buf);
	close(in);
	return total;
}

static int create_file(const char *dev, const char *path, struct al_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return al_errf(err, "%s: create %s: %s", dev, path,
			       strerror(errno));
	return fd;
}

static int close_synced(const char *dev, int fd, const char *path,
			struct al_err *err)
{
	int rc = fsync(fd);

	if (close(fd) < 0 || rc < 0)
		return al_errf(err, "%s: write %s: %s", dev, path,
			       strerror(errno));
	return 0;
}

static int copy_file(const char *dev, const char *src, const char *dst,
		     struct al_err *err)
{
	int fd = create_file(dev, dst, err);

	if (fd < 0)
		return -1;
	if (copy_into(dev, src, fd, dst, err) < 0) {
		close(fd);
		return -1;
	}
	return close_synced(dev, fd, dst, err);
}

static int write_text(const char *dev, const char *path, const char *text,
		      struct al_err *err)
{
	int fd = create_file(dev, path, err);

	if (fd < 0)
		return -1;
	if (write_all(dev, fd, path, text, strlen(text), err) < 0) {
		close(fd);
		return -1;
	}
	return close_synced(dev, fd, path, err);
}

/* The base initramfs followed by our archive. The kernel looks for the next
 * archive only at 4-byte aligned offsets, hence the zero padding. */
static int build_initrd(const char *dev, const char *src, const char *dst,
			const char *cell_conf, struct al_err *err)
{
	static const char zeros[4];
	struct cpio_writer w;
	int fd = create_file(dev, dst, err);
	off_t n;

	if (fd < 0)
		return -1;
	n = copy_into(dev, src, fd, dst, err);
	if (n < 0)
		goto fail;
	if ((n & 3) &&
	    write_all(dev, fd, dst, zeros, (size_t)(4 - (n & 3)), err) < 0)
		goto fail;
	cpio_begin(&w, fd, dst);
	if (cpio_add_dir(&w, "etc", 0755, err) < 0 ||
	    cpio_add_dir(&w, "etc/airlab", 0755, err) < 0 ||
	    cpio_add_file(&w, "etc/airlab/cell.conf", 0644, cell_conf,
			  strlen(cell_conf), err) < 0 ||
	    cpio_finish(&w, err) < 0) {
		al_err_prefix(err, "%s", dev);
		goto fail;
	}
	return close_synced(dev, fd, dst, err);
fail:
	close(fd);
	return -1;
}

static int need_file(const char *dev, const char *path, struct al_err *err)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return al_errf(err,
			       "%s: image file %s: %s (run `make image` to "
			       "build the DUT images)",
			       dev, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return al_errf(err, "%s: image file %s is not a regular file",
			       dev, path);
	return 0;
}

/* Puts staging in place of live. RENAME_EXCHANGE swaps in one step; where
 * the filesystem lacks it, the old image is moved aside first. */
static int swap_in(const char *dev, const char *staging, const char *live,
		   const char *old, struct al_err *err)
{
	struct stat st;

	if (stat(live, &st) < 0) {
		if (errno != ENOENT)
			return al_errf(err, "%s: stat %s: %s", dev, live,
				       strerror(errno));
		if (rename(staging, live) < 0)
			return al_errf(err, "%s: rename %s -> %s: %s", dev,
				       staging, live, strerror(errno));
		return 0;
	}
	if (renameat2(AT_FDCWD, staging, AT_FDCWD, live, RENAME_EXCHANGE) == 0)
		return rm_flat_dir(dev, staging, err);
	if (errno != EINVAL && errno != ENOSYS)
		return al_errf(err, "%s: exchange %s <-> %s: %s", dev, staging,
			       live, strerror(errno));
	if (rm_flat_dir(dev, old, err) < 0)
		return -1;
	if (rename(live, old) < 0)
		return al_errf(err, "%s: rename %s -> %s: %s", dev, live, old,
			       strerror(errno));
	if (rename(staging, live) < 0)
		return al_errf(err, "%s: rename %s -> %s: %s", dev, staging,
			       live, strerror(errno));
	return rm_flat_dir(dev, old, err);
}

/* out = a + b; an error when it does not fit. */
static int join(char *out, size_t len, const char *a, const char *b,
		const char *dev, struct al_err *err)
{
	int n = snprintf(out, len, "%s%s", a, b);

	if (n < 0 || (size_t)n >= len)
		return al_errf(err, "%s: path too long: %s%s", dev, a, b);
	return 0;
}

static int qemu_image_flash(const struct drv_target *t,
			    const struct flash_image *img,
			    const struct flash_env *env, struct al_err *err)
{
	/* Offline: the qemu power driver boots what is written here. */
	(void)env;
	const char *dev = t->host->name;
	char src_dir[PATH_MAX], src_kernel[PATH_MAX], src_initrd[PATH_MAX];
	char live[PATH_MAX], staging[PATH_MAX], old[PATH_MAX], p[PATH_MAX];
	char variant_line[256], *conf = NULL;
	struct qemu_image_conf c = {.spare_radios = -1, .hw_crypto = -1};

	if (!img->kernel || !img->kernel[0] || strchr(img->kernel, '/'))
		return al_errf(err, "%s: bad kernel series '%s' for variant %s",
			       dev, img->kernel ? img->kernel : "",
			       img->variant ? img->variant : "?");
	if (!img->cell_conf)
		return al_errf(err,
			       "%s: no cell configuration to flash with "
			       "variant %s",
			       dev, img->variant ? img->variant : "?");
	if (join(src_dir, sizeof(src_dir), t->lab->image_dir, "/", dev, err) ||
	    join(src_dir + strlen(src_dir), sizeof(src_dir) - strlen(src_dir),
		 img->kernel, "", dev, err) ||
	    join(src_kernel, sizeof(src_kernel), src_dir, "/vmlinuz", dev,
		 err) ||
	    join(src_initrd, sizeof(src_initrd), src_dir, "/initrd.img", dev,
		 err) ||
	    join(live, sizeof(live), t->host->state_dir, "/flash", dev, err) ||
	    join(staging, sizeof(staging), live, ".new", dev, err) ||
	    join(old, sizeof(old), live, ".old", dev, err))
		return -1;
	if (drv_settings_read(t, settings, &c, err) < 0)
		return -1;
	if (asprintf(&conf, "%s", img->cell_conf) < 0 ||
	    (c.spare_radios >= 0 &&
	     append(&conf, "AIRLAB_SPARE_RADIOS='%d'\n", c.spare_radios) < 0) ||
	    (c.medium_time_scale > 0 &&
	     append(&conf, "AIRLAB_MEDIUM_ARGS='-T %g'\n",
		    c.medium_time_scale) < 0) ||
	    (c.hw_crypto >= 0 &&
	     append(&conf, "AIRLAB_HW_CRYPTO='%d'\n", c.hw_crypto) < 0))
		return al_errf(err, "%s: out of memory", dev);
	if (need_file(dev, src_kernel, err) < 0 ||
	    need_file(dev, src_initrd, err) < 0 ||
	    mkdirs(dev, t->host->state_dir, err) < 0 ||
	    rm_flat_dir(dev, staging, err) < 0 || mkdirs(dev, staging, err) < 0)
		goto fail;
	if (join(p, sizeof(p), staging, "/vmlinuz", dev, err) ||
	    copy_file(dev, src_kernel, p, err) < 0)
		goto fail;
	if (join(p, sizeof(p), staging, "/initrd.img", dev, err) ||
	    build_initrd(dev, src_initrd, p, conf, err) < 0)
		goto fail;
	if (join(p, sizeof(p), staging, "/cmdline", dev, err) ||
	    write_text(dev, p, "", err) < 0)
		goto fail;
	snprintf(variant_line, sizeof(variant_line), "%s\n",
		 img->variant ? img->variant : "");
	if (join(p, sizeof(p), staging, "/variant", dev, err) ||
	    write_text(dev, p, variant_line, err) < 0)
		goto fail;
	if (swap_in(dev, staging, live, old, err) < 0)
		goto fail;
	free(conf);
	return 0;
fail:
	free(conf);
	rm_flat_dir(dev, staging, NULL);
	return -1;
}

const struct flash_ops flash_qemu_image_ops = {
    .name = "qemu-image",
    .boots = false,
    .flash = qemu_image_flash,
    .settings = settings,
};
