#!/usr/bin/env bash
# make bench (printed, not asserted):
#  assoc:  seconds from `airlab up` to all stations associated, for 4, 16
#          and 100 stations, median of 3 runs each;
#  medium: airlab-medium's goodput vs the model and its frames/s, on
#          lab/virtual.yaml and lab/virtual-airbound.yaml;
#  suites: issue 4's acceptance figures, rrul and flows100 on stock-6.1
#          and mac80211-6.12 with 4 stations;
#  airbound: the channel's busy fraction under load, goodput against the
#          model, on lab/virtual-airbound.yaml and lab/virtual.yaml;
#  seed:   rrul and flows100 at the seed's setting (2 stations at MCS 0)
#          on lab/virtual-airbound.yaml, stock-6.1 against mac80211-6.12.
# AIRLAB_BENCH_PART=assoc|medium|suites|airbound|seed runs one part.
set -u
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/airlab-bench.XXXXXX)
lab=$(make_test_lab "$work")
trap '"$AIRLAB" --lab "$lab" down >/dev/null 2>&1; [ -z "${ablab:-}" ] || "$AIRLAB" --lab "$ablab" down >/dev/null 2>&1; rm -rf "$work"' EXIT
variant=${AIRLAB_BENCH_VARIANT:-mac80211-6.12}
runs=${AIRLAB_BENCH_RUNS:-3}
part() { [ "${AIRLAB_BENCH_PART:-all}" = all ] || [ "${AIRLAB_BENCH_PART:-all}" = "$1" ]; }

for n in 4 16 100; do
	part assoc || break
	make_topology "$n" "$work/cell-$n.yaml"
	times=()
	for r in $(seq 1 "$runs"); do
		"$AIRLAB" --lab "$lab" --topology "$work/cell-$n.yaml" down >/dev/null 2>&1
		out=$("$AIRLAB" --lab "$lab" --topology "$work/cell-$n.yaml" \
			up --require-all --variant "$variant" 2>/dev/null)
		rc=$?
		line=$(grep -E 'stations associated, [0-9.]+ s after airlab up' <<<"$out")
		secs=$(sed -E 's/.* ([0-9.]+) s after airlab up.*/\1/' <<<"$line")
		echo "bench: $n stations, run $r: ${line:-up failed (exit $rc)}" >&2
		[ $rc -eq 0 ] && [ -n "$secs" ] && times+=("$secs")
	done
	if [ ${#times[@]} -eq 0 ]; then
		echo "up-to-associated, $n stations ($variant): no successful run"
		continue
	fi
	median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	echo "up-to-associated, $n stations ($variant): median ${median} s of ${#times[@]} runs (${times[*]})"
done

# ---- the medium (printed, not asserted) -----------------------------------
# 1. TCP upload at a fixed MCS 7 HT20 with A-MPDU: goodput vs what the model
#    itself predicts for the aggregate size the medium actually formed.
# 2. Frames per second through airlab-medium inside the TCG guest: UDP
#    floods of small packets at rising rates; per step the frames the daemon
#    took in per second and its delivery lag p99. The figure is the highest
#    step whose p99 stays under 1 ms.
# ---- suites: rrul and flows100 on both variants --------------------------
# From each run's run.json: median and p99 latency under load, total
# goodput (up + down), flows going within 2 s.
suite_figures() {
	python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d.get("summary") or {}
def f(k, fmt):
    v = s.get(k)
    return fmt % v if isinstance(v, (int, float)) else "?"
tot = (s.get("up_mbps") or 0) + (s.get("down_mbps") or 0)
print("%s, latency under load median %s ms, p99 %s ms, total goodput %.2f Mbit/s, flows going within 2 s %s of %s"
      % (d["status"], f("latency_median_ms", "%.1f"), f("latency_p99_ms", "%.1f"), tot,
         s.get("flows_started_2s", "?"), s.get("flows", "?")))
EOF
}
if part suites; then
	for v in stock-6.1 mac80211-6.12; do
		for suite in rrul rrul_cell flows100; do
			"$AIRLAB" --lab "$lab" run "$suite" --variant "$v" \
				--out "$work/results" >"$work/$suite-$v.out" 2>&1
			dir=$(ls -d "$work/results"/*-"$suite-$v" 2>/dev/null | tail -1)
			if [ -s "$dir/run.json" ]; then
				echo "suites: $suite on $v (4 stations): $(suite_figures "$dir/run.json")"
			else
				echo "suites: $suite on $v: no run.json ($(tail -1 "$work/$suite-$v.out"))"
			fi
		done
	done
fi
# ---- the air as the bottleneck (issue 21) ---------------------------------
# lab/virtual-airbound.yaml (QEMU icount, cpu max, the radios' own CCMP)
# against lab/virtual.yaml (wall-clock TCG), tcp_ndown 20 s on 4 stations:
# the channel's busy fraction between the load's start and end, the total
# goodput against the model's prediction at the rate minstrel settled on
# (A-MPDU of 32), the median latency under load.
airbound_figures() {
	python3 - "$1" "$AIRLAB" <<'EOF'
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
s = d.get("summary") or {}
ch = ((d.get("airtime") or {}).get("medium") or {}).get("channel") or {}
load = ch.get("load") or {}
rates = sorted({l.get("tx_rate") for l in d.get("link") or [] if l.get("tx_rate")})
pred = None
if len(rates) == 1 and rates[0].startswith("MCS "):
    out = subprocess.run([sys.argv[2], "medium", "predict", rates[0].replace(" ", "") + "/20",
                          "--ampdu", "32"], capture_output=True, text=True).stdout
    for w in out.split():
        if w.startswith("goodput_mbps="):
            pred = float(w.split("=")[1])
g = s.get("down_mbps") or 0
print("%s, channel busy under load %s (whole run %s), goodput %.1f Mbit/s%s, latency median %s ms"
      % (d["status"], "%.1f%%" % (100 * load["busy"]) if "busy" in load else "?",
         "%.1f%%" % (100 * ch["busy"]) if "busy" in ch else "?", g,
         " = %.0f%% of the model's %.1f at %s" % (100 * g / pred, pred, rates[0]) if pred else
         " (rates %s)" % ", ".join(rates),
         "%.1f" % s["latency_median_ms"] if isinstance(s.get("latency_median_ms"), (int, float)) else "?"))
EOF
}
if part airbound; then
	mkdir -p "$work/ab"
	ablab=$(make_test_lab "$work/ab" "$ROOT/lab/virtual-airbound.yaml")
	for l in "$ablab" "$lab"; do
		name=$(sed -n 's/^lab: //p' "$l")
		for v in mac80211-6.12 stock-6.1; do
			"$AIRLAB" --lab "$l" down >/dev/null 2>&1
			start=$(date +%s)
			"$AIRLAB" --lab "$l" run tcp_ndown --length 20 --variant "$v" \
				--out "$work/ab/res" >"$work/ab/$name-$v.out" 2>&1
			dir=$(ls -d "$work/ab/res"/*-"tcp_ndown-$v" 2>/dev/null | tail -1)
			if [ -s "$dir/run.json" ]; then
				echo "airbound: $name, $v, tcp_ndown 4 stations: $(airbound_figures "$dir/run.json"); $(($(date +%s) - start)) s wall with boot"
			else
				echo "airbound: $name, $v: no run.json ($(tail -1 "$work/ab/$name-$v.out"))"
			fi
			rm -rf "$dir"
		done
		"$AIRLAB" --lab "$l" down >/dev/null 2>&1
	done
fi
# The seed's setting (topology/cell-2sta-lowrate.yaml: two stations at
# MCS 0) on the air-bound lab: rrul's latency under load, with its EF
# probe apart (harness/medium/README.md, "rrul: what the access
# categories do"), and flows100's start-up, for both variants.
probe_median() { # probe_median FLENT_GZ SERIES -> ms
	python3 -c 'import gzip, json, statistics, sys
v = [x for x in json.load(gzip.open(sys.argv[1]))["results"].get(sys.argv[2], []) if x is not None]
print("%.1f" % statistics.median(v) if v else "none")' "$1" "$2" 2>/dev/null || echo none
}
if part seed; then
	mkdir -p "$work/seed"
	sdlab=$(make_test_lab "$work/seed" "$ROOT/lab/virtual-airbound.yaml")
	ablab=$sdlab
	seedtop=$ROOT/topology/cell-2sta-lowrate.yaml
	declare -A seed_lat=()
	for v in stock-6.1 mac80211-6.12; do
		"$AIRLAB" --lab "$sdlab" down >/dev/null 2>&1
		for s in rrul flows100; do
			"$AIRLAB" --lab "$sdlab" --topology "$seedtop" run "$s" --length 30 \
				--variant "$v" --out "$work/seed/res" >"$work/seed/$s-$v.out" 2>&1
			dir=$(ls -d "$work/seed/res"/*-"$s-$v" 2>/dev/null | tail -1)
			if [ ! -s "$dir/run.json" ]; then
				echo "seed: $s, $v: no run.json ($(tail -1 "$work/seed/$s-$v.out"))"
				continue
			fi
			fig=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print("median latency %.1f ms, goodput %.2f up / %.2f down Mbit/s, flows going within 2 s %s of %s" % (
    s.get("latency_median_ms", float("nan")), s.get("up_mbps", float("nan")),
    s.get("down_mbps", float("nan")), s.get("flows_started_2s", "?"), s.get("flows", "?")))' "$dir/run.json")
			[ "$s" = rrul ] && fig="$fig, EF probe median $(probe_median "$(ls "$dir"/*.flent.gz)" "Ping (ms) UDP EF") ms"
			echo "seed: $s, $v, 2 stations at MCS 0: $fig"
			[ "$s" = rrul ] && seed_lat[$v]=$(sed -E 's/.*median latency ([0-9.]+) ms.*/\1/' <<<"$fig")
		done
	done
	"$AIRLAB" --lab "$sdlab" down >/dev/null 2>&1
	awk -v a="${seed_lat[stock-6.1]:-0}" -v b="${seed_lat[mac80211-6.12]:-0}" 'BEGIN {
		if (a > 0 && b > 0) printf "seed: rrul median latency stock-6.1 / mac80211-6.12: %.1fx\n", a / b
		else print "seed: rrul median latency ratio: a run is missing" }'
fi
part medium || exit 0

dsh() { "$AIRLAB" --lab "$lab" shell dut1 -- sh -c "$1"; }
field() { awk -v k="$2" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) { print kv[2]; exit } } }' <<<"$1"; }
"$AIRLAB" --lab "$lab" down >/dev/null 2>&1
if ! "$AIRLAB" --lab "$lab" up --require-all --variant "$variant" >/dev/null 2>&1; then
	echo "medium: airlab up failed; no medium figures"
	exit 1
fi
out=$(dsh '/usr/sbin/ip netns exec sta1 iw dev wlan0 set bitrates ht-mcs-2.4 7
	airlab-medium -C reset >/dev/null
	/usr/sbin/ip netns exec server iperf3 -s -D -1 -p 5401; sleep 0.5
	/usr/sbin/ip netns exec sta1 iperf3 -c 10.43.0.2 -p 5401 -t 10 -J |
		sed -n "s/.*\"bits_per_second\":[[:space:]]*\([0-9.e+]*\).*/\1/p" | tail -1
	airlab-medium -C stats | grep "^radio 1 "
	/usr/sbin/ip netns exec sta1 iw dev wlan0 set bitrates')
bps=$(head -1 <<<"$out")
r1=$(grep '^radio 1 ' <<<"$out")
ppdus=$(field "$r1" tx_ppdus)
subs=$(field "$r1" tx_ampdu_subframes)
rate=$(field "$r1" tx_rate)
n=$(awk -v s="${subs:-0}" -v p="${ppdus:-0}" 'BEGIN { n = p > 0 ? s / p : 1; if (n < 1) n = 1; printf "%d", n + 0.5 }')
pred=$("$AIRLAB" medium predict MCS7/20 --ampdu "$n" | sed -n 's/.*goodput_mbps=//p')
awk -v b="${bps:-0}" -v p="${pred:-0}" -v n="$n" -v r="$rate" 'BEGIN {
	printf "medium: TCP upload at MCS7/20 (medium saw %s), mean A-MPDU %d: %.2f Mbit/s, model predicts %.2f Mbit/s, ratio %.2f\n",
		r, n, b / 1e6, p, (p > 0 ? b / 1e6 / p : 0) }'

# frames_per_s LAB NAME STEPS...: the frames/s steps on LAB's running cell.
frames_per_s() {
	local l=$1 name=$2 best=0 pps kbps out fin el p99 fps nl
	shift 2
	for pps in "$@"; do
		kbps=$((pps * 100 * 8 / 1000))
		out=$("$AIRLAB" --lab "$l" shell dut1 -- sh -c "airlab-medium -C reset >/dev/null
			/usr/sbin/ip netns exec sta1 iperf3 -s -D -1 -p 5402; sleep 0.5
			/usr/sbin/ip netns exec server iperf3 -c 10.42.0.11 -p 5402 -u -l 100 -b ${kbps}K -t 5 >/dev/null
			airlab-medium -C stats | grep -E '^(frames_in|netlink)'
			airlab-medium -C lag")
		fin=$(field "$(grep '^frames_in=' <<<"$out")" frames_in)
		el=$(field "$(grep '^frames_in=' <<<"$out")" elapsed_us)
		p99=$(field "$(grep '^lag ' <<<"$out")" p99_us)
		fps=$(awk -v f="${fin:-0}" -v e="${el:-0}" 'BEGIN { printf "%d", (e > 0 ? f * 1e6 / e : 0) }')
		echo "medium ($name): offered $pps pkt/s: $fps frames/s through the daemon, lag p99 ${p99:-?} us" >&2
		if awk -v p="${p99:-1e9}" 'BEGIN { exit !(p < 1000) }' && [ "$fps" -gt "$best" ]; then best=$fps; fi
	done
	nl=$(grep '^netlink ' <<<"$out")
	echo "medium ($name): highest frames/s with lag p99 under 1 ms: $best (0: no step met it); netlink $(field "$nl" messages) messages in $(field "$nl" sends) sends"
}
frames_per_s "$lab" virtual 500 1000 2000 4000 8000
"$AIRLAB" --lab "$lab" down >/dev/null 2>&1
# The same on the air-bound lab, where the guest's clock counts its
# instructions: what one guest CPU can push through hwsim and the medium.
mkdir -p "$work/mab"
ablab=$(make_test_lab "$work/mab" "$ROOT/lab/virtual-airbound.yaml")
if "$AIRLAB" --lab "$ablab" up --require-all --variant "$variant" >/dev/null 2>&1; then
	frames_per_s "$ablab" virtual-airbound 4000 8000 16000 24000 32000
else
	echo "medium (virtual-airbound): airlab up failed; no figures"
fi
"$AIRLAB" --lab "$ablab" down >/dev/null 2>&1
