#!/usr/bin/env bash
# Integration test of a real AP's path, on the virtual lab: the guest is a
# plain Linux AP (lab/virtual-linux-ap.yaml) that airlab sets up over SSH
# only, with the hostapd AP driver; four stations on the station box's
# spare radios, the traffic server a host of its own. Two variants that
# differ only in knobs (linuxap-pfifo, linuxap-fq_codel) run rrul; the
# knobs are read back into run.json and the pfifo one's latency under
# load is worse. Bad input: a radio the AP host does not have, hostapd
# refusing its configuration, a knob path the DUT does not have: each
# one error, a non-zero exit and nothing of airlab's left running.
set -u
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/airlab-it-linux-ap.XXXXXX)
port=$(free_port)
mkdir -p "$work/state"
lab=$work/lab.yaml
sed -e "s#^state_dir:.*#state_dir: $work/state#" \
	-e "s#^image_dir:.*#image_dir: $ROOT/build/dut-image#" \
	-e "s#127.0.0.1:10023#127.0.0.1:$port#" \
	-e "s#port: 10023#port: $port#" \
	"$ROOT/lab/virtual-linux-ap.yaml" >"$lab"
topo=$ROOT/topology/stabox-4sta.yaml
res=$work/results

al() { "$AIRLAB" --lab "$lab" "$@"; }
cleanup() {
	al --topology "$topo" down >/dev/null 2>&1
	if [ -n "${AIRLAB_KEEP:-}" ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
on_dut() { al --topology "$topo" shell dut1 -- sh -c "$1"; }
# What airlab's AP leaves on the DUT: hostapd processes and its state,
# or "clean" (said by the DUT, so a shell that fails is not clean).
leftovers() { on_dut 'l="$(pidof hostapd) $(ls -d /tmp/airlab-ap 2>/dev/null)"; [ -n "${l# }" ] && echo "$l" || echo clean'; }

# -- the cell, set up only by the hostapd driver -----------------------------
al --topology "$topo" up --require-all --variant linuxap-fq_codel \
	>"$work/up.out" 2>"$work/up.err"
rc=$?
cat "$work/up.out"
grep -E '^dut1: (ap|knob)' "$work/up.err"
if [ $rc -eq 0 ]; then ok "up: 4 stations on the station box, AP by the hostapd driver (exit 0)"; else
	not_ok "up exited $rc"; tail -n 20 "$work/up.err"; fi
check "4/4 stations associated" grep -q '^stabox-4sta: 4/4 stations associated' "$work/up.out"
check "hostapd serves from the driver's configuration" \
	on_dut 'grep -q "^interface=wlan0$" /tmp/airlab-ap/hostapd.conf && kill -0 $(cat /tmp/airlab-ap/pid)'
check "no cell.conf AP or stations: no image hostapd, no airlab-guest" \
	on_dut '! [ -e /run/airlab/hostapd.conf ] && ! pidof airlab-guest && grep -q "^AIRLAB_AP=.0.$" /etc/airlab/cell.conf && grep -q "^AIRLAB_NSTA=.0.$" /etc/airlab/cell.conf'
check "the AP has its address from the topology" \
	on_dut '/usr/sbin/ip -4 -o addr show dev wlan0 | grep -q " 10\.42\.0\.1/24 "'
check "each knob said what it read back" \
	test "$(grep -cE '^dut1: knob .* \(reads .+\)$' "$work/up.err")" -eq 4
al --topology "$topo" status >"$work/status.out" 2>&1
check "status shows the AP (hostapd, ENABLED, the variant)" \
	grep -q '^dut1: ap (hostapd): ENABLED on wlan0, variant linuxap-fq_codel' "$work/status.out"

# -- rrul on both knob variants ---------------------------------------------
for v in linuxap-fq_codel linuxap-pfifo; do
	timeout 600 "$AIRLAB" --lab "$lab" --topology "$topo" run rrul --length 20 \
		--variant $v --out "$res" >"$work/$v.out" 2>"$work/$v.err"
	rc=$?
	grep -E 'latency under load, median|goodput' "$work/$v.out"
	if [ $rc -eq 0 ]; then ok "rrul on $v: complete (exit 0)"; else
		not_ok "rrul on $v exited $rc"; tail -n 20 "$work/$v.err"; fi
done
jf() { ls "$res"/*-rrul-"$1"/run.json 2>/dev/null | head -n1; }
check "run.json of linuxap-fq_codel: AP by hostapd, knobs read back" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
k = {x["knob"]: x for x in d["knobs"]}
print(d["ap"], [(x["knob"], x["target"], x["read"][:40]) for x in d["knobs"]])
assert d["status"] == "complete" and d["ap"]["driver"] == "hostapd"
assert d["ap"]["interface"] == "wlan0" and d["hostapd"].startswith("hostapd v")
assert k["wlan_qdisc"]["target"] == "wlan0" and k["wlan_qdisc"]["read"].startswith("qdisc mq ")
assert k["wired_qdisc"]["target"] == "srv0" and k["wired_qdisc"]["read"].startswith("qdisc fq_codel ")
assert k["sysctl net.core.default_qdisc"]["read"] == "fq_codel"
assert k["files[1]"]["read"] == "64" and k["files[1]"]["line"] > 0
assert d["kernel"].startswith("6.1.")' "$(jf linuxap-fq_codel)"
check "run.json of linuxap-pfifo: pfifo read back on both sides, ring 1000" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
k = {x["knob"]: x for x in d["knobs"]}
assert d["status"] == "complete"
assert k["wlan_qdisc"]["read"].startswith("qdisc pfifo ") and "limit 1000p" in k["wlan_qdisc"]["read"]
assert k["wired_qdisc"]["read"].startswith("qdisc pfifo ")
assert k["files[1]"]["read"] == "1000"' "$(jf linuxap-pfifo)"
lat() { json_eval "$(jf "$1")" 'd["summary"]["latency_median_ms"]' 2>/dev/null; }
lf=$(lat linuxap-fq_codel)
lp=$(lat linuxap-pfifo)
echo "# rrul median latency under load: linuxap-fq_codel $lf ms, linuxap-pfifo $lp ms"
check "the pfifo variant's latency under load is worse ($lp ms vs $lf ms)" \
	awk -v p="${lp:-0}" -v f="${lf:-0}" 'BEGIN { exit !(f > 0 && p > 1.5 * f) }'

# -- bad input ----------------------------------------------------------------
# A radio the AP host does not have.
sed 's/radio: wlan0,/radio: wlan9,/' "$topo" >"$work/noradio.yaml"
out=$(al --topology "$work/noradio.yaml" up --variant linuxap-pfifo 2>&1)
rc=$?
check "an AP radio the host does not have: exit 4, the lab (got $rc)" test $rc -eq 4
check "one error naming the host and the radio" \
	test "$(grep -c "^airlab: dut1: ap (hostapd): radio 'wlan9' is neither a wireless interface" <<<"$out")" -eq 1
check "nothing of the AP left on the DUT" test "$(leftovers)" = clean

# hostapd refusing its configuration: channel 14 is not for an AP in the
# world regulatory domain (hostapd says so; airlab takes channel 14).
sed 's/channel: 6,/channel: 14,/' "$topo" >"$work/ch14.yaml"
out=$(al --topology "$work/ch14.yaml" up --variant linuxap-pfifo 2>&1)
rc=$?
grep '^airlab:' <<<"$out"
check "hostapd refusing channel 14: exit 4, the lab (got $rc)" test $rc -eq 4
check "the error quotes hostapd's own line" \
	grep -q "^airlab: dut1: ap (hostapd): hostapd refused its configuration: .*2484 (primary) not allowed for AP mode" <<<"$out"
check "nothing of the AP left on the DUT after the refusal" test "$(leftovers)" = clean

# A knob the DUT does not have: AQL through mac80211's debugfs, which
# Debian's kernels do not build.
cat >"$work/linuxap-aql.yaml" <<EOF
variant: linuxap-aql
kernel: "6.1"
knobs:
  wlan_qdisc: mq
  aql: true
EOF
out=$(al --topology "$topo" up --variant "$work/linuxap-aql.yaml" 2>&1)
rc=$?
grep '^airlab:' <<<"$out"
check "a knob path the DUT lacks: exit 4, the lab (got $rc)" test $rc -eq 4
check "the error names the variant file:line and the missing path" \
	grep -q "^airlab: $work/linuxap-aql.yaml:5: knob aql: dut1 has no /sys/kernel/debug/ieee80211/phy[0-9]*/aql_enable$" <<<"$out"
check "the AP it had started is stopped again" test "$(leftovers)" = clean

# A knob needing the wired side, on an AP binding without wired:.
sed '/^      wired: srv0$/d' "$lab" >"$work/nowired.yaml"
out=$("$AIRLAB" --lab "$work/nowired.yaml" --topology "$topo" up --variant linuxap-pfifo 2>&1)
rc=$?
check "wired_qdisc without the AP's wired: refused before the lab is touched (exit $rc)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "linuxap-pfifo.yaml:[0-9]*: knob wired_qdisc needs the AP.s wired side" <<<"$2" && ! grep -q "power on\|flashing" <<<"$2"' _ "$rc" "$out"

# -- down: the driver undoes what it made ----------------------------------
al --topology "$topo" up --variant linuxap-fq_codel >/dev/null 2>&1
check "up again for down" bash -c 'l=$1; [ -n "$l" ] && [ "$l" != clean ]' _ "$(leftovers)"
al --topology "$topo" down >"$work/down.out" 2>&1
rc=$?
cat "$work/down.out"
check "down stops the stations, the AP, then powers off (exit $rc)" \
	bash -c '[ "$1" -eq 0 ] && grep -q "^dut1: ap (hostapd) stopped$" "$2" && grep -q "^dut1: off$" "$2" && [ "$(grep -c "^stabox: station sta[1-4] stopped$" "$2")" -eq 4 ]' _ "$rc" "$work/down.out"

finish
