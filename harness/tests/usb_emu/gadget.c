#include "gadget.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/usb/functionfs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

int emu_write(const char *dir, const char *file, const void *s, size_t len)
{
	char path[512];
	int fd;
	ssize_t w;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "usb-emu: open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	w = write(fd, s, len);
	if (w != (ssize_t)len) {
		fprintf(stderr, "usb-emu: write %s: %s\n", path,
			w < 0 ? strerror(errno) : "short");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int emu_writes(const char *dir, const char *file, const char *s)
{
	return emu_write(dir, file, s, strlen(s));
}

static int mk(const char *path)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	fprintf(stderr, "usb-emu: mkdir %s: %s\n", path, strerror(errno));
	return -1;
}

int gadget_create(struct gadget *g, const struct gadget_ids *ids)
{
	char dir[256], sub[400], v[16];

	snprintf(dir, sizeof(dir), GADGET_ROOT "/%s", g->name);
	if (mk(dir) < 0)
		return -1;
	snprintf(v, sizeof(v), "0x%04x", ids->vid);
	if (emu_writes(dir, "idVendor", v) < 0)
		return -1;
	snprintf(v, sizeof(v), "0x%04x", ids->pid);
	if (emu_writes(dir, "idProduct", v) < 0)
		return -1;
	snprintf(v, sizeof(v), "0x%04x", ids->bcd_device);
	if (emu_writes(dir, "bcdDevice", v) < 0 ||
	    emu_writes(dir, "bcdUSB", "0x0200") < 0)
		return -1;
	snprintf(sub, sizeof(sub), "%s/strings/0x409", dir);
	if (mk(sub) < 0 ||
	    emu_writes(sub, "manufacturer", ids->manufacturer) < 0 ||
	    emu_writes(sub, "product", ids->product) < 0 ||
	    emu_writes(sub, "serialnumber", ids->serial) < 0)
		return -1;
	snprintf(sub, sizeof(sub), "%s/configs/c.1", dir);
	if (mk(sub) < 0 || emu_writes(sub, "MaxPower", "100") < 0)
		return -1;
	snprintf(sub, sizeof(sub), "%s/configs/c.1/strings/0x409", dir);
	if (mk(sub) < 0 || emu_writes(sub, "configuration", "airlab") < 0)
		return -1;
	snprintf(sub, sizeof(sub), "%s/functions/%s", dir, g->func);
	return mk(sub);
}

void gadget_function_dir(const struct gadget *g, char *out, size_t len)
{
	snprintf(out, len, GADGET_ROOT "/%s/functions/%s", g->name, g->func);
}

int gadget_link(struct gadget *g)
{
	char from[320], to[320];

	gadget_function_dir(g, from, sizeof(from));
	snprintf(to, sizeof(to), GADGET_ROOT "/%s/configs/c.1/%s", g->name,
		 g->func);
	if (symlink(from, to) == 0 || errno == EEXIST)
		return 0;
	fprintf(stderr, "usb-emu: symlink %s: %s\n", to, strerror(errno));
	return -1;
}

int gadget_bind(struct gadget *g, const char *udc)
{
	char dir[256];

	snprintf(dir, sizeof(dir), GADGET_ROOT "/%s", g->name);
	return emu_writes(dir, "UDC", udc);
}

void gadget_remove(const char *name)
{
	char dir[256], path[512], mnt[256];
	struct stat st;
	const char *kinds[] = {"hid", "ffs"};

	snprintf(dir, sizeof(dir), GADGET_ROOT "/%s", name);
	if (stat(dir, &st) == 0) {
		int fd =
		    open((snprintf(path, sizeof(path), "%s/UDC", dir), path),
			 O_WRONLY);

		if (fd >= 0) {
			if (write(fd, "\n", 1) < 0 && errno != ENODEV)
				fprintf(stderr, "usb-emu: unbind %s: %s\n",
					name, strerror(errno));
			close(fd);
		}
		for (int i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/configs/c.1/%s.%s",
				 dir, kinds[i], name);
			unlink(path);
		}
		snprintf(path, sizeof(path), "%s/configs/c.1/strings/0x409",
			 dir);
		rmdir(path);
		snprintf(path, sizeof(path), "%s/configs/c.1", dir);
		rmdir(path);
	}
	/* FunctionFS: the instance goes once its mount is gone. */
	snprintf(mnt, sizeof(mnt), EMU_RUN "/ffs-%s", name);
	if (umount2(mnt, MNT_DETACH) == 0 || errno == EINVAL)
		rmdir(mnt);
	if (stat(dir, &st) == 0) {
		for (int i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/functions/%s.%s", dir,
				 kinds[i], name);
			rmdir(path);
		}
		snprintf(path, sizeof(path), "%s/strings/0x409", dir);
		rmdir(path);
		if (rmdir(dir) < 0)
			fprintf(stderr, "usb-emu: rmdir %s: %s\n", dir,
				strerror(errno));
	}
	snprintf(path, sizeof(path), EMU_RUN "/%s.state", name);
	unlink(path);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

int ffs_start(struct gadget *g, uint32_t flags, const uint8_t *fs,
	      size_t fs_len, int fs_count, const uint8_t *hs, size_t hs_len,
	      int hs_count, const char *interface)
{
	uint8_t buf[1024], str[256];
	size_t n = 20 + fs_len + hs_len, sl;
	char path[320];
	int ep0;

	mk(EMU_RUN);
	snprintf(g->ffs_dir, sizeof(g->ffs_dir), EMU_RUN "/ffs-%s", g->name);
	if (mk(g->ffs_dir) < 0)
		return -1;
	if (mount(g->name, g->ffs_dir, "functionfs", 0, NULL) < 0 &&
	    errno != EBUSY) {
		fprintf(stderr, "usb-emu: mount functionfs %s on %s: %s\n",
			g->name, g->ffs_dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/ep0", g->ffs_dir);
	ep0 = open(path, O_RDWR | O_CLOEXEC);
	if (ep0 < 0) {
		fprintf(stderr, "usb-emu: open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (n > sizeof(buf))
		return -1;
	put32(buf, FUNCTIONFS_DESCRIPTORS_MAGIC_V2);
	put32(buf + 4, (uint32_t)n);
	put32(buf + 8, flags | FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC);
	put32(buf + 12, (uint32_t)fs_count);
	put32(buf + 16, (uint32_t)hs_count);
	memcpy(buf + 20, fs, fs_len);
	memcpy(buf + 20 + fs_len, hs, hs_len);
	if (write(ep0, buf, n) != (ssize_t)n) {
		fprintf(stderr, "usb-emu: %s: writing descriptors: %s\n", path,
			strerror(errno));
		close(ep0);
		return -1;
	}
	sl = 16 + 2 + strlen(interface) + 1;
	put32(str, FUNCTIONFS_STRINGS_MAGIC);
	put32(str + 4, (uint32_t)sl);
	put32(str + 8, 1);  /* strings */
	put32(str + 12, 1); /* languages */
	str[16] = 0x09;	    /* en-US, 0x0409 */
	str[17] = 0x04;
	memcpy(str + 18, interface, strlen(interface) + 1);
	if (write(ep0, str, sl) != (ssize_t)sl) {
		fprintf(stderr, "usb-emu: %s: writing strings: %s\n", path,
			strerror(errno));
		close(ep0);
		return -1;
	}
	return ep0;
}

int ffs_ep(const struct gadget *g, int n, int flags)
{
	char path[320];
	int fd;

	snprintf(path, sizeof(path), "%s/ep%d", g->ffs_dir, n);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "usb-emu: open %s: %s\n", path,
			strerror(errno));
	return fd;
}

void emu_state(const char *name, const char *fmt, ...)
{
	char tmp[300], path[256];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), EMU_RUN "/%s.state", name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	if (fclose(f) == 0)
		rename(tmp, path);
}
