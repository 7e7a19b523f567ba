/* Driver registry: one table per kind, keyed by the lab file's `driver:`. */
#include "driver.h"

#include <stdio.h>
#include <string.h>

static const struct power_ops *const power_table[] = {
    &power_qemu_ops,
    &power_command_ops,
    &power_ftdi_relay_ops,
    &power_usb_hid_relay_ops,
};
static const struct flash_ops *const flash_table[] = {
    &flash_qemu_image_ops,
    &flash_uboot_tftp_ops,
    &flash_sysupgrade_ops,
};
static const struct console_ops *const console_table[] = {
    &console_serial_ops,
};
static const struct shell_ops *const shell_table[] = {
    &shell_ssh_ops,
};
static const struct atten_ops *const atten_table[] = {
    &atten_medium_ops,
    &atten_minicircuits_http_ops,
    &atten_minicircuits_telnet_ops,
    &atten_minicircuits_usb_ops,
};

static const struct ap_ops *const ap_table[] = {
    &ap_hostapd_ops,
    &ap_virtual_ops,
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Looks a name up in a table of ops whose first member is `name`. */
static const void *lookup(const char *kind, const char *name,
			  const void *const *table, size_t n,
			  struct al_err *err)
{
	char known[512] = "";
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		const char *const *ops_name = table[i];
		if (!ops_name)
			continue;
		if (name && strcmp(*ops_name, name) == 0)
			return table[i];
		len += snprintf(known + len, sizeof(known) - len, "%s%s",
				len ? ", " : "", *ops_name);
		if (len >= sizeof(known))
			len = sizeof(known) - 1;
	}
	al_err_input(err, "unknown %s driver '%s' (known: %s)", kind,
		     name ? name : "", len ? known : "none yet");
	return NULL;
}

#define LOOKUP(kind, table)                                                    \
	lookup(kind, name, (const void *const *)(table), N(table), err)

const struct power_ops *power_driver(const char *name, struct al_err *err)
{
	return LOOKUP("power", power_table);
}

const struct flash_ops *flash_driver(const char *name, struct al_err *err)
{
	return LOOKUP("flash", flash_table);
}

const struct console_ops *console_driver(const char *name, struct al_err *err)
{
	return LOOKUP("console", console_table);
}

const struct shell_ops *shell_driver(const char *name, struct al_err *err)
{
	return LOOKUP("shell", shell_table);
}

const struct atten_ops *atten_driver(const char *name, struct al_err *err)
{
	return LOOKUP("attenuator", atten_table);
}

const struct ap_ops *ap_driver(const char *name, struct al_err *err)
{
	return LOOKUP("ap", ap_table);
}
