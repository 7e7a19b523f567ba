#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int expand_setting(const struct drv_target *t,
			  const struct flash_image *img,
			  const struct lab_param *p, char *out, size_t len,
			  struct al_err *err)
{
	const struct lab_field fields[] = {{"variant", img->variant},
					   {"kernel", img->kernel}};

	if (lab_expand_with(t->lab, t->host, fields, 2, p->value, out, len,
			    err) < 0)
		return al_err_prefix(err, "%s:%d: %s flash %s", t->lab->path,
				     p->line, t->host->name, p->key);
	return 0;
}

int flash_image_file(const struct drv_target *t, const struct flash_image *img,
		     char *path, size_t len, off_t *size, struct al_err *err)
{
	const struct lab_param *p = lab_param_entry(t->binding, "image");
	struct stat st;

	if (!p)
		return al_err_input(
		    err,
		    "%s:%d: %s flash: driver %s needs 'image:' (the "
		    "image file, e.g. {images}/openwrt/{variant}.bin)",
		    t->lab->path, t->binding->line, t->host->name,
		    t->binding->driver);
	if (expand_setting(t, img, p, path, len, err) < 0)
		return -1;
	if (stat(path, &st) < 0)
		return al_err_input(err, "%s:%d: %s flash: image %s for %s: %s",
				    t->lab->path, p->line, t->host->name, path,
				    img->variant, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size == 0)
		return al_err_input(
		    err, "%s:%d: %s flash: image %s for %s is %s", t->lab->path,
		    p->line, t->host->name, path, img->variant,
		    S_ISREG(st.st_mode) ? "empty" : "not a regular file");
	*size = st.st_size;
	return 0;
}

int flash_image_version(const struct drv_target *t,
			const struct flash_image *img, const char *image_path,
			char *out, size_t len, struct al_err *err)
{
	const struct lab_param *p = lab_param_entry(t->binding, "version");
	char vpath[4096 + 16];
	FILE *f;

	out[0] = 0;
	if (p)
		return expand_setting(t, img, p, out, len, err);
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

int flash_setting_int(const struct drv_target *t, const char *key, int def,
		      int *out, struct al_err *err)
{
	char who[LAB_NAME_MAX + 8];
	long v;

	snprintf(who, sizeof(who), "%s flash", t->host->name);
	if (lab_param_long(t->lab, who, t->binding, key, def, 1, 1000000000, &v,
			   err) < 0)
		return -1;
	*out = (int)v;
	return 0;
}
