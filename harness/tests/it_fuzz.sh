#!/usr/bin/env bash
# Fuzzes every parser: builds each harness/fuzz/fuzz_*.c with clang and
# libFuzzer as the Makefile's `fuzz` rule does (same flags, same library
# sources, same pkg-config packages), seeds a corpus per fuzzer from
# harness/tests/data and a few inputs written here, and runs each for
# AIRLAB_FUZZ_SECONDS seconds (default 5), AIRLAB_FUZZ_JOBS at a time
# (default: one per CPU; some 45 s in all on two CPUs). One check per
# fuzzer: it passes when the fuzzer exits 0; a finding (crash, sanitizer
# report, broken invariant, timeout, leak, memory blow-up) fails it, and
# the input is kept under build/fuzz/findings/. Arguments, if any, name
# the fuzzers to run (fuzz_plan fuzz_flent ...). Needs no VM.
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh disable=SC1091
. "$(dirname "$0")/lib.sh"

secs=${AIRLAB_FUZZ_SECONDS:-5}
out=build/fuzz
findings=$out/findings
data=harness/tests/data
cd "$ROOT" || exit 1
work=$(mktemp -d /tmp/airlab-it-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
# UBSan only reports and goes on unless told otherwise: make it a finding.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:print_stacktrace=1
# fuzz_plan looks its suites up: the tree's files, none of the user's.
export AIRLAB_ROOT=$ROOT AIRLAB_SUITES=

names=()
if [ $# -gt 0 ]; then
	names=("$@")
else
	for f in harness/fuzz/fuzz_*.c; do
		n=${f##*/}
		names+=("${n%.c}")
	done
fi

# ---- build -----------------------------------------------------------------
# The Makefile's own PKGS, PKG_CFLAGS, PKG_LIBS and LIB_SRC, read by make
# itself; the flags are the `fuzz` rule's. The library is compiled once
# into objects (not once per fuzzer, which takes ~40 s each) and every
# fuzzer links them; make rebuilds only what changed.
# shellcheck disable=SC2016 # make variables, for make to expand
fuzz_mk='
FZ := build/fuzz
FZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined
FZ_OBJ := $(LIB_SRC:%.c=$(FZ)/obj/%.o)
FZ_BIN := $(addprefix $(FZ)/,$(FZ_NAMES))
.PHONY: fuzz-bins
fuzz-bins: $(FZ_BIN)
$(FZ)/obj/%.o: %.c ; @mkdir -p $(@D) && clang $(FZ_CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@
$(FZ_BIN): $(FZ)/%: harness/fuzz/%.c $(FZ_OBJ) ; clang $(FZ_CFLAGS) $(PKG_CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(FZ_OBJ) $(PKG_LIBS) -lm
-include $(shell find $(FZ) -name "*.d" 2>/dev/null)
'
fmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory \
		-f Makefile -f - FZ_NAMES="${names[*]}" "$@" <<<"$fuzz_mk"
}

# Without clang's libFuzzer and sanitizer runtimes nothing can run: say
# what is missing rather than pass without fuzzing.
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\n%s\n' \
	'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }' >"$work/probe.c"
if ! clang -fsanitize=fuzzer,address,undefined -o "$work/probe" "$work/probe.c" >"$work/probe.log" 2>&1; then
	head -3 "$work/probe.log"
	not_ok "clang with libFuzzer, ASan and UBSan (Debian: clang libclang-rt-14-dev)"
	finish
	exit
fi

echo "# building ${#names[@]} fuzzers in $out"
start=$SECONDS
fmake -k -j"$(nproc)" fuzz-bins >"$work/build.log" 2>&1 ||
	grep -vE '^(clang|mkdir) ' "$work/build.log" | grep -E 'error|undefined|No rule' | head -20
# What built now; asked at once, as others may edit the tree while the
# fuzzers run.
built=()
for n in "${names[@]}"; do
	if [ -x "$out/$n" ] && fmake -q "$out/$n" >/dev/null 2>&1; then
		built+=("$n")
	fi
done
echo "# built ${#built[@]} in $((SECONDS - start)) s"

# ---- corpora ---------------------------------------------------------------
# seed NAME FILE: one seed file in NAME's corpus from stdin.
seed() {
	mkdir -p "$work/corpus/$1"
	cat >"$work/corpus/$1/$2"
}
# dict NAME: NAME's libFuzzer dictionary from stdin.
dict() {
	mkdir -p "$work/dict"
	cat >"$work/dict/$1"
}
# seed_files NAME FILE...: copies of existing files.
seed_files() {
	mkdir -p "$work/corpus/$1"
	local f i=0
	for f in "${@:2}"; do
		[ -f "$f" ] && cp "$f" "$work/corpus/$1/$((i++))-${f##*/}"
	done
}

seed_files fuzz_lab "$data"/lab/*.yaml
seed_files fuzz_topology "$data"/topology/*.yaml
seed_files fuzz_variant "$data"/kernel/*.yaml "$data"/kernel-list/*.yaml
seed_files fuzz_plan lab/nightly-*.yaml
seed_files fuzz_suite suites/*.suite "$data"/suites/*.suite

# A run.json as `airlab run` writes it, every section present, and one
# from before records named their suite.
seed fuzz_run_doc run.json <<'EOF'
{"id": "20261207T100000Z-rrul-stock", "status": "partial", "reasons": "sta2",
 "suite": "rrul", "plot": "all_scaled", "variant": "stock", "lab": "virtual",
 "kernel": "6.1.0", "airlab_commit": "0123-dirty", "start": "2026-12-07T10:00:00Z",
 "flent_file": "rrul.flent.gz", "length_s": 60, "step_s": null,
 "dut_image": {"driver": "uboot-tftp", "image": null},
 "summary": {"latency_median_ms": 41.5, "flows": 8, "up_jain": null},
 "stations": [{"name": "sta1", "associated": true, "assoc_s": 1.2, "signal_dbm": null}],
 "station_goodput": [{"name": "sta1", "up_mbps": 10.5, "down_mbps": 20}],
 "flows": [{"series": "TCP upload sta1", "station": "sta1", "direction": "up", "mean_mbps": 10.5}],
 "link": [{"name": "sta1", "rate_mbps": 30, "retries": 12, "failed": 0}],
 "airtime": {"medium": {"stations": [{"name": "sta1", "share": 1}], "jain": 1},
             "nl80211": {"error": "no survey"}},
 "lava": {"job_id": 4}}
EOF
seed fuzz_run_doc old.json <<<'{"id": "20260101T000000Z-tcp_nup-stock-2", "status": "complete"}'
# A sweep's record and a bisect's as they write them (results/series_doc.h).
seed fuzz_series_doc sweep.json <<'EOF'
{"id": "20261207T100000Z", "kind": "sweep", "start": "20261207T100000Z",
 "end": "20261207T101000Z", "status": "partial", "mode": "attenuation",
 "suite": "rtt_fair", "lab": "lab/virtual.yaml", "paths": ["path1"],
 "variants": ["stock"], "x": [0.0, 30.0], "dwell_s": 20, "length_s": null,
 "steps": [
  {"variant": "stock", "x": 0.25, "label": "0 dB", "outcome": "ok",
   "run_id": "20261207T100100Z-rtt_fair-stock",
   "atten": [{"path": "path1", "set_db": 0.0, "read_db": 0.25}],
   "latency_median_ms": 41.5, "latency_p99_ms": null,
   "stations": [{"name": "sta1", "associated": true, "settled": true,
     "settle_s": 3.5, "settle_signal_dbm": -40.0, "settle_txrate_mbps": 54.0,
     "settle_expected_mbps": 30.0, "rate_mbps": 28.5, "tx_bitrate_mbps": 54.0,
     "signal_dbm": -40.0, "retries": 12.0, "failed": 0.0,
     "goodput_up_mbps": 10.5, "goodput_down_mbps": null}]},
  {"variant": "stock", "x": 30.0, "label": "30 dB", "outcome": "dropped",
   "run_id": null, "atten": [], "latency_median_ms": null,
   "latency_p99_ms": null, "stations": []}]}
EOF
seed fuzz_series_doc bisect.json <<'EOF'
{"id": "20261207T120000Z", "kind": "bisect", "start": "20261207T120000Z",
 "status": "complete", "suite": "ping", "lab": "/lab/virtual.yaml",
 "metric": "latency", "repo": "/src/linux", "good": "v6.1", "bad": "v6.2",
 "build": "make", "threshold": 0.1, "runs": 2, "max_runs": 4,
 "length_s": 10.0, "topology": "/topology/two.yaml", "results": "/r",
 "first_bad": {"rev": "abc", "parent": "def"}, "report": "/r/bisect/b/report",
 "bisect_steps": 1, "wall_s": 600.5,
 "steps": [
  {"role": "good", "rev": "def", "subject": "one", "label": "one",
   "variant": "/r/bisect/b/00-def/out/v.yaml", "runs": ["/r/run1", "/r/run2"],
   "run_id": "run1", "outcome": "baseline", "good_median": null,
   "median": 10.5, "change": null, "ci": [null, null], "reason": "", "x": 0,
   "dir": "/r/bisect/b/00-def"},
  {"role": "bad", "rev": "abc", "subject": "two", "label": "two",
   "variant": "/r/bisect/b/01-abc/out/v.yaml", "runs": [], "run_id": null,
   "outcome": "skip", "good_median": 10.5, "median": null, "change": 0.3,
   "ci": [0.1, 0.5], "reason": "the build (make) exited 2; see build.log",
   "x": 1, "dir": "/r/bisect/b/01-abc"}]}
EOF

seed fuzz_plan small.yaml <<'EOF'
name: nightly-small
lab: ../lab/virtual.yaml
topology: /srv/topology/cell-4sta.yaml
variants: [stock-6.1, "mac80211-6.12"]
suites:
  - {name: rrul, length: 20, streams: 4}
  - name: rtt_fair
repeat: 3
thresholds: {latency: 0.10, goodput_up: 0.05}
EOF
seed fuzz_plan block.yaml <<'EOF'
name: p
variants:
  - fq_codel-6.1
suites:
  - {name: tcp_nup, length: 1.5}
EOF

flent_json='{"metadata": {"NAME": "rrul", "NOTE": "two\nlines, \"quoted\"", "STEP_SIZE": 0.2, "T0": "2026-01-01T00:00:00Z"},
 "raw_values": {"Ping (ms) ICMP": [{"t": 1767225600.1, "val": 0.4, "seq": 0}]},
 "results": {"Ping (ms) ICMP": [0.4, null, 0.5], "TCP upload sum": [1.5, 2, 3e1]},
 "version": 4, "x_values": [0.0, 0.2, 0.4]}'
seed fuzz_flent plain.json <<<"$flent_json"
gzip -9c <<<"$flent_json" | seed fuzz_flent small.flent.gz
gzip -9c <<<"$flent_json" | head -c 120 | seed fuzz_flent cut.flent.gz
# JSON's tokens, Flent's keys and escapes (a raw newline too) for the
# mutator to splice in: plain byte flips rarely make them.
dict fuzz_flent <<'EOF'
"{"
"}"
"["
"]"
":"
","
"\""
"\\"
"\\n"
"\\\""
"\\u0000"
"\\ud800"
"\x0a"
"\x1f\x8b"
"null"
"true"
"1e999"
"-0"
"\"version\": 4"
"\"metadata\": {\"NAME\": \"x\"}"
"\"x_values\": []"
"\"results\": {}"
"\"raw_values\": {}"
EOF
# Regressions: file text quoted in a message (one line, always).
printf '"\\\n' | seed fuzz_flent escape-newline.json
seed fuzz_flent key-newline.json <<<'{"metadata": {"NAME": "x"}, "version": 1, "x_values": [1], "results": {"a\nb": []}, "raw_values": {}}'
seed fuzz_flent v1.json <<<'{"metadata": {"NAME": "x"}, "version": 1, "x_values": [], "results": {}, "raw_values": {}}'

# A suite file's keys and words (suites/README.md).
dict fuzz_suite <<'EOF'
"description: "
"flent: "
"plot: "
"length: "
"delay: "
"step: "
"streams: "
"streams_param: "
"report: [fairness, startup]"
"flows:"
"computed:"
"- {kind: tcp-up, series: x, bulk: true}"
"kind: "
"scope: "
"series: "
"marking: "
"labels: [a, b]"
"markings: [CS0, EF]"
"ping_labels: [p1, p2]"
"bulk: "
"interval_ms: "
"- {name: s, prefix: x, op: sum, units: ms}"
"tcp-up"
"tcp-down"
"udp"
"icmp"
"one"
"each"
"streams"
"avg"
"fairness"
"%i"
"%h"
"%l"
"%p"
"%%"
"AF41"
EOF

seed fuzz_agent_cmd session.txt <<'EOF'
hello
serve tcp 5201
serve udp 5202 bind=10.0.0.1
flow tcp-up up0 10.0.0.1 5201 tos=EF cc=cubic delay_ms=5000 length_ms=60000
flow tcp-down dn.1 fd00::1 5201 dscp=AF41 dev=wlan0
probe udp udp1 10.0.0.1 5202 tos=0xb8 interval_ms=5 size=64
probe icmp p:1 10.0.0.1 dscp=46 interval_ms=200
start 1767225600000 70 200
stop
quit
EOF
printf 'probe udp u 10.0.0.1 5202 dscp=CS1 tos=LE\r\n' | seed fuzz_agent_cmd crlf.txt
printf 'start 1767225600000 0.5e1 10' | seed fuzz_agent_cmd start.txt
printf 'flow tcp-up a 10.0.0.1 1 dscp=65\n' | seed fuzz_agent_cmd dscp.txt

seed fuzz_stations rows.txt <<'EOF'
station=sta1 associated=yes assoc_s=3.25 signal_dbm=-30 txrate_mbps=144.4 wpa_state=COMPLETED bssid=02:00:00:00:00:00 addr=02:00:00:00:01:00
station=sta2 associated=no assoc_s=- signal_dbm=- txrate_mbps=- wpa_state=SCANNING
station=long-station-15	associated=yes	addr=02:00:00:00:03:00
EOF
printf 'station=sta9 associated=yes\n' | seed fuzz_stations unknown.txt

seed fuzz_cell_conf cell.conf <<'EOF'
# written by airlab at flash time
AIRLAB_VARIANT='mac80211-6.12'
AIRLAB_ROOT_QDISC='noqueue'
AIRLAB_SSID='airlab cell'; AIRLAB_PSK='it'\''s a secret'
AIRLAB_CHANNEL=6 AIRLAB_NSTA=2
AIRLAB_STA_1_NAME="sta1" AIRLAB_STA_1_PATH=path1 AIRLAB_STA_1_LOSS_DB=60
AIRLAB_STA_2_NAME=sta\2
AIRLAB_AP_BASIC_RATES="6 12 \"24\""
EOF
printf 'A="unterminated\nB=1\n' | seed fuzz_cell_conf open.conf
# shellcheck disable=SC1003 # backslashes for printf, no quote escaped
printf 'A=x\\\ny B="\\' | seed fuzz_cell_conf backslash.conf

seed fuzz_qmp stream.txt <<'EOF'
{"QMP": {"version": {"qemu": {"micro": 0, "minor": 2, "major": 7}}, "capabilities": []}}
{"return": {}, "id": 1}
{"event": "POWERDOWN", "timestamp": {"seconds": 1, "microseconds": 2}}
{"error": {"class": "GenericError", "desc": "no such device"}, "id": 2}
EOF
printf 'MN=RC4DAT-6000-90\r\n' | seed fuzz_minicircuits model.txt
printf '31.75\r\n' | seed fuzz_minicircuits att.txt
seed fuzz_airtime medium.txt <<'EOF'
radio 0 name=ap path=- tx_airtime_us=357328 rx_airtime_us=2814508
radio 1 name=sta1 path=p1 tx_airtime_us=544374 rx_airtime_us=50344
radio 2 name=sta2 path=p2 tx_airtime_us=868870 rx_airtime_us=69636
Station 02:00:00:00:03:00 (on wlan0)
	tx airtime:	1401264 usec
	rx airtime:	98940 usec
EOF
seed fuzz_lava_log job.log <<'EOF'
- {"dt": "2026-12-06T23:08:27.7", "lvl": "target", "msg": "AIRLAB-INFO kernel 6.1.0-57-amd64\r"}
- {"dt": "x", "lvl": "target", "msg": "AIRLAB-FILE-BEGIN record.json 6"}
- {"dt": "x", "lvl": "target", "msg": "eyJhIjoxfQ=="}
- {"dt": "x", "lvl": "target", "msg": "AIRLAB-FILE-END record.json"}
EOF

# ---- runs ------------------------------------------------------------------
# As many at a time as there are CPUs (AIRLAB_FUZZ_JOBS), each with its own
# log; the verdicts follow in order once all are done.
jobs=${AIRLAB_FUZZ_JOBS:-$(nproc)}
# run NAME: fuzzes NAME, leaves its exit status in $work/NAME.rc.
run() {
	local n=$1 opts=()
	[ -f "$work/dict/$n" ] && opts+=(-dict="$work/dict/$n")
	mkdir -p "$work/corpus/$n" "$findings"
	timeout $((secs * 3 + 60)) "$out/$n" -max_total_time="$secs" \
		-rss_limit_mb=1024 -timeout=20 -print_final_stats=0 \
		-artifact_prefix="$findings/$n-" "${opts[@]}" "$work/corpus/$n" \
		>"$work/$n.log" 2>&1
	echo $? >"$work/$n.rc"
}

start=$SECONDS
running=0
for n in "${built[@]}"; do
	run "$n" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

summary=()
for n in "${names[@]}"; do
	log=$work/$n.log
	if [ ! -f "$work/$n.rc" ]; then
		not_ok "$n: did not build (errors above)"
		continue
	fi
	rc=$(cat "$work/$n.rc")
	runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$log" | tail -1)
	summary+=("# $n: ${runs:-no \"Done\" line (exit $rc)}")
	if [ "$rc" -eq 0 ]; then
		ok "$n: no finding in ${secs} s"
		continue
	fi
	not_ok "$n: exit $rc"
	unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
	echo "# input: ${unit:-none written}"
	[ -n "$unit" ] && echo "# reproduce: $out/$n $unit"
	# The report without libFuzzer's progress lines and its own frames.
	grep -vE '^(#[0-9]+|INFO:|MS:|base unit:|0x|\\x|\s*$)|in (fuzzer::|__sanitizer|__libc_start|_start )|libc\.so|0x[0-9a-f]+: [0-9a-f]{2} |Shadow' \
		"$log" | head -25 | cut -c1-240 | sed 's/^/#   /'
done
[ ${#summary[@]} -eq 0 ] || printf '%s\n' "${summary[@]}"
echo "# fuzzed ${#names[@]} targets, $jobs at a time, in $((SECONDS - start)) s"
finish
