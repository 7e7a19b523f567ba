/* ap=hostapd: the parts of the driver that need no host (unit tests). */
#ifndef AIRLAB_DRIVERS_AP_HOSTAPD_H
#define AIRLAB_DRIVERS_AP_HOSTAPD_H

#include "../driver.h"

/* Where the driver keeps its files on the AP host unless `state_dir:`
 * says: tmpfs on OpenWrt and on most Linux systems, gone at reboot. */
#define AP_HOSTAPD_STATE_DIR "/tmp/airlab-ap"

/* The driver's settings, checked (file:line errors). */
struct ap_hostapd_settings {
	char state_dir[256];
	char hostapd[256]; /* the program, "hostapd" */
	char
	    stop_command[1024]; /* frees the radio first (OpenWrt: wifi down) */
	char start_command[1024]; /* gives it back after down (wifi up) */
	char bridge[16];	  /* hostapd's bridge=, "" none */
	char wired[16];		  /* the AP's wired side, "" none */
	char country[3];	  /* country_code=, "" none */
	int timeout_s;		  /* for hostapd to be ENABLED */
};
int ap_hostapd_settings(const struct drv_target *t,
			struct ap_hostapd_settings *s, struct al_err *err);

/* hostapd.conf for cfg, without its interface= line (the host resolves
 * the radio to an interface and puts it first). */
int ap_hostapd_conf(const struct ap_hostapd_settings *s,
		    const struct ap_config *cfg, char *buf, size_t len,
		    struct al_err *err);

/* Fills info from the key=value lines the driver's scripts print
 * (iface=, phy=, version=, state=, variant=). */
void ap_info_parse(const char *text, struct ap_info *info);

#endif
