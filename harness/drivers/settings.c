/* The settings check every driver makes when it opens: a key the driver
 * does not know is a typo in the lab file, refused with its file:line and
 * the keys that would have been understood. */
#include "driver.h"

#include <stdio.h>
#include <string.h>

/* Keys of a host's power binding that are the DUT's, not the power
 * driver's (cell/dut.c reads them), so every power driver takes them. */
const char *const power_dut_settings[] = {"boot_timeout_s", "ready_marker",
					  "off_s", "boot_attempts"};
const size_t power_dut_nsettings =
    sizeof(power_dut_settings) / sizeof(power_dut_settings[0]);

static bool listed(const char *key, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(key, list[i]) == 0)
			return true;
	return false;
}

static void append_keys(char *buf, size_t len, const char *const *list,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			 list[i]);
	}
}

/* "dut1 power", "attenuator bench": which binding of the lab t is. */
static void binding_name(const struct drv_target *t, char *buf, size_t len)
{
	const struct lab_host *h = t->host;

	if (h) {
		const char *kind = t->binding == &h->power     ? "power"
				   : t->binding == &h->flash   ? "flash"
				   : t->binding == &h->console ? "console"
				   : t->binding == &h->ap      ? "ap"
							       : "shell";
		snprintf(buf, len, "%s %s", h->name, kind);
		return;
	}
	for (int i = 0; i < t->lab->nattens; i++)
		if (t->binding == &t->lab->attens[i].binding) {
			snprintf(buf, len, "attenuator %s",
				 t->lab->attens[i].name);
			return;
		}
	snprintf(buf, len, "%s", t->binding->driver);
}

int drv_check_settings(const struct drv_target *t, const char *const *known,
		       size_t n, struct al_err *err)
{
	const struct lab_binding *b = t->binding;
	bool power = t->host && b == &t->host->power;
	char keys[512] = "", who[LAB_NAME_MAX + 16];

	for (int i = 0; i < b->nparams; i++) {
		const struct lab_param *p = &b->params[i];

		if (listed(p->key, known, n) ||
		    (power &&
		     listed(p->key, power_dut_settings, power_dut_nsettings)))
			continue;
		append_keys(keys, sizeof(keys), known, n);
		if (power)
			append_keys(keys, sizeof(keys), power_dut_settings,
				    power_dut_nsettings);
		binding_name(t, who, sizeof(who));
		return al_err_input(
		    err,
		    "%s:%d: %s (driver %s): unknown setting '%s' "
		    "(known: %s)",
		    t->lab->path, p->line, who, b->driver, p->key, keys);
	}
	return 0;
}

int power_relay_port(const struct drv_target *t, long *port, struct al_err *err)
{
	char who[LAB_NAME_MAX * 2 + 32];

	snprintf(who, sizeof(who), "%s power (driver %s)", t->host->name,
		 t->binding->driver);
	if (lab_param_long(t->lab, who, t->binding, "port", 0, 1, 8, port,
			   err) < 0)
		return -1;
	if (!*port)
		return al_err_input(
		    err,
		    "%s:%d: %s: setting port is missing (the relay, "
		    "1 to 8)",
		    t->lab->path, t->binding->line, who);
	return 0;
}
