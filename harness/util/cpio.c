#include "cpio.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
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

	if (w->gz) {
		if (len > UINT_MAX ||
		    gzwrite(w->gz, p, (unsigned)len) != (int)len) {
			int zerr;
			const char *m = gzerror(w->gz, &zerr);

			return al_errf(err, "cpio %s: write: %s", w->what,
				       zerr == Z_ERRNO ? strerror(errno) : m);
		}
		w->written += len;
		return 0;
	}
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
	w->gz = NULL;
	w->what = what;
	w->next_ino = 1;
	w->written = 0;
}

void cpio_begin_gz(struct cpio_writer *w, gzFile gz, const char *what)
{
	cpio_begin(w, -1, what);
	w->gz = gz;
}

/* Reads exactly len bytes (into buf, or skipped when buf is NULL). */
static int read_in(gzFile in, const char *what, void *buf, size_t len,
		   struct al_err *err)
{
	char scratch[4096] = {0};

	while (len) {
		size_t want = len;
		int n;

		if (!buf && want > sizeof(scratch))
			want = sizeof(scratch);
		if (want > INT_MAX)
			want = INT_MAX;
		n = gzread(in, buf ? buf : scratch, (unsigned)want);
		if (n <= 0) {
			int zerr;
			const char *m = gzerror(in, &zerr);

			return al_errf(err, "cpio %s: %s", what,
				       n == 0 ? "ends inside an entry (cut "
						"short?)"
				       : zerr == Z_ERRNO ? strerror(errno)
							 : m);
		}
		if (buf)
			buf = (char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

static uint32_t hex8(const char *p)
{
	char f[9];

	memcpy(f, p, 8);
	f[8] = 0;
	return (uint32_t)strtoul(f, NULL, 16);
}

int cpio_copy_entries(struct cpio_writer *w, gzFile in, const char *in_what,
		      struct al_err *err)
{
	char hdr[NEWC_HDR_LEN], name[4096], buf[65536];
	uint64_t at = 0; /* input offset, for its 4-byte alignment */
	uint32_t max_ino = 0;

	for (;;) {
		uint32_t namesize, size, ino;
		size_t pad;

		if (read_in(in, in_what, hdr, NEWC_HDR_LEN, err) < 0)
			return -1;
		if (memcmp(hdr, NEWC_MAGIC, 6) != 0)
			return al_errf(err,
				       "cpio %s: no newc header at byte %llu",
				       in_what, (unsigned long long)at);
		ino = hex8(hdr + 6);
		size = hex8(hdr + 54);
		namesize = hex8(hdr + 94);
		if (namesize == 0 || namesize > sizeof(name))
			return al_errf(err,
				       "cpio %s: bad name size %u at byte "
				       "%llu",
				       in_what, namesize,
				       (unsigned long long)at);
		pad = (4 - ((at + NEWC_HDR_LEN + namesize) & 3)) & 3;
		if (read_in(in, in_what, name, namesize, err) < 0 ||
		    read_in(in, in_what, NULL, pad, err) < 0)
			return -1;
		name[namesize - 1] = 0;
		at += NEWC_HDR_LEN + namesize + pad;
		if (strcmp(name, TRAILER) == 0) {
			int c;

			/* Another archive may follow, after zero padding. */
			while ((c = gzgetc(in)) == 0)
				at++;
			if (c < 0)
				break;
			if (gzungetc(c, in) < 0)
				return al_errf(err, "cpio %s: cannot read on",
					       in_what);
			continue;
		}
		if (ino > max_ino)
			max_ino = ino;
		/* Header and name as they were; then the data. */
		if (put(w, hdr, NEWC_HDR_LEN, err) < 0 ||
		    put(w, name, namesize, err) < 0 || pad4(w, err) < 0)
			return -1;
		for (uint32_t left = size; left;) {
			size_t n = left < sizeof(buf) ? left : sizeof(buf);

			if (read_in(in, in_what, buf, n, err) < 0 ||
			    put(w, buf, n, err) < 0)
				return -1;
			left -= (uint32_t)n;
		}
		pad = (4 - (size & 3)) & 3;
		if (read_in(in, in_what, NULL, pad, err) < 0 ||
		    pad4(w, err) < 0)
			return -1;
		at += size + pad;
	}
	if (max_ino >= w->next_ino)
		w->next_ino = max_ino + 1;
	return 0;
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
