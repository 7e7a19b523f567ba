/* ap=hostapd: the cell's access point on any Linux or OpenWrt host with
 * hostapd and iw, set up over the host's shell. airlab writes
 * hostapd.conf from the topology, frees the radio (stop_command), starts
 * hostapd on the radio (an interface as it is, or one added on a phy),
 * waits for hostapd to say ENABLED, gives the AP its address and keeps
 * everything it made in state_dir on the host, so stop can undo exactly
 * that.
 *
 *   ap:
 *     driver: hostapd
 *     stop_command: wifi down    # optional: what holds the radio lets go
 *     start_command: wifi up     # optional: run by stop to give it back
 *     bridge: br-lan             # optional: hostapd's bridge=
 *     wired: eth0                # optional: the wired side ({wired} knobs)
 *     country: DE                # optional: country_code=
 *     hostapd: /usr/sbin/hostapd # the program (hostapd)
 *     state_dir: /tmp/airlab-ap  # on the AP host
 *     timeout_s: 30              # for hostapd to be ENABLED
 */
#include "hostapd.h"
#include "../../util/shquote.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct drv_setting settings[] = {
    {.name = "stop_command",
     .type = DRV_LINE,
     DRV_FIELD(struct ap_hostapd_settings, stop_command)},
    {.name = "start_command",
     .type = DRV_LINE,
     DRV_FIELD(struct ap_hostapd_settings, start_command)},
    {.name = "bridge",
     .type = DRV_LINE,
     DRV_FIELD(struct ap_hostapd_settings, bridge)},
    {.name = "wired",
     .type = DRV_LINE,
     DRV_FIELD(struct ap_hostapd_settings, wired)},
    {.name = "country",
     .type = DRV_LINE,
     DRV_FIELD(struct ap_hostapd_settings, country)},
    {.name = "hostapd",
     .type = DRV_LINE,
     .default_value = "hostapd",
     DRV_FIELD(struct ap_hostapd_settings, hostapd)},
    {.name = "state_dir",
     .type = DRV_LINE,
     .default_value = AP_HOSTAPD_STATE_DIR,
     DRV_FIELD(struct ap_hostapd_settings, state_dir)},
    {.name = "timeout_s",
     .type = DRV_INT,
     .default_value = "30",
     .min = 1,
     .max = 3600,
     DRV_FIELD(struct ap_hostapd_settings, timeout_s)},
    {0},
};

/* An interface name as the kernel takes it (IFNAMSIZ, no blanks or /). */
static int ifname_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 15)
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s == '/' || *s == ':' || *s == 0x7f)
			return 0;
	return 1;
}

/* An absolute path of plain characters that is not "/" and has no "..":
 * stop removes it. */
static int state_dir_ok(const char *s)
{
	if (s[0] != '/' || !s[1] || strstr(s, ".."))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("/_.-", *s)))
			return 0;
	return 1;
}

int ap_hostapd_settings(const struct drv_target *t,
			struct ap_hostapd_settings *s, struct al_err *err)
{
	memset(s, 0, sizeof(*s));
	if (drv_settings_read(t, settings, s, err) < 0)
		return -1;
	if (!state_dir_ok(s->state_dir))
		return drv_setting_invalid(
		    t, "state_dir",
		    "must be an absolute path of [A-Za-z0-9/_.-] "
		    "without '..' (airlab removes it on stop)",
		    err);
	if (s->bridge[0] && !ifname_ok(s->bridge))
		return drv_setting_invalid(t, "bridge",
					   "is not an interface name", err);
	if (s->wired[0] && !ifname_ok(s->wired))
		return drv_setting_invalid(t, "wired",
					   "is not an interface name", err);
	if (s->country[0] &&
	    (strlen(s->country) != 2 || s->country[0] < 'A' ||
	     s->country[0] > 'Z' || s->country[1] < 'A' || s->country[1] > 'Z'))
		return drv_setting_invalid(
		    t, "country", "is not a two-letter ISO 3166 code (DE, US)",
		    err);
	return 0;
}

int ap_hostapd_conf(const struct ap_hostapd_settings *s,
		    const struct ap_config *cfg, char *buf, size_t len,
		    struct al_err *err)
{
	size_t off = 0;
	int bad = 0;

	bad |= sh_append(buf, len, &off,
			 "# airlab: the cell's AP (variant %s)\n"
			 "driver=nl80211\n"
			 "ctrl_interface=%s/ctrl\n"
			 "ssid2=",
			 cfg->variant, s->state_dir);
	/* Hex: an SSID may hold any bytes. */
	bad |= sh_append_hex(buf, len, &off, cfg->ssid);
	bad |= sh_append(buf, len, &off,
			 "\nhw_mode=%s\n"
			 "channel=%d\n"
			 "ieee80211n=%d\n"
			 "wmm_enabled=1\n"
			 "wpa=2\n"
			 "wpa_key_mgmt=WPA-PSK\n"
			 "rsn_pairwise=CCMP\n"
			 "wpa_passphrase=%s\n",
			 cfg->channel <= 14 ? "g" : "a", cfg->channel,
			 cfg->ht ? 1 : 0, cfg->passphrase);
	if (cfg->nbasic_rates) {
		bad |= sh_append(buf, len, &off, "basic_rates=");
		for (int i = 0; i < cfg->nbasic_rates; i++)
			bad |= sh_append(buf, len, &off, "%s%d", i ? " " : "",
					 cfg->basic_rates[i]);
		bad |= sh_append(buf, len, &off, "\n");
	}
	if (s->bridge[0])
		bad |= sh_append(buf, len, &off, "bridge=%s\n", s->bridge);
	if (s->country[0])
		bad |= sh_append(buf, len, &off,
				 "country_code=%s\nieee80211d=1\n", s->country);
	if (bad)
		return al_errf(err, "hostapd.conf does not fit in %zu bytes",
			       len);
	return 0;
}

void ap_info_parse(const char *text, struct ap_info *info)
{
	static const struct {
		const char *key;
		size_t off, len;
	} fields[] = {
	    {"iface=", offsetof(struct ap_info, iface), sizeof(info->iface)},
	    {"phy=", offsetof(struct ap_info, phy), sizeof(info->phy)},
	    {"version=", offsetof(struct ap_info, version),
	     sizeof(info->version)},
	    {"variant=", offsetof(struct ap_info, variant),
	     sizeof(info->variant)},
	    {"state=", offsetof(struct ap_info, state), sizeof(info->state)},
	};

	for (const char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");

		for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]);
		     k++) {
			size_t kl = strlen(fields[k].key);

			if (n >= kl && !strncmp(l, fields[k].key, kl)) {
				size_t vl = n - kl;

				if (vl >= fields[k].len)
					vl = fields[k].len - 1;
				memcpy((char *)info + fields[k].off, l + kl,
				       vl);
				((char *)info + fields[k].off)[vl] = 0;
			}
		}
		l += n;
		if (*l)
			l++;
	}
}

/* ---- the scripts ---- */

/* Variables every script uses: d (state dir), p (hostapd), h (host), and
 * the helpers: say (an error line), hstate (hostapd's state through
 * hostapd_cli, or "type AP" from iw where the host has no hostapd_cli),
 * stop_ap (what stop undoes: hostapd killed by its pidfile, the address,
 * an interface airlab added, the state dir). */
#define AP_HELPERS                                                             \
	"say() { echo \"airlab: $h: ap: $*\" >&2; }; "                         \
	"hstate() { if command -v hostapd_cli >/dev/null 2>&1; then "          \
	"hostapd_cli -p \"$d/ctrl\" -i \"$1\" status 2>/dev/null | sed -n "    \
	"'s/^state=//p'; elif iw dev \"$1\" info 2>/dev/null | grep -q "       \
	"'type AP'; then echo ENABLED; fi; }; "                                \
	"stop_ap() { q=$(cat \"$d/pid\" 2>/dev/null); if [ -n \"$q\" ] && "    \
	"kill -0 \"$q\" 2>/dev/null; then kill \"$q\"; k=0; while kill -0 "    \
	"\"$q\" 2>/dev/null && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); "    \
	"done; if kill -0 \"$q\" 2>/dev/null; then say \"hostapd (pid $q) "    \
	"still runs 5 s after 'kill $q'\"; return 1; fi; fi; "                 \
	"if [ -s \"$d/address\" ]; then read -r ai aa <\"$d/address\"; $IP "   \
	"addr del \"$aa\" dev \"$ai\" 2>/dev/null; fi; "                       \
	"[ -s \"$d/created\" ] && iw dev \"$(cat \"$d/created\")\" del "       \
	"2>/dev/null; rm -rf \"$d\"; return 0; }; "                            \
	"loginfo() { l=$({ cat \"$d/log\" 2>/dev/null; printf '%s\\n' "        \
	"\"$o\"; } | grep -v '^$'); m=$(printf '%s\\n' \"$l\" | grep -m1 -E "  \
	"'^Line [0-9]+:'); [ -n \"$m\" ] || m=$(printf '%s\\n' \"$l\" | grep " \
	"-m1 -E 'not allowed|not support|Could not|[Ii]nvalid|[Uu]nknown|"     \
	"[Ff]ailed'); [ -n \"$m\" ] || m=$(printf '%s\\n' \"$l\" | tail -n 2 " \
	"| tr '\\n' ' '); }; "

static int put_common(char *buf, size_t len, size_t *off,
		      const struct drv_target *t,
		      const struct ap_hostapd_settings *s)
{
	/* iproute2 where there is one: a busybox shell runs its own
	 * applets first, and busybox ip lacks some of what is used. */
	int bad = sh_append(buf, len, off,
			    "PATH=$PATH:/usr/sbin:/sbin; IP=ip; for x in "
			    "/usr/sbin/ip /sbin/ip; do [ -x $x ] && IP=$x && "
			    "break; done; ");

	bad |= sh_put_var(buf, len, off, "d", s->state_dir);
	bad |= sh_put_var(buf, len, off, "p", s->hostapd);
	bad |= sh_put_var(buf, len, off, "h", t->host->name);
	bad |= sh_append(buf, len, off, "; %s", AP_HELPERS);
	return bad;
}

/* What the scripts print once hostapd serves (ap_info_parse). */
#define AP_PRINT_INFO                                                          \
	"echo \"iface=$i\"; echo \"phy=$(cat "                                 \
	"\"/sys/class/net/$i/phy80211/name\" 2>/dev/null)\"; echo "            \
	"\"version=$(\"$p\" -v 2>&1 | grep -m1 -i hostapd)\"; echo "           \
	"\"variant=$(cat \"$d/variant\" 2>/dev/null)\"; "

static int start_cmd(const struct drv_target *t,
		     const struct ap_hostapd_settings *s,
		     const struct ap_config *cfg, char *buf, size_t len)
{
	size_t off = 0;
	char tmo[16];
	int bad = put_common(buf, len, &off, t, s);

	snprintf(tmo, sizeof(tmo), "%d", s->timeout_s * 5);
	bad |= sh_put_var(buf, len, &off, "r", cfg->radio);
	bad |=
	    sh_put_var(buf, len, &off, "a", cfg->address ? cfg->address : "");
	bad |= sh_put_var(buf, len, &off, "b", s->bridge);
	bad |= sh_put_var(buf, len, &off, "v", cfg->variant);
	bad |= sh_put_var(buf, len, &off, "x", s->stop_command);
	bad |= sh_put_var(buf, len, &off, "n", tmo);
	bad |= sh_append(
	    buf, len, &off, "%s",
	    "; c=$(cat); o=; stop_ap || exit 1; "
	    /* Whatever holds the radio lets go first (OpenWrt's netifd). */
	    "if [ -n \"$x\" ]; then o=$(sh -c \"$x\" 2>&1) || { say "
	    "\"stop_command '$x' failed (exit $?): $o\"; exit 3; }; fi; "
	    "command -v \"$p\" >/dev/null 2>&1 || { say \"no program '$p' on "
	    "this host (PATH $PATH)\"; exit 3; }; "
	    "command -v iw >/dev/null 2>&1 || { say \"no program 'iw' on this "
	    "host (PATH $PATH)\"; exit 3; }; "
	    "mkdir -p \"$d\" || { say \"cannot create $d\"; exit 3; }; "
	    "if [ -e \"/sys/class/net/$r/phy80211\" ]; then i=$r; "
	    "elif [ -e \"/sys/class/ieee80211/$r\" ]; then i=airlab-ap0; "
	    "o=$(iw phy \"$r\" interface add \"$i\" type __ap 2>&1) || { say "
	    "\"radio $r: 'iw phy $r interface add $i type __ap' failed: $o\"; "
	    "stop_ap; exit 3; }; echo \"$i\" >\"$d/created\"; "
	    "else say \"radio '$r' is neither a wireless interface "
	    "(/sys/class/net/$r) nor a phy (/sys/class/ieee80211/$r) on this "
	    "host\"; stop_ap; exit 3; fi; "
	    "{ echo \"interface=$i\"; printf '%s\\n' \"$c\"; } "
	    ">\"$d/hostapd.conf\" && echo \"$v\" >\"$d/variant\" || { say "
	    "\"cannot write $d/hostapd.conf\"; stop_ap; exit 3; }; "
	    "o=$(\"$p\" -B -P \"$d/pid\" -f \"$d/log\" \"$d/hostapd.conf\" "
	    "2>&1) || { loginfo; say \"hostapd refused its configuration: "
	    "$m\"; stop_ap; exit 4; }; "
	    /* -B writes the pidfile from the daemon: give it a moment. */
	    "k=0; while :; do q=$(cat \"$d/pid\" 2>/dev/null); "
	    "if [ -n \"$q\" ] && ! kill -0 \"$q\" 2>/dev/null || { [ -z "
	    "\"$q\" ] && [ $k -ge 25 ]; }; then o=; loginfo; say \"hostapd "
	    "exited after it started: $m\"; stop_ap; exit 4; fi; "
	    "[ -n \"$q\" ] && [ \"$(hstate \"$i\")\" = ENABLED ] && break; "
	    "if [ $k -ge \"$n\" ]; then o=; loginfo; say \"hostapd is not "
	    "ENABLED after $((n / 5)) s (state '$(hstate \"$i\")'): $m\"; "
	    "stop_ap; exit 4; fi; sleep 0.2; k=$((k + 1)); done; "
	    "if [ -n \"$a\" ]; then ai=$i; [ -n \"$b\" ] && ai=$b; "
	    "$IP addr del \"$a\" dev \"$ai\" 2>/dev/null; o=$($IP addr add "
	    "\"$a\" dev \"$ai\" 2>&1) && echo \"$ai $a\" >\"$d/address\" || "
	    "{ say \"'ip addr add $a dev $ai' failed: $o\"; stop_ap; exit 3; "
	    "}; fi; " AP_PRINT_INFO "echo state=ENABLED");
	return bad;
}

static int status_cmd(const struct drv_target *t,
		      const struct ap_hostapd_settings *s, char *buf,
		      size_t len)
{
	size_t off = 0;
	int bad = put_common(buf, len, &off, t, s);

	bad |= sh_append(
	    buf, len, &off, "%s",
	    "[ -d \"$d\" ] || exit 0; "
	    "i=$(sed -n 's/^interface=//p' \"$d/hostapd.conf\" "
	    "2>/dev/null); q=$(cat \"$d/pid\" 2>/dev/null); "
	    "if [ -n \"$q\" ] && kill -0 \"$q\" 2>/dev/null; then "
	    "s=$(hstate \"$i\"); else s=NOT_RUNNING; fi; " AP_PRINT_INFO
	    "echo \"state=${s:-UNKNOWN}\"");
	return bad;
}

static int stop_cmd(const struct drv_target *t,
		    const struct ap_hostapd_settings *s, char *buf, size_t len)
{
	size_t off = 0;
	int bad = put_common(buf, len, &off, t, s);

	bad |= sh_put_var(buf, len, &off, "y", s->start_command);
	bad |= sh_append(
	    buf, len, &off, "%s",
	    "; [ -d \"$d\" ] || exit 0; stop_ap || exit 1; "
	    "if [ -n \"$y\" ]; then o=$(sh -c \"$y\" 2>&1) || { say "
	    "\"start_command '$y' failed (exit $?): $o\"; exit 3; }; fi");
	return bad;
}

/* The last "airlab: HOST: ap: " line of a script's stderr, or its last
 * line, as the error. */
static int script_failed(const struct drv_target *t, const char *what,
			 int status, const char *errout, struct al_err *err)
{
	const char *last = NULL, *p = errout ? errout : "";
	char tag[LAB_NAME_MAX + 32];
	size_t n;

	snprintf(tag, sizeof(tag), "airlab: %s: ap: ", t->host->name);
	for (const char *l = p; *l;) {
		n = strcspn(l, "\n");
		if (n && !strncmp(l, tag, strlen(tag)))
			last = l + strlen(tag);
		else if (n && !last)
			last = l;
		l += n;
		if (*l)
			l++;
	}
	if (!last)
		return al_errf(err, "%s: ap (hostapd): %s exited %d",
			       t->host->name, what, status);
	n = strcspn(last, "\n");
	return al_errf(err, "%s: ap (hostapd): %.*s", t->host->name, (int)n,
		       last);
}

static int run_script(const struct drv_target *t, const struct ap_env *env,
		      const char *what, const char *cmd, const char *in,
		      int timeout_s, struct ap_info *info, struct al_err *err)
{
	char *out = NULL, *errout = NULL;
	int status = -1, rc;

	if (env->run(env->ctx, cmd, in, &out, &errout, &status, timeout_s,
		     err) < 0) {
		free(out);
		free(errout);
		return -1;
	}
	if (status != 0) {
		rc = script_failed(t, what, status, errout, err);
	} else {
		rc = 0;
		if (info)
			ap_info_parse(out, info);
	}
	free(out);
	free(errout);
	return rc;
}

static int hostapd_check(const struct drv_target *t, struct al_err *err)
{
	struct ap_hostapd_settings s;

	return ap_hostapd_settings(t, &s, err);
}

#define SCRIPT_MAX 8192

static int hostapd_start(const struct drv_target *t, const struct ap_env *env,
			 const struct ap_config *cfg, struct ap_info *info,
			 struct al_err *err)
{
	struct ap_hostapd_settings s;
	char conf[4096], cmd[SCRIPT_MAX];

	memset(info, 0, sizeof(*info));
	if (ap_hostapd_settings(t, &s, err) < 0 ||
	    ap_hostapd_conf(&s, cfg, conf, sizeof(conf), err) < 0)
		return -1;
	if (start_cmd(t, &s, cfg, cmd, sizeof(cmd)))
		return al_errf(err, "%s: ap (hostapd): start command too long",
			       t->host->name);
	fprintf(stderr, "%s: ap: hostapd on %s (channel %d, ssid %s)\n",
		t->host->name, cfg->radio, cfg->channel, cfg->ssid);
	if (run_script(t, env, "start", cmd, conf, s.timeout_s + 60, info,
		       err) < 0)
		return -1;
	snprintf(info->wired, sizeof(info->wired), "%s", s.wired);
	return 0;
}

static int hostapd_status(const struct drv_target *t, const struct ap_env *env,
			  const struct ap_config *cfg, struct ap_info *info,
			  struct al_err *err)
{
	struct ap_hostapd_settings s;
	char cmd[SCRIPT_MAX];

	(void)cfg;
	memset(info, 0, sizeof(*info));
	if (ap_hostapd_settings(t, &s, err) < 0)
		return -1;
	if (status_cmd(t, &s, cmd, sizeof(cmd)))
		return al_errf(err, "%s: ap (hostapd): status command too long",
			       t->host->name);
	if (run_script(t, env, "status", cmd, NULL, 30, info, err) < 0)
		return -1;
	snprintf(info->wired, sizeof(info->wired), "%s", s.wired);
	return 0;
}

static int hostapd_stop(const struct drv_target *t, const struct ap_env *env,
			const struct ap_config *cfg, struct al_err *err)
{
	struct ap_hostapd_settings s;
	char cmd[SCRIPT_MAX];

	(void)cfg;
	if (ap_hostapd_settings(t, &s, err) < 0)
		return -1;
	if (stop_cmd(t, &s, cmd, sizeof(cmd)))
		return al_errf(err, "%s: ap (hostapd): stop command too long",
			       t->host->name);
	return run_script(t, env, "stop", cmd, NULL, 60, NULL, err);
}

const struct ap_ops ap_hostapd_ops = {
    .name = "hostapd",
    .check = hostapd_check,
    .start = hostapd_start,
    .status = hostapd_status,
    .stop = hostapd_stop,
    .settings = settings,
};
