#include "cpio.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEWC_MAGIC   "070701"
#define NEWC_HDR_LEN 110
#define TRAILER	     "TRAILER!!!"

static int put(struct cpio_writer *w, const void *buf, size_t len,
	       struct al_err *err)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return al_errf(err, "cpio %s: write: %s", w->what,
				       n < 0 ? strerror(errno) : "wrote 0");
		p += n;
		len -= (size_t)n;
		w->written += (uint64_t)n;
	}
	return 0;
}

/* newc aligns both the name (after the header) and the data to 4 bytes. */
static int pad4(struct cpio_writer *w, struct al_err *err)
{
	static const char zeros[4];
	size_t n = (4 - (w->written & 3)) & 3;

	return n ? put(w, zeros, n, err) : 0;
}

static int entry(struct cpio_writer *w, const char *name, uint32_t mode,
		 uint32_t nlink, const void *data, size_t len,
		 struct al_err *err)
{
	char hdr[NEWC_HDR_LEN + 1];
	size_t namesize = strlen(name) + 1;
	uint32_t ino = strcmp(name, TRAILER) ? w->next_ino++ : 0;

	if (len > UINT32_MAX || namesize > UINT32_MAX)
		return al_errf(err, "cpio %s: %s: too large for newc", w->what,
			       name);
	/* magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
	 * devminor, rdevmajor, rdevminor, namesize, check. mtime 0 keeps the
	 * archive reproducible. */
	snprintf(hdr, sizeof(hdr),
		 "%s%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 NEWC_MAGIC, ino, mode, 0u, 0u, nlink, 0u, (uint32_t)len, 0u,
		 0u, 0u, 0u, (uint32_t)namesize, 0u);
	if (put(w, hdr, NEWC_HDR_LEN, err) < 0 ||
	    put(w, name, namesize, err) < 0 || pad4(w, err) < 0 ||
	    (len && put(w, data, len, err) < 0) || pad4(w, err) < 0)
		return -1;
	return 0;
}

static int check_name(struct cpio_writer *w, const char *name,
		      struct al_err *err)
{
	if (!name[0] || name[0] == '/' || strcmp(name, TRAILER) == 0)
		return al_errf(err,
			       "cpio %s: entry name '%s' must be a relative "
			       "path",
			       w->what, name);
	return 0;
}

void cpio_begin(struct cpio_writer *w, int fd, const char *what)
{
	w->fd = fd;
	w->what = what;
	w->next_ino = 1;
	w->written = 0;
}

int cpio_add_dir(struct cpio_writer *w, const char *name, mode_t perm,
		 struct al_err *err)
{
	if (check_name(w, name, err) < 0)
		return -1;
	return entry(w, name, S_IFDIR | (perm & 07777), 2, NULL, 0, err);
}

int cpio_add_file(struct cpio_writer *w, const char *name, mode_t perm,
		  const void *data, size_t len, struct al_err *err)
{
	if (check_name(w, name, err) < 0)
		return -1;
	return entry(w, name, S_IFREG | (perm & 07777), 1, data, len, err);
}

int cpio_finish(struct cpio_writer *w, struct al_err *err)
{
	return entry(w, TRAILER, 0, 1, NULL, 0, err);
}
