/* What the flash drivers of real DUTs share: the image file a variant
 * names and the version string it should boot into. */
#ifndef AIRLAB_DRIVERS_FLASH_IMAGE_H
#define AIRLAB_DRIVERS_FLASH_IMAGE_H

#include <stddef.h>
#include <sys/types.h>

#include "../driver.h"

/* The image setting's value (image:, required in the driver's table)
 * with {variant}, {kernel}, {state} and {images} expanded, checked to be
 * a readable, non-empty regular file; *size gets its length. Errors name
 * the DUT and file:line. */
int flash_image_file(const struct drv_target *t, const struct flash_image *img,
		     const char *image, char *path, size_t len, off_t *size,
		     struct al_err *err);

/* The version the flashed image reports: the version setting's value
 * (expanded like image:), else, when it is "", the first line of
 * IMAGE.version; "" when neither says. */
int flash_image_version(const struct drv_target *t,
			const struct flash_image *img, const char *version,
			const char *image_path, char *out, size_t len,
			struct al_err *err);

#endif
