/* Writer for "newc" cpio archives (the format the kernel unpacks as an
 * initramfs). Entries are written straight to a file descriptor; the caller
 * starts the archive at a 4-byte aligned file offset, as the kernel only
 * looks for a concatenated archive at such offsets. */
#ifndef AIRLAB_CPIO_H
#define AIRLAB_CPIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>

#include "err.h"

struct cpio_writer {
	int fd;
	gzFile gz;	  /* when set, the archive goes through gzip to it */
	const char *what; /* names the output in errors, e.g. its path */
	uint32_t next_ino;
	uint64_t written; /* bytes written by this writer */
};

void cpio_begin(struct cpio_writer *w, int fd, const char *what);
/* The same into a gzip stream (gzdopen/gzopen'd for writing). */
void cpio_begin_gz(struct cpio_writer *w, gzFile gz, const char *what);
/* Copies every entry of the newc archives in `in` (gzip or plain,
 * gzopen'd for reading; concatenated archives, zero padding between
 * them), leaving their trailers out, so that what is added next joins
 * them in one archive (tools that unpack only the first of concatenated
 * archives see it all). Entries added afterwards are numbered above the
 * copied ones. */
int cpio_copy_entries(struct cpio_writer *w, gzFile in, const char *in_what,
		      struct al_err *err);
/* name is relative ("etc/airlab"), without a leading '/'. */
int cpio_add_dir(struct cpio_writer *w, const char *name, mode_t perm,
		 struct al_err *err);
int cpio_add_file(struct cpio_writer *w, const char *name, mode_t perm,
		  const void *data, size_t len, struct al_err *err);
/* Writes the TRAILER!!! entry that ends the archive. */
int cpio_finish(struct cpio_writer *w, struct al_err *err);

#endif
