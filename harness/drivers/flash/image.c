#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int expand_setting(const struct drv_target *t,
			  const struct flash_image *img, const char *key,
			  const char *value, char *out, size_t len,
			  struct al_err *err)
{
	const struct lab_field fields[] = {{"variant", img->variant},
					   {"kernel", img->kernel}};

	if (lab_expand_with(t->lab, t->host, fields, 2, value, out, len, err) <
	    0)
		return al_err_prefix(err, "%s:%d: %s flash %s", t->lab->path,
				     drv_setting_line(t, key), t->host->name,
				     key);
	return 0;
}

int flash_image_file(const struct drv_target *t, const struct flash_image *img,
		     const char *image, char *path, size_t len, off_t *size,
		     struct al_err *err)
{
	int line = drv_setting_line(t, "image");
	struct stat st;

	if (expand_setting(t, img, "image", image, path, len, err) < 0)
		return -1;
	if (stat(path, &st) < 0)
		return al_err_input(err, "%s:%d: %s flash: image %s for %s: %s",
				    t->lab->path, line, t->host->name, path,
				    img->variant, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size == 0)
		return al_err_input(
		    err, "%s:%d: %s flash: image %s for %s is %s", t->lab->path,
		    line, t->host->name, path, img->variant,
		    S_ISREG(st.st_mode) ? "empty" : "not a regular file");
	*size = st.st_size;
	return 0;
}

int flash_image_version(const struct drv_target *t,
			const struct flash_image *img, const char *version,
			const char *image_path, char *out, size_t len,
			struct al_err *err)
{
	char vpath[4096 + 16];
	FILE *f;

	out[0] = 0;
	if (*version)
		return expand_setting(t, img, "version", version, out, len,
				      err);
	snprintf(vpath, sizeof(vpath), "%s.version", image_path);
	f = fopen(vpath, "re");
	if (!f)
		return errno == ENOENT
			   ? 0
			   : al_errf(err, "%s flash: %s: %s", t->host->name,
				     vpath, strerror(errno));
	if (!fgets(out, (int)len, f))
		out[0] = 0;
	fclose(f);
	out[strcspn(out, "\r\n")] = 0;
	return 0;
}
