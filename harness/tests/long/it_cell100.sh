#!/usr/bin/env bash
# 100 stations in one cell (make check-long: one boot and a short
# flows100, ~3 minutes under TCG). topology/cell-100sta.yaml on a private
# copy of lab/virtual.yaml: 101 radios, one more than hwsim's radios=
# takes, so the medium creates the last over netlink; every station must
# associate, and flows100 must run one download per station. How long the
# association takes is a figure for `make bench` (AIRLAB_BENCH_PART=assoc),
# not a check here.
set -u
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/airlab-it-cell100.XXXXXX)
lab=$(make_test_lab "$work")
topo=$ROOT/topology/cell-100sta.yaml
res=$work/results
al() { "$AIRLAB" --lab "$lab" --topology "$topo" "$@"; }
cleanup() {
	al down >/dev/null 2>&1
	if [ -n "${AIRLAB_KEEP:-}" ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

al up --require-all >"$work/up.out" 2>&1
rc=$?
check "up with 100 stations exits 0 (rc $rc: $(tail -n 1 "$work/up.out"))" [ "$rc" -eq 0 ]
check "100/100 stations associated" grep -q "^cell-100sta: 100/100 stations associated" "$work/up.out"
medium=$(al shell dut1 -- sh -c 'grep "registered with" /run/airlab/medium.log' 2>&1)
check "the medium has all 101 radios, the last created over netlink ($medium)" \
	grep -q "101 cell radios, 101 in sysfs" <<<"$medium"
check "hwsim loaded with radios=100 (its limit), not 101" \
	grep -q "airlab-init: mac80211_hwsim radios=100 " "$work/state/dut1/console.log"

al run flows100 --length 10 --out "$res" >"$work/run.out" 2>&1
rc=$?
check "flows100 on 100 stations exits 0 (rc $rc: $(tail -n 1 "$work/run.out"))" [ "$rc" -eq 0 ]
rj=$(ls "$res"/*/run.json 2>/dev/null | head -n 1)
if [ -n "$rj" ]; then
	check "run complete" [ "$(json_eval "$rj" 'd["status"]')" = complete ]
	check "100 flows, 100 connected" \
		[ "$(json_eval "$rj" '"%d %d" % (d["summary"]["flows"], d["summary"]["flows_connected"])')" = "100 100" ]
	check "one flow per station: 100 distinct stations carry a download" \
		[ "$(json_eval "$rj" 'len({f["station"] for f in d["flows"] if f["direction"] == "down"})')" = 100 ]
	check "every one of the 100 stations is in run.json, associated" \
		[ "$(json_eval "$rj" 'sum(1 for s in d["stations"] if s["associated"])')" = 100 ]
else
	not_ok "flows100 wrote no run.json"
fi
finish
