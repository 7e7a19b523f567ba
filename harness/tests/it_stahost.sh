#!/usr/bin/env bash
# Integration test of stations on a station host, at the wire: the lab has
# the virtual DUT dut1 (the AP, two stations of its own, two spare hwsim
# radios in the guest's namespace "stabox") and a station host stahost1
# that has only a shell binding, SSH to the same guest with exec_prefix
# "ip netns exec stabox": the guest plays the station box, whose only way
# to the traffic server is over the air. airlab drives stahost1's stations
# over SSH: sta3 on the spare radio's interface, sta4 on an interface
# airlab adds on the spare phy, both in one subnet on one box, and runs
# traffic from them with the agent it copies there.
set -u
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/airlab-it-stahost.XXXXXX)
base=$(make_test_lab "$work")
port=$(sed -n 's/^ *port: \([0-9]*\)$/\1/p' "$base" | head -n1)
closed=$(free_port) # nothing listens there

# The lab: dut1 with two spare radios, stahost1 = the same guest's SSH,
# stahost2 = a closed port.
lab=$work/lab-sta.yaml
awk -v port="$port" -v closed="$closed" -v img="$ROOT/build/dut-image" '
/^    flash:$/ { print; getline; print; print "      spare_radios: 2"; next }
/^# The RF paths/ {
	for (h = 1; h <= 2; h++) {
		print "  stahost" h ":"
		print "    shell:"
		print "      driver: ssh"
		print "      host: 127.0.0.1"
		print "      port: " (h == 1 ? port : closed)
		print "      user: root"
		print "      key: \"{images}/ssh/id_ed25519\""
		print "      known_host_key: \"{images}/ssh/dropbear_ed25519_host_key.pub\""
		print "      connect_timeout_s: 3"
		print "      exec_prefix: /usr/sbin/ip netns exec stabox"
	}
	# The traffic server as a host of its own: the guest'"'"'s server
	# namespace, over the same SSH.
	print "  srvhost:"
	print "    shell:"
	print "      driver: ssh"
	print "      host: 127.0.0.1"
	print "      port: " port
	print "      user: root"
	print "      key: \"{images}/ssh/id_ed25519\""
	print "      known_host_key: \"{images}/ssh/dropbear_ed25519_host_key.pub\""
	print "      exec_prefix: /usr/sbin/ip netns exec server"
	print ""
}
{ print }' "$base" >"$lab"

# topo FILE [STA4-EXTRA] [STAHOST-OF-STA4] [MORE-STATION-LINES] [SERVER]
topo() {
	cat >"$1" <<EOF
cell: stahost-cell
ap: {host: dut1, radio: radio0, ssid: airlab-cell, passphrase: airlab-virtual-psk, channel: 6}
server: {${5:-host: dut1, link: veth}}
stations:
  - {name: sta1, host: dut1, radio: radio1, path: path1, base_loss_db: 50}
  - {name: sta2, host: dut1, radio: radio2, path: path2, base_loss_db: 55}
  - {name: sta3, host: stahost1, radio: spare1, path: path3, base_loss_db: 60, address: 10.42.0.63/24, gateway: 10.42.0.1}
  - {name: sta4, host: ${3:-stahost1}, radio: sparephy2, path: path4, base_loss_db: 60${2:-}}
${4:-}
EOF
}
topo "$work/good.yaml" ", address: 10.42.0.64/24, gateway: 10.42.0.1"
topo "$work/badpsk.yaml" ", passphrase: not-the-cell-psk" stahost1 \
	"  - {name: sta5, host: stahost1, radio: nosuch0, path: path4, base_loss_db: 60}"
topo "$work/unreach.yaml" "" stahost2
topo "$work/srv.yaml" ", address: 10.42.0.64/24, gateway: 10.42.0.1" stahost1 "" \
	"host: srvhost, link: eth0, address: 10.43.0.2"
topo "$work/srvnoaddr.yaml" ", address: 10.42.0.64/24, gateway: 10.42.0.1" stahost1 "" \
	"host: srvhost, link: eth0"

al() { "$AIRLAB" --lab "$lab" "$@"; }
cleanup() {
	al --topology "$work/good.yaml" down >/dev/null 2>&1
	if [ -n "${AIRLAB_KEEP:-}" ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
# on_guest CMD: a shell command in the guest (root namespace); on_box: in
# the station box's namespace.
on_guest() { al shell dut1 -- sh -c "$1"; }
on_box() { al shell dut1 -- /usr/sbin/ip netns exec stabox sh -c "$1"; }
# Command lines of the guest's wpa_supplicant processes.
GUEST_WPA='for p in /proc/[0-9]*; do tr "\0" " " <$p/cmdline 2>/dev/null; echo; done | grep "^wpa_supplicant "'

# -- a wrong passphrase on a station-host station is a row, not a crash --
al --topology "$work/badpsk.yaml" up --require-all --wait 25 \
	--variant mac80211-6.12 >"$work/up1.out" 2>"$work/up1.err"
rc=$?
cat "$work/up1.out"
# sta5's radio is missing on its host: the lab failed (4), though the
# cell came up with sta4 (wrong passphrase) not associated.
check "up with sta5's radio missing on its host (and sta4's wrong passphrase): exit 4, the lab (got $rc)" \
	test $rc -eq 4
check "sta3 on stahost1 associated" grep -qE '^sta3 +yes ' "$work/up1.out"
check "sta5's radio does not exist: an error naming host, station and radio" \
	grep -q "^airlab: stahost1: station sta5: radio 'nosuch0' is neither" "$work/up1.err"
check "sta5 is a row that is not running" \
	grep -qE '^sta5 +no .*NOT_RUNNING$' "$work/up1.out"
row=$(grep -E '^sta4 ' "$work/up1.out")
check "sta4 (wrong passphrase) is a row: not associated, with its wpa_state" \
	grep -qE '^sta4 +no +.* (SCANNING|AUTHENTICATING|ASSOCIATING|ASSOCIATED|4WAY_HANDSHAKE|DISCONNECTED|INACTIVE)$' <<<"$row"
check "its wpa_supplicant still runs (stopped by down, not by up)" \
	on_guest 'kill -0 $(cat /run/airlab-sta/sta4/pid)'
al --topology "$work/badpsk.yaml" down >"$work/down1.out" 2>&1
rc=$?
cat "$work/down1.out"
check "down stops the station-host stations before power-off (exit $rc)" \
	test $rc -eq 0 -a "$(grep -cE '^stahost1: station sta[345] stopped$' "$work/down1.out")" -eq 3
check "down powers dut1 off" grep -q '^dut1: off' "$work/down1.out"

# -- all four up: two on dut1, two on stahost1 ---------------------------
al --topology "$work/good.yaml" up --require-all --variant mac80211-6.12 \
	>"$work/up2.out" 2>"$work/up2.err"
rc=$?
cat "$work/up2.out"
grep -E '^stahost1: ' "$work/up2.err"
if [ $rc -eq 0 ]; then ok "up with stations on stahost1 (exit 0)"; else
	not_ok "up exited $rc"; cat "$work/up2.err"; fi
check "one table with all 4 stations associated" \
	test "$(grep -cE '^sta[1-4] +yes ' "$work/up2.out")" -eq 4
# (The medium puts the spare radios on sta3's and sta4's paths.)
check "the station-host rows have an association time, signal and rate" \
	test "$(grep -cE '^sta[34] +yes +[0-9]+\.[0-9]+ +-?[0-9]+ +[0-9]+\.[0-9] +COMPLETED$' "$work/up2.out")" -eq 2
conf=$(on_guest 'cat /etc/airlab/cell.conf')
check "dut1's cell.conf lists only its own 2 stations" \
	test "$(grep -c "^AIRLAB_NSTA='2'$" <<<"$conf")" -eq 1 -a \
	"$(grep -cE '^AIRLAB_STA_.*(sta3|sta4)' <<<"$conf")" -eq 0
check "and puts the spare radios sta3 and sta4 drive on their paths" \
	test "$(grep -cE "^AIRLAB_SPARE_(1_NAME='sta3'|1_PATH='path3'|2_NAME='sta4'|2_LOSS_DB='60')$" <<<"$conf")" -eq 4
check "dut1 left the spare radios alone (no netns for sta3/sta4)" \
	on_guest '! [ -e /run/netns/sta3 ] && ! [ -e /run/netns/sta4 ]'
# Network namespace of each station-host wpa_supplicant against stabox's,
# and sta1's (a dut1 station in its own namespace) as the counter-check.
ns=$(on_guest 'r="net:[$(stat -L -c %i /run/netns/stabox)]"; for s in sta3 sta4; do
	p=$(cat /run/airlab-sta/$s/pid) && [ "$(readlink /proc/$p/ns/net)" = "$r" ] && echo "$s stabox"; done
	p=$(cat /run/airlab/sta/sta1.pid); [ "$(readlink /proc/$p/ns/net)" = "$r" ] || echo "sta1 netns"')
echo "$ns"
check "sta3's and sta4's wpa_supplicant run in the station box's namespace" \
	test "$(grep -c ' stabox$' <<<"$ns")" -eq 2
check "sta1's runs in its own namespace (the check tells them apart)" \
	grep -q '^sta1 netns$' <<<"$ns"
check "sta3 drives the spare1 interface as it is" \
	grep -q -- '-i spare1 ' <<<"$(on_guest "$GUEST_WPA")"
check "sta4 drives interface sta4 that airlab added on phy sparephy2" \
	test "$(on_box 'cat /sys/class/net/sta4/phy80211/name')" = sparephy2
addrs=$(on_box 'ip -4 -o addr show; ip route show')
echo "$addrs"
check "sta3 and sta4 have their addresses (one subnet, one box)" \
	test "$(grep -cE ' (spare1 +inet 10\.42\.0\.63/24|sta4 +inet 10\.42\.0\.64/24) ' <<<"$addrs")" -eq 2
check "each has its own default route via the AP" \
	test "$(grep -cE '^default via 10\.42\.0\.1 dev (spare1|sta4) +metric 10[0-9][0-9]' <<<"$addrs")" -eq 2

al --topology "$work/good.yaml" status >"$work/status.out" 2>"$work/status.err"
rc=$?
cat "$work/status.out"
check "status reports all 4 stations associated (exit $rc)" \
	test $rc -eq 0 -a "$(grep -cE '^sta[1-4] +yes ' "$work/status.out")" -eq 4

# -- reassociate: wpa_cli on the station host -----------------------------
al --topology "$work/good.yaml" reassociate sta3
check "reassociate sta3 exits 0" test $? -eq 0
# Its supplicant logs a second CTRL-EVENT-CONNECTED (give it 30 tries).
n=0
for _ in $(seq 30); do
	n=$(on_guest 'grep -c CTRL-EVENT-CONNECTED /run/airlab-sta/sta3/log')
	[ "${n:-0}" -ge 2 ] && break
	sleep 1
done
check "sta3 associated again after reassociate ($n CTRL-EVENT-CONNECTED)" \
	test "${n:-0}" -ge 2
al --topology "$work/good.yaml" reassociate sta9 2>/dev/null
check "reassociate of a station not in the topology exits 2" test $? -eq 2

# -- traffic: every station's flows from its own radio --------------------
# The cell as good.yaml, with the traffic server as a lab host of its own
# (srvhost: the guest's server namespace over SSH). Bytes each
# station-box radio sent, before and after.
box_tx() { on_box 'for i in spare1 sta4; do printf "%s " $(cat /sys/class/net/$i/statistics/tx_bytes); done'; }
tx0=$(box_tx)
# Bounded: the agent's upload to the guest's dropbear (no sftp-server)
# once hung in libssh's sftp_init, and a hang must fail, not stall CI.
timeout 600 "$AIRLAB" --lab "$lab" --topology "$work/srv.yaml" run rtt_fair \
	--length 10 --variant mac80211-6.12 --out "$work/results" \
	>"$work/run.out" 2>"$work/run.err"
rc=$?
tx1=$(box_tx)
cat "$work/run.out"
grep -E '^stahost1: ' "$work/run.err"
if [ $rc -eq 0 ]; then ok "rtt_fair with two stations on stahost1: complete (exit 0)"; else
	not_ok "rtt_fair exited $rc"; tail -n 20 "$work/run.err"; fi
check "the agent was copied to stahost1" grep -q '^stahost1: agent copied to /run/airlab-sta/airlab-agent$' "$work/run.err"
check "and to the traffic server srvhost (the run's server agent runs there)" \
	grep -q '^srvhost: agent copied to /run/airlab-sta/airlab-agent$' "$work/run.err"
runjson=$(ls "$work"/results/*/run.json 2>/dev/null | head -n1)
check "run.json: complete, every flow connected" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"] if "summary" in r else r
print(r["status"], s.get("flows"), s.get("flows_connected"))
assert r["status"] == "complete"
assert s["flows"] == s["flows_connected"] > 0' "${runjson:-/nonexistent}"
# Goodput of sta3's and sta4's flows (mean Mbit/s over the load window).
gp=$(python3 -c '
import gzip, json, sys, glob
f = glob.glob(sys.argv[1] + "/*/*.flent.gz")[0]
d = json.load(gzip.open(f))
for k, v in d["results"].items():
    if ("sta3" in k or "sta4" in k) and "TCP" in k:
        xs = [x for x in v if x is not None]
        print("%s %.2f" % (k.replace(" ", "_"), sum(xs) / max(len(xs), 1)))' "$work/results" 2>&1)
echo "$gp"
check "sta3's and sta4's TCP upload and download all moved data" \
	test "$(awk '$2 > 0.1' <<<"$gp" | wc -l)" -eq 4
read -r a0 b0 <<<"$tx0"
read -r a1 b1 <<<"$tx1"
echo "# station box radios sent: spare1 $((a1 - a0)) bytes, sta4 $((b1 - b0)) bytes"
check "each station's traffic left from its own radio (>= 200 kB each)" \
	test $((a1 - a0)) -ge 200000 -a $((b1 - b0)) -ge 200000
check "the run kept the running station-host stations (no restart)" \
	test "$(grep -c '^stahost1: station sta[34]: wpa_supplicant on .* already runs with this configuration: kept$' "$work/run.err")" -eq 2

out=$(al --topology "$work/srvnoaddr.yaml" run ping --length 5 --variant mac80211-6.12 2>&1)
rc=$?
check "a server host without address: is refused with file:line (exit $rc)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "srvnoaddr.yaml:[0-9]*: the traffic server is host srvhost, not the AP'"'"'s: give its address:" <<<"$2"' _ "$rc" "$out"

# -- a fixed-MCS sweep of a station-host station: its rate mask, on its host --
# sta3 listed first: tcp_1up uploads from the first station only.
{ sed '/^  - /,$d' "$work/good.yaml"; grep 'name: sta3' "$work/good.yaml"
	grep '^  - ' "$work/good.yaml" | grep -v 'name: sta3'; } >"$work/sweep.yaml"
al --topology "$work/sweep.yaml" sweep --out "$work/sweeps" --rates mcs:0,7 \
	--station sta3 --suite tcp_1up --length 8 --dwell 10 \
	--variant mac80211-6.12 >"$work/sweep.out" 2>"$work/sweep.err"
rc=$?
[ $rc -eq 0 ] || tail -n 20 "$work/sweep.err"
sj=$(ls "$work"/sweeps/sweeps/*/sweep.json 2>/dev/null | head -n1)
check "sweep of sta3 (on stahost1) exits 0 with 2 steps" \
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["steps"]) == 2' "${sj:-/nonexistent}"
read -r tx0 tx7 up0 up7 <<<"$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
st = [s["stations"][0] for s in d["steps"]]
print(" ".join(str(x["settle_txrate_mbps"]) for x in st), " ".join(str(x["goodput_up_mbps"]) for x in st))' "${sj:-/nonexistent}" 2>/dev/null)"
echo "# sta3 fixed MCS 0 / 7: last tx bitrate $tx0 / $tx7 Mb/s, upload $up0 / $up7 Mbit/s"
check "sta3's upload is faster at MCS 7 ($up7) than at MCS 0 ($up0)" \
	awk -v a="$up7" -v b="$up0" 'BEGIN { exit !(a > 1.5 * b && b > 0) }'
check "the sweep's runs kept sta3 and sta4 running (the mask stays)" \
	test "$(grep -c 'station sta3: wpa_supplicant on spare1 already runs with this configuration: kept$' "$work/sweep.err")" -ge 2

out=$(al --topology "$work/badpsk.yaml" run ping --length 5 --variant mac80211-6.12 2>&1)
rc=$?
check "a station-host station without address: is refused before anything starts (exit $rc)" \
	test $rc -eq 2
check "the error names the file, line and station" \
	grep -q "badpsk.yaml:[0-9]*: station sta4 on station host stahost1 has no address:" <<<"$out"

# -- a station host that cannot be reached --------------------------------
out=$(al --topology "$work/unreach.yaml" status 2>&1)
rc=$?
echo "$out" | grep -v '^sta'
check "status with an unreachable station host exits 4, the lab (got $rc)" test $rc -eq 4
check "one error naming the host and its port" \
	test "$(grep -c "^airlab: .*stahost2.*127\.0\.0\.1:$closed" <<<"$out")" -eq 1

# -- down --stations: the station host's stations stop, dut1 stays up ----
al --topology "$work/good.yaml" down --stations >"$work/down2.out" 2>&1
rc=$?
cat "$work/down2.out"
check "down --stations exits 0 (got $rc)" test $rc -eq 0
left=$(on_guest "$GUEST_WPA")
echo "$left"
check "no wpa_supplicant left for spare1 or sta4" \
	test "$(grep -cE -- '-i (spare1|sta4) ' <<<"$left")" -eq 0
check "dut1's own stations still run" \
	test "$(grep -cE -- '-c /run/airlab/sta/sta[12]\.conf' <<<"$left")" -eq 2
check "the interface airlab added on sparephy2 is gone" \
	on_box '! [ -e /sys/class/net/sta4 ] && [ -e /sys/class/net/spare1 ]'
check "spare1 has its address taken back" \
	test -z "$(on_box 'ip -4 -o addr show dev spare1')"
al --topology "$work/good.yaml" status >"$work/status2.out" 2>&1
check "status: sta3 and sta4 not running, sta1 and sta2 associated" \
	test "$(grep -cE '^sta[34] +no .*NOT_RUNNING$' "$work/status2.out")" -eq 2 -a \
	"$(grep -cE '^sta[12] +yes ' "$work/status2.out")" -eq 2

finish
