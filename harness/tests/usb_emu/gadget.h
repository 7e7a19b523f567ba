/* USB gadgets for the USB driver tests, inside the guest: a configfs
 * composite gadget (libcomposite) with one function, bound to one of
 * dummy_hcd's UDCs so the guest's own USB host sees it plugged in, and
 * the FunctionFS side of a function whose control requests and endpoints
 * are answered from userspace. Libc only. */
#ifndef AIRLAB_TESTS_USB_EMU_GADGET_H
#define AIRLAB_TESTS_USB_EMU_GADGET_H

#include <stddef.h>
#include <stdint.h>

#define GADGET_ROOT "/sys/kernel/config/usb_gadget"
#define EMU_RUN	    "/run/airlab-usb"

struct gadget {
	char name[64];	   /* configfs directory under GADGET_ROOT */
	char func[64];	   /* "hid.NAME" or "ffs.NAME" */
	char ffs_dir[128]; /* FunctionFS mount point, "" for hid */
};

struct gadget_ids {
	unsigned vid, pid, bcd_device;
	const char *manufacturer, *product, *serial;
};

/* Writes s to DIR/FILE; -1 with a message on stderr. */
int emu_write(const char *dir, const char *file, const void *s, size_t len);
int emu_writes(const char *dir, const char *file, const char *s);

/* Creates the gadget g->name with ids and one configuration holding the
 * function g->func (its attributes are set by the caller in between:
 * gadget_function_dir, then gadget_link). */
int gadget_create(struct gadget *g, const struct gadget_ids *ids);
void gadget_function_dir(const struct gadget *g, char *out, size_t len);
int gadget_link(struct gadget *g);
/* Plugs the gadget into UDC (e.g. "dummy_udc.0"). */
int gadget_bind(struct gadget *g, const char *udc);
/* Unplugs and removes whatever is left of gadget NAME (after a crash
 * too); unmounts its FunctionFS. */
void gadget_remove(const char *name);

/* FunctionFS: mounts g's instance, writes the descriptors (full and high
 * speed, each count descriptors in descs) and one interface string;
 * returns ep0's fd. flags: FUNCTIONFS_* beyond the speeds. */
int ffs_start(struct gadget *g, uint32_t flags, const uint8_t *fs,
	      size_t fs_len, int fs_count, const uint8_t *hs, size_t hs_len,
	      int hs_count, const char *interface);
/* Opens endpoint file n (1-based, in descriptor order). */
int ffs_ep(const struct gadget *g, int n, int flags);

/* Writes the emulator's state line to EMU_RUN/NAME.state atomically. */
void emu_state(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
