/* ap=virtual: airlab's virtual DUT, whose init brings the AP up itself
 * from the cell.conf the qemu-image flash wrote (hostapd on wlan0, its
 * stations in their namespaces). Starting it is waiting for that hostapd
 * to serve; it ends with the DUT's power. Its stations are reported by
 * airlab-guest in the image.
 *
 *   ap:
 *     driver: virtual
 *     wired: srv0    # the AP's side of the server link ({wired} knobs)
 */
#include "hostapd.h"
#include "../../util/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct virtual_conf {
	char wired[16];
};

static const struct drv_setting settings[] = {
    {.name = "wired",
     .type = DRV_LINE,
     .default_value = "srv0",
     DRV_FIELD(struct virtual_conf, wired)},
    {0},
};

/* hostapd of the image: its control interface and interface (init). */
#define VIRTUAL_STATUS                                                         \
	"PATH=$PATH:/usr/sbin:/sbin; i=wlan0; s=$(hostapd_cli -p "             \
	"/run/airlab/hostapd -i $i status 2>/dev/null | sed -n "               \
	"'s/^state=//p'); echo \"iface=$i\"; echo \"phy=$(cat "                \
	"/sys/class/net/$i/phy80211/name 2>/dev/null)\"; echo \"version=$("    \
	"hostapd -v 2>&1 | grep -m1 -i hostapd)\"; echo \"variant=$(. "        \
	"/etc/airlab/cell.conf 2>/dev/null && echo \"$AIRLAB_VARIANT\")\"; "   \
	"echo \"state=$s\""

static int wired_of(const struct drv_target *t, char *out, size_t len,
		    struct al_err *err)
{
	struct virtual_conf c;

	if (drv_settings_read(t, settings, &c, err) < 0)
		return -1;
	snprintf(out, len, "%s", c.wired);
	return 0;
}

static int virtual_check(const struct drv_target *t, struct al_err *err)
{
	char w[16];

	return wired_of(t, w, sizeof(w), err);
}

static int virtual_status(const struct drv_target *t, const struct ap_env *env,
			  const struct ap_config *cfg, struct ap_info *info,
			  struct al_err *err)
{
	char *out = NULL;
	int status = -1;

	(void)cfg;
	memset(info, 0, sizeof(*info));
	if (wired_of(t, info->wired, sizeof(info->wired), err) < 0 ||
	    env->run(env->ctx, VIRTUAL_STATUS, NULL, &out, NULL, &status, 30,
		     err) < 0) {
		free(out);
		return -1;
	}
	if (status != 0) {
		free(out);
		return al_errf(err, "%s: ap (virtual): status exited %d",
			       t->host->name, status);
	}
	ap_info_parse(out, info);
	free(out);
	return 0;
}

/* The init started hostapd while booting; it may still be coming up. */
static int virtual_start(const struct drv_target *t, const struct ap_env *env,
			 const struct ap_config *cfg, struct ap_info *info,
			 struct al_err *err)
{
	for (int k = 0; k < 60; k++) {
		if (virtual_status(t, env, cfg, info, err) < 0)
			return -1;
		if (!strcmp(info->state, "ENABLED"))
			return 0;
		sleep_ms(500);
	}
	return al_errf(err,
		       "%s: ap (virtual): the image's hostapd on %s is not "
		       "ENABLED 30 s after boot (state '%s'; its log is "
		       "/run/airlab/hostapd.log on the DUT)",
		       t->host->name, info->iface[0] ? info->iface : "wlan0",
		       info->state);
}

static int virtual_stop(const struct drv_target *t, const struct ap_env *env,
			const struct ap_config *cfg, struct al_err *err)
{
	/* The image's hostapd goes with the DUT's power. */
	(void)env;
	(void)cfg;
	return virtual_check(t, err);
}

/* The image's own stations, each in its namespace (airlab-guest). */
static int virtual_stations(const struct drv_target *t,
			    const struct ap_env *env, int wait_s, char **rows,
			    struct al_err *err)
{
	char cmd[64];
	int status = -1;

	snprintf(cmd, sizeof(cmd), "airlab-guest stations --wait %d", wait_s);
	*rows = NULL;
	if (env->run(env->ctx, cmd, NULL, rows, NULL, &status, wait_s + 60,
		     err) < 0)
		return -1;
	/* 1: some did not associate, a finding for the table. */
	if (status != 0 && status != 1) {
		free(*rows);
		*rows = NULL;
		return al_errf(err, "%s: '%s' failed with status %d",
			       t->host->name, cmd, status);
	}
	return 0;
}

const struct ap_ops ap_virtual_ops = {
    .name = "virtual",
    .check = virtual_check,
    .start = virtual_start,
    .status = virtual_status,
    .stop = virtual_stop,
    .stations = virtual_stations,
    .settings = settings,
};
