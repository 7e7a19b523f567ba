/* libFuzzer target: bytes as a Flent data file through flent_read, written
 * as they are (plain JSON, or a gzip stream when they are one) and once
 * more gzip'd, to one file per process under /tmp. A read either fails
 * with one line that names the path, or returns a root with a version in
 * 1..4, metadata with a NAME, raw_values, and results parallel to
 * x_values. Bytes that are not gzip read the same both ways. */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../results/flent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void cleanup(void)
{
	unlink(path);
}

static void write_plain(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		__builtin_trap(); /* /tmp must take a few kB */
}

/* One gzip member, as gzip(1) would write it, but with a small window and
 * hash (zlib's defaults allocate some 256 kB on every call). */
static void write_gzip(const uint8_t *data, size_t size)
{
	z_stream z = {0};
	size_t cap;
	uint8_t *out;

	if (deflateInit2(&z, 1, Z_DEFLATED, 16 + 9, 1, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		__builtin_trap();
	cap = deflateBound(&z, size);
	out = malloc(cap);
	if (!out)
		__builtin_trap();
	z.next_in = (uint8_t *)data;
	z.avail_in = (uInt)size;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		__builtin_trap();
	write_plain(out, cap - z.avail_out);
	deflateEnd(&z);
	free(out);
}

static void check(const json_t *root, const struct al_err *err)
{
	const json_t *x, *res, *meta, *ver, *val;
	const char *key;
	char prefix[80];

	if (!root) {
		snprintf(prefix, sizeof(prefix), "read %s: ", path);
		if (strncmp(err->msg, prefix, strlen(prefix)) != 0 ||
		    strchr(err->msg, '\n'))
			__builtin_trap();
		return;
	}
	ver = json_object_get(root, "version");
	meta = json_object_get(root, "metadata");
	x = json_object_get(root, "x_values");
	res = json_object_get(root, "results");
	if (!json_is_integer(ver) || json_integer_value(ver) < 1 ||
	    json_integer_value(ver) > FLENT_FORMAT_VERSION ||
	    !json_is_string(json_object_get(meta, "NAME")) ||
	    !json_is_array(x) || !json_is_object(res) ||
	    !json_is_object(json_object_get(root, "raw_values")))
		__builtin_trap();
	json_object_foreach((json_t *)res, key, val)
	{
		if (!json_is_array(val) ||
		    json_array_size(val) != json_array_size(x))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct al_err e1, e2;
	json_t *plain, *gz;
	int is_gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/airlab-fuzz-flent.%d",
			 (int)getpid());
		atexit(cleanup);
	}
	write_plain(data, size);
	plain = flent_read(path, &e1);
	check(plain, &e1);
	write_gzip(data, size);
	gz = flent_read(path, &e2);
	check(gz, &e2);
	if (!is_gzip) {
		if (!plain != !gz)
			__builtin_trap();
		if (plain ? !json_equal(plain, gz) : strcmp(e1.msg, e2.msg))
			__builtin_trap();
	}
	json_decref(plain);
	json_decref(gz);
	return 0;
}
