#!/usr/bin/env bash
# Integration test of `airlab run` on the virtual lab: suites run through
# agents on the DUT, results land in a new run directory, Debian's Flent
# opens every file, and bad input is refused before anything starts.
set -u
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/airlab-it-run.XXXXXX)
lab=$(make_test_lab "$work")
res="$work/results"
al() { "$AIRLAB" --lab "$lab" "$@"; }
cleanup() {
	al down >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# -- bad input: refused at once, nothing booted, nothing written ---------
out=$(al run no-such-suite --out "$res" 2>&1)
rc=$?
check "unknown suite: exit 2" test $rc -eq 2
check "unknown suite lists the known ones" grep -q 'rrul' <<<"$out"
for bad in "--length 0" "--length -3" "--length abc" "--step 0" "--step x"; do
	# shellcheck disable=SC2086
	out=$(al run rrul $bad --out "$res" 2>&1)
	rc=$?
	check "run rrul $bad is refused (exit 2)" test $rc -eq 2
done
out=$(al run rrul --out /proc/airlab-nowhere 2>&1)
rc=$?
check "run --out where nothing can be written: exit 2, one line (exit $rc: $out)" \
	bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <<<"$2")" -eq 1 ] && grep -q "cannot write results there" <<<"$2"' _ $rc "$out"
check "refused runs started no DUT" \
	grep -q 'dut1: off' <<<"$(al power status dut1)"
check "refused runs wrote no results" test ! -e "$res"

# -- three suites Flent has, each opened by Flent ----------------------------
for spec in "rrul --length 8" "tcp_nup --length 6 --streams 2" "rtt_fair --length 6"; do
	suite=${spec%% *}
	# shellcheck disable=SC2086
	al run $spec --variant mac80211-6.12 --out "$res" >"$work/$suite.out" 2>"$work/$suite.err"
	rc=$?
	cat "$work/$suite.out"
	if [ $rc -eq 0 ]; then ok "run $suite: complete (exit 0)"; else
		not_ok "run $suite exited $rc"; tail -5 "$work/$suite.err"; fi
	dir=$(ls -d "$res"/*-"$suite"-mac80211-6.12 2>/dev/null | tail -1)
	file=$(ls "$dir"/*.flent.gz 2>/dev/null | head -1)
	check "run $suite: wrote a .flent.gz" test -s "$file"
	check "run $suite: run.json says complete" \
		python3 -c "import json,sys; d=json.load(open('$dir/run.json')); sys.exit(d['status']!='complete' or d['kernel'].split('.')[:2]!=['6','12'] or len(d['stations'])!=4)"
	check "run $suite: flent -f summary reads it" \
		flent -i "$file" -f summary -o "$work/$suite.txt"
	check "run $suite: flent plots it" \
		flent -i "$file" -p totals -o "$work/$suite.png"
	check "run $suite: the plot is a PNG" \
		grep -q PNG <<<"$(head -c 8 "$work/$suite.png" 2>/dev/null)"
done

# -- per-station airtime: the medium's counters and nl80211's --------------
# All four stations download; run.json keeps each source's per-station
# airtime and share. The medium counts both directions; mac80211 on 6.12
# reports the AP's tx duration (the stations' downlink) per station.
al run airtime --length 8 --variant mac80211-6.12 --out "$res" >"$work/airtime.out" 2>&1
cat "$work/airtime.out"
dir=$(ls -d "$res"/*-airtime-mac80211-6.12 2>/dev/null | tail -1)
airtime_ok() {
	python3 - "$dir/run.json" "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["airtime"][sys.argv[2]]
st = d["stations"]
shares = [s["share"] for s in st]
ok = (len(st) == 4 and all(s["rx_us"] > 0 for s in st)
      and abs(sum(shares) - 1) < 1e-6 and 0 < d["jain"] <= 1)
sys.exit(0 if ok else 1)
EOF
}
check "run airtime: the medium's per-station airtime and shares in run.json" airtime_ok medium
check "run airtime: nl80211's per-station airtime (AP tx duration) in run.json" airtime_ok nl80211
check "run airtime: the summary prints both sources and Jain's index" \
	bash -c 'grep -q "airtime (medium)" "$1" && grep -q "airtime (nl80211)" "$1" &&
		grep -q "Jain.s index airtime" "$1"' _ "$work/airtime.out"

# -- nothing is overwritten: the same suite twice gives two runs ------------
al run ping --length 2 --variant mac80211-6.12 --out "$res" >/dev/null 2>&1
al run ping --length 2 --variant mac80211-6.12 --out "$res" >/dev/null 2>&1
check "two runs of one suite keep two directories" \
	test "$(ls -d "$res"/*-ping-* | wc -l)" -eq 2

# -- the store: every run indexed as it ends; reindex rebuilds the same ----
nruns=$(ls -d "$res"/*/ | wc -l)
before=$(al runs --out "$res" 2>/dev/null)
check "airlab runs lists all $nruns runs" test "$(tail -n +2 <<<"$before" | wc -l)" -eq "$nruns"
check "airlab runs --suite ping --last 1 gives the newest ping run" \
	test "$(al runs --out "$res" --suite ping --last 1 2>/dev/null | tail -n +2 | awk '{ print $1 }')" = \
	"$(ls -d "$res"/*-ping-* | tail -1 | xargs basename)"
check "airlab runs --variant is the runs' filter, not the variant to flash" \
	test "$(al runs --out "$res" --variant no-such-variant 2>&1 >/dev/null)" = "0 runs"
out=$(al runs --out "$work/no-such-results" 2>&1)
rc=$?
check "airlab runs --out a directory with no runs: exit 2, one line, nothing created (exit $rc: $out)" \
	bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <<<"$2")" -eq 1 ] && grep -q "no results database" <<<"$2" && [ ! -e "$3" ]' \
	_ $rc "$out" "$work/no-such-results"
rm -f "$res/airlab.db" "$res/airlab.db-wal" "$res/airlab.db-shm"
rein=$(al reindex --out "$res" 2>&1)
check "airlab reindex rebuilds the index from the run directories ($rein)" \
	grep -q "^reindex: $nruns runs" <<<"$rein"
check "after reindex airlab runs lists the same" test "$(al runs --out "$res" 2>/dev/null)" = "$before"

# -- compare: statistics on the samples of two runs ------------------------
ping1=$(ls -d "$res"/*-ping-* | head -1 | xargs basename)
ping2=$(ls -d "$res"/*-ping-* | tail -1 | xargs basename)
rrul=$(ls -d "$res"/*-rrul-* | tail -1 | xargs basename)
out=$(al compare "$ping1" "$rrul" --metric latency --out "$res" 2>&1)
rc=$?
echo "$out"
check "compare idle ping -> rrul: latency worse, exit 1" \
	bash -c '[ "$1" -eq 1 ] && grep -q "^latency (ms) .* worse$" <<<"$2"' _ $rc "$out"
out=$(al compare --baseline last-good "$ping2" --out "$res" 2>&1)
rc=$?
echo "$out"
check "compare --baseline last-good picks the ping run before" grep -q "^compare $ping1 (A) -> $ping2 (B)" <<<"$out"
# -- report: a static page whose every image exists and is a PNG ----------
al report "$ping1" "$rrul" "$ping2" -o "$work/report" --out "$res" >"$work/report.out" 2>&1
cat "$work/report.out"
report_ok() {
	local page=$work/report/index.html img n=0
	[ -s "$page" ] || return 1
	for img in $(sed -n 's/.*<img src="\([^"]*\)".*/\1/p' "$page"); do
		[ "$(head -c 8 "$work/report/$img" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || return 1
		n=$((n + 1))
	done
	# two runs: Flent's series, CDF and station bars each, two box plots
	[ "$n" -ge 7 ] || { echo "# only $n images on the page"; return 1; }
}
check "report: index.html and every image on it is a PNG" report_ok
# Only like runs are compared: C (ping) against A (ping); B (rrul) has no
# run of its suite before it (it was compared with the ping run).
check "report: the comparison table compares C with A, both ping, and not B (rrul)" \
	bash -c 'grep -q "<tr><td>C</td><td>A</td><td>latency (ms)</td>" "$1" && ! grep -q "<tr><td>B</td><td>[A-Z]</td><td>latency" "$1"' \
	_ "$work/report/index.html"
check "report: the box plots' runs are named by suite and variant" \
	grep -q 'A: ping mac80211-6.12, B: rrul mac80211-6.12, C: ping mac80211-6.12' "$work/report/index.html"
out=$("$ROOT/harness/tests/browser_check.sh" "$work/report")
check "report in headless Chromium: every image loaded, every link to a raw file leads to it ($out)" \
	"$ROOT/harness/tests/browser_check.sh" "$work/report"
check "report: the header links each run's run.json and Flent file" \
	bash -c '[ "$(grep -c "<a href=\"[^\"]*/run.json\">run.json</a>" "$1")" -ge 6 ] && grep -q "flent.gz\">" "$1"' _ "$work/report/index.html"

# -- nightly: a one-run plan twice; the second night compares with the first
nres=$work/nightly-results
cat >"$work/plan.yaml" <<EOF
name: it-nightly
variants: [mac80211-6.12]
suites: [{name: ping, length: 3}]
thresholds: {latency: 0.5}
EOF
al nightly "$work/plan.yaml" --out "$nres" >"$work/n1.out" 2>"$work/n1.err"
rc=$?
cat "$work/n1.out"
n1=$(ls -d "$nres"/nightly/* | head -1)
check "nightly, first night: exit 0, no baseline yet" \
	bash -c '[ "$1" -eq 0 ] && grep -q "no baseline yet" "$2"' _ $rc "$work/n1.out"
check "nightly: progress on stderr" grep -q '^nightly: \[1/1\] ping on mac80211-6.12' "$work/n1.err"
check "nightly: summary.json, junit.xml (valid XML, one test case) and the report" \
	python3 -c "
import json, sys, xml.dom.minidom as m
s = json.load(open('$n1/summary.json'))
j = m.parse('$n1/junit.xml').getElementsByTagName('testcase')
sys.exit(not (s['status'] == 'ok' and len(s['runs']) == 1 and len(j) == 1 and
              open(s['report']).read().startswith('<!DOCTYPE html>')))"
al nightly "$work/plan.yaml" --out "$nres" >"$work/n2.out" 2>&1
rc=$?
n2=$(ls -d "$nres"/nightly/* | tail -1)
first=$(python3 -c "import json; print(json.load(open('$n1/summary.json'))['runs'][0]['id'])")
check "nightly, second night: compared with the first night's run (exit $rc)" \
	python3 -c "
import json, sys
r = json.load(open('$n2/summary.json'))['runs'][0]
sys.exit(not (r['baseline'] == '$first' and r['comparisons'] and $rc in (0, 1)))"
al report --nightly "$(basename "$n2")" --out "$nres" -o "$work/nrep" >/dev/null 2>&1
check "report --nightly: the night's page with a trend over both nights (a PNG)" \
	bash -c 'grep -q "trend-0.png" "$1/index.html" &&
		[ "$(head -c 4 "$1/trend-0.png" | od -An -tx1 | tr -d " \n")" = 89504e47 ]' _ "$work/nrep"
out=$("$ROOT/harness/tests/browser_check.sh" "$work/nrep")
check "nightly report in headless Chromium: every image loaded, no dead link ($out)" \
	"$ROOT/harness/tests/browser_check.sh" "$work/nrep"
printf 'name: bad\nvariants: [mac80211-6.12]\nsuites: [{name: rrul2}]\n' >"$work/bad-plan.yaml"
out=$(al nightly "$work/bad-plan.yaml" --out "$nres" 2>&1)
rc=$?
check "nightly: a bad plan is refused with file:line before anything runs (exit 2)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "bad-plan.yaml:3: .*unknown suite .rrul2." <<<"$2"' _ $rc "$out"

out=$(al compare "$ping1" "$ping2" --metric jitter --out "$res" 2>&1)
rc=$?
check "compare: an unknown metric is refused, the known ones listed (exit 2)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "unknown metric .jitter. (known: latency goodput" <<<"$2"' _ $rc "$out"
# A missing or unreadable run is bad input: exit 2 and one line, never an
# empty table that exits 1 like a regression.
out=$(al compare nosuch "$ping1" --out "$res" 2>&1)
rc=$?
check "compare: a run that is not there: exit 2, one line, no table (exit $rc: $out)" \
	bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <<<"$2")" -eq 1 ] && grep -q "no run .nosuch. in" <<<"$2"' _ $rc "$out"
mkdir -p "$work/cut"
cp -a "$res/$ping1" "$res/$ping2" "$work/cut/"
cutf=$(ls "$work/cut/$ping2"/*.flent.gz)
head -c 300 "$cutf" >"$cutf.part" && mv "$cutf.part" "$cutf"
out=$(al compare "$ping1" "$ping2" --out "$work/cut" 2>&1)
rc=$?
check "compare: a truncated Flent file: exit 2, one line naming it, no table (exit $rc: $out)" \
	bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <<<"$2")" -eq 1 ] && grep -q "flent.gz: truncated or corrupt" <<<"$2"' _ $rc "$out"
out=$(al report "$ping1" "$ping2" --out "$work/cut" -o "$work/cut-report" 2>&1)
rc=$?
check "report with a truncated Flent file: exit 1, said incomplete, the page names the run's loss, the healthy run keeps its plot (exit $rc)" \
	bash -c '[ "$1" -eq 1 ] && grep -q "(incomplete" <<<"$2" && grep -q "flent.gz: truncated or corrupt" <<<"$2" &&
		grep -q "No time series, CDF or comparison for this run" "$3/index.html" && [ -s "$3/r0-series.png" ]' \
	_ $rc "$out" "$work/cut-report"

# -- a DUT that does not boot is a recorded result, not just a message ------
al down >/dev/null 2>&1
sed -e 's/^      boot_timeout_s: .*/      boot_timeout_s: 15\n      ready_marker: airlab-never-printed/' \
	"$lab" >"$work/noboot.yaml"
nbefore=$(ls -d "$res"/*/ | wc -l)
"$AIRLAB" --lab "$work/noboot.yaml" run ping --length 2 --out "$res" >"$work/nb.out" 2>"$work/nb.err"
rc=$?
nb=$(ls -td "$res"/*/ | head -1)
check "a DUT that never shows its ready marker: exit 4, said as lab-failed" \
	bash -c '[ "$1" -eq 4 ] && grep -q "lab-failed, results in" "$2"' _ $rc "$work/nb.out"
check "the lab failure has its own run directory (earlier runs kept)" \
	test "$(ls -d "$res"/*/ | wc -l)" -eq $((nbefore + 1))
check "its run.json: status lab-failed, the reason names the marker" \
	python3 -c "
import json, sys
r = json.load(open('${nb}run.json'))
sys.exit(not (r['status'] == 'lab-failed' and 'airlab-never-printed' in r['reasons']
	and r['summary'] is None and r['flent_file'] is None))"
check "its console.log holds what the DUT said (the kernel booting)" \
	grep -q 'Linux version' "${nb}console.log"
check "airlab runs --status lab-failed lists it" \
	grep -q "$(basename "$nb")" <<<"$(al runs --status lab-failed --out "$res" 2>/dev/null)"
"$AIRLAB" --lab "$work/noboot.yaml" down >/dev/null 2>&1
# A night on that lab: lab failed, and its table says "-" for the figures
# the run never had (it printed nan).
"$AIRLAB" --lab "$work/noboot.yaml" nightly "$work/plan.yaml" --out "$work/nb-nightly" \
	>"$work/nbn.out" 2>"$work/nbn.err"
rc=$?
cat "$work/nbn.out"
check "a night whose DUT never boots: exit 4 (the lab), '-' for its missing figures, no nan (exit $rc)" \
	bash -c '[ "$1" -eq 4 ] && ! grep -wq "nan" "$2" && grep -Eq "^ping +mac80211-6.12 .*( +-){3}" "$2"' _ $rc "$work/nbn.out"
check "its junit.xml: the lab error names the reason (the marker), every test case has a time" \
	python3 -c "
import glob, sys, xml.dom.minidom as m
d = m.parse(glob.glob('$work/nb-nightly/nightly/*/junit.xml')[0])
err = d.getElementsByTagName('error')[0].getAttribute('message')
cases = d.getElementsByTagName('testcase')
sys.exit(not ('airlab-never-printed' in err and 'see above' not in err and
	all(c.hasAttribute('time') for c in cases if c.getAttribute('classname') != 'lab')))"
"$AIRLAB" --lab "$work/noboot.yaml" down >/dev/null 2>&1

finish
