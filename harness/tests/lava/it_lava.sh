#!/usr/bin/env bash
# make check-lava: a real LAVA (PostgreSQL, gunicorn, scheduler, one
# worker), started here as its own processes (lava/lava-lab.sh) and stopped
# at the end. The virtual DUT is exported as two LAVA qemu devices; a plan
# of one short suite on two variants goes in as LAVA jobs, is waited for
# and stored; the stored runs are checked (figures, job ids, a compare);
# then the bad cases: a wrong token, a server that is down, a job that
# cannot boot, a failing test case inside a Complete job.
set -u
. "$(dirname "$0")/../lib.sh"

LAB_SH=$ROOT/harness/tests/lava/lava-lab.sh
work=$(mktemp -d /tmp/airlab-it-lava.XXXXXX)
state=$work/lava
res=$work/results
mkdir -p "$state"
port=${LAVA_PORT:-$(free_port)}
url=http://127.0.0.1:$port
cleanup() {
	"$LAB_SH" down "$state" >/dev/null 2>&1
	if [ -n "${AIRLAB_KEEP:-}" ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
al() { "$AIRLAB" "$@"; }
# failed_saying RC TEXT PATTERN: RC is non-zero and TEXT has PATTERN.
failed_saying() { [ "$1" -ne 0 ] && grep -q -- "$3" <<<"$2"; }

t0=$(date +%s)
if ! LAVA_PORT=$port "$LAB_SH" up "$state"; then
	not_ok "a LAVA server and worker start (see above)"
	finish
	exit 1
fi
ok "LAVA server and worker up at $url in $(($(date +%s) - t0)) s"
token=$state/token

# -- the lab as LAVA devices --------------------------------------------------
lab=$(make_test_lab "$work")
labname=$(sed -n 's/^lab: *//p' "$lab")
out=$(al --lab "$lab" lava export --out "$work/export" --apply --worker worker1 2>&1)
rc=$?
echo "$out"
check "export --apply exits 0 ($rc)" test $rc -eq 0
dict=$work/export/devices/$labname-dut1.jinja2
check "export wrote the device dictionary $labname-dut1" grep -q "extends 'qemu.jinja2'" "$dict"
check "the dictionary boots under TCG with the lab's memory" \
	bash -c "grep -q 'no_kvm = True' '$dict' && grep -q 'memory = 1024' '$dict'"
check "lava-server knows device $labname-dut1" \
	bash -c "lava-server manage devices list 2>/dev/null | grep -q '$labname-dut1'"
# A second device of the same kind: a plan's jobs spread over both.
"$LAB_SH" add-device "$state" "$labname-dut2" "$dict" >/dev/null
check "lava-server knows device $labname-dut2" \
	bash -c "lava-server manage devices list 2>/dev/null | grep -q '$labname-dut2'"

# -- a plan as LAVA jobs --------------------------------------------------------
cat >"$work/plan.yaml" <<PLAN
name: lava-check
lab: $lab
topology: $ROOT/topology/cell-4sta.yaml
variants: [stock-6.1, mac80211-6.12]
suites:
  - {name: rrul, length: 15}
repeat: 1
PLAN
t0=$(date +%s)
al lava submit "$work/plan.yaml" --server "$url" --token-file "$token" \
	--wait --timeout 900 --out "$res" >"$work/submit.out" 2>"$work/submit.err"
rc=$?
took=$(($(date +%s) - t0))
cat "$work/submit.out"
tail -n 20 "$work/submit.err"
check "submit --wait: both jobs complete and stored (exit $rc)" test $rc -eq 0
check "submit printed a job id and URL per job" \
	test "$(grep -cE "^job [0-9]+: rrul on (stock-6.1|mac80211-6.12) $url/scheduler/job/[0-9]+$" "$work/submit.out")" -eq 2
run61=$(sed -n 's/^job [0-9]*: rrul on stock-6.1 complete, run \([^ ]*\) .*/\1/p' "$work/submit.out")
run612=$(sed -n 's/^job [0-9]*: rrul on mac80211-6.12 complete, run \([^ ]*\) .*/\1/p' "$work/submit.out")
check "stock-6.1 run stored ($run61)" test -s "$res/$run61/run.json"
check "mac80211-6.12 run stored ($run612)" test -s "$res/$run612/run.json"

# Spread over two devices, the two jobs overlap: the night takes less than
# the two jobs' run times added up.
spans=$(python3 - "$res/$run61/run.json" "$res/$run612/run.json" <<'PY'
import json, sys, datetime
def t(s): return datetime.datetime.fromisoformat(s.replace('Z', '+00:00'))
r = [json.load(open(f)) for f in sys.argv[1:]]
dur = [(t(x['end']) - t(x['start'])).total_seconds() for x in r]
first = min(t(x['start']) for x in r); last = max(t(x['end']) for x in r)
devs = sorted(set(x['lava']['device'] for x in r))
print('%.0f %.0f %.0f %d' % (dur[0], dur[1], (last - first).total_seconds(), len(devs)))
PY
)
read -r d1 d2 span ndev <<<"$spans"
echo "# jobs ran ${d1} s and ${d2} s on $ndev devices; first start to last end ${span} s; submit to stored ${took} s"
check "the two jobs ran on two devices" test "$ndev" = 2
check "the two jobs overlapped (span ${span} s < ${d1} + ${d2} s)" test "$span" -lt $((d1 + d2))

for r in "$run61" "$run612"; do
	[ -n "$r" ] || continue
	j=$res/$r/run.json
	check "$r: status complete, suite rrul, the job's id and URL" \
		test "$(json_eval "$j" "d['status'], d['suite'], d['lava']['url'] == '$url/scheduler/job/%d' % d['lava']['job_id']")" = "('complete', 'rrul', True)"
	check "$r: kernel from the DUT, figures measured" \
		test "$(json_eval "$j" "bool(d['kernel']) and d['summary']['latency_median_ms'] > 0 and d['summary']['down_mbps'] > 0")" = True
	check "$r: LAVA's test cases kept, all pass" \
		test "$(json_eval "$j" "len(d['lava']['cases']) > 5 and all(c['result'] == 'pass' for c in d['lava']['cases'])")" = True
	check "$r: the case's median latency is the summary's" \
		test "$(json_eval "$j" "[abs(c['measurement'] / d['summary']['latency_median_ms'] - 1) < 1e-5 for c in d['lava']['cases'] if c['name'] == 'rrul-latency_median'] == [True]")" = True
	f=$(json_eval "$j" "d['flent_file']")
	check "$r: the Flent file came back whole and flent reads it" \
		bash -c "flent -i '$res/$r/$f' -f summary 2>/dev/null | grep -q 'Summary of'"
done
lat61=$(json_eval "$res/$run61/run.json" "d['summary']['latency_median_ms']")
lat612=$(json_eval "$res/$run612/run.json" "d['summary']['latency_median_ms']")
echo "# median latency under load: stock-6.1 $lat61 ms, mac80211-6.12 $lat612 ms"
check "queues form where the stack forms them: stock-6.1's latency (${lat61} ms) above 6.12's (${lat612} ms)" \
	python3 -c "import sys; sys.exit(0 if $lat61 > $lat612 else 1)"
out=$(al runs --out "$res" 2>&1)
echo "$out"
check "runs lists both LAVA runs" \
	test "$(grep -cE "^($run61|$run612) +complete " <<<"$out")" -eq 2
al compare "$run61" "$run612" --out "$res" >"$work/compare.out" 2>&1
rc=$?
cat "$work/compare.out"
check "compare of the two LAVA runs gives a verdict (exit $rc, 0 or 1)" test $rc -le 1
check "compare shows the latency change" grep -qi 'latency' "$work/compare.out"
out=$(al lava results "$(json_eval "$res/$run61/run.json" "d['lava']['job_id']")" \
	--server "$url" --token-file "$token" --out "$res" 2>&1)
check "results on a stored job: said with its status, nothing written over" \
	grep -q "already stored as $run61 (complete)" <<<"$out"

# -- a bench job: airlab on the worker (the job's user command), the
# virtual DUT standing in for a real bench's AP --------------------------
sed -e 's/variants: .*/variants: [stock-6.1]/' "$work/plan.yaml" >"$work/one-plan.yaml"
out=$(al --lab "$lab" lava export --bench --plan "$work/one-plan.yaml" \
	--out "$work/export-bench" --apply --worker worker1 2>&1)
rc=$?
echo "$out"
bdict=$work/export-bench/devices/$labname-dut1-bench.jinja2
check "export --bench --apply exits 0 ($rc)" test $rc -eq 0
check "the bench dictionary powers and reaches the DUT through airlab" \
	bash -c "grep -q \"power_on_command = '$ROOT/build/airlab --lab $lab power on dut1'\" '$bdict' &&
		grep -q \"connection_command = '$ROOT/build/airlab --lab $lab console dut1'\" '$bdict'"
check "the bench dictionary has the plan's user command" \
	grep -q "'airlab-rrul-stock-6.1': {'do': '$ROOT/build/airlab lava bench-run $work/one-plan.yaml rrul stock-6.1'}" "$bdict"
before=$(ls "$ROOT/results/lava/bench" 2>/dev/null)
al lava submit "$work/one-plan.yaml" --device-type airlab-bench --server "$url" \
	--token-file "$token" --wait --timeout 900 --out "$res" >"$work/bench.out" 2>"$work/bench.err"
rc=$?
cat "$work/bench.out"
tail -n 5 "$work/bench.err"
runb=$(sed -n 's/^job [0-9]*: rrul on stock-6.1 complete, run \([^ ]*\) .*/\1/p' "$work/bench.out")
check "bench job: complete and stored (exit $rc)" test $rc -eq 0 -a -n "$runb"
bdev=$(json_eval "$res/$runb/run.json" "d['lava']['device']" 2>/dev/null)
check "bench job: ran on the bench device ($bdev), no images made for it" \
	bash -c "[ '$bdev' = '$labname-dut1-bench' ] && ! grep -q 'lava: images for' '$work/bench.err'"
check "bench job: kernel and figures from airlab run on the worker" \
	test "$(json_eval "$res/$runb/run.json" "d['kernel'].startswith('6.1.') and d['summary']['latency_median_ms'] > 0 and len(d['flows']) == 8")" = True
f=$(json_eval "$res/$runb/run.json" "d['flent_file']")
check "bench job: the Flent file came back whole" \
	bash -c "flent -i '$res/$runb/$f' -f summary 2>/dev/null | grep -q 'Summary of'"
# The worker's own copy of the run (airlab run's) lives under
# results/lava/bench, out of the store the LAVA runs go to.
new=$(comm -13 <(echo "$before") <(ls "$ROOT/results/lava/bench" 2>/dev/null) | grep -v '^airlab.db')
check "bench job: the worker's own run kept apart from the store ($new)" \
	bash -c "[ -n '$new' ] && [ -s '$ROOT/results/lava/bench/$new/run.json' ] && ! ls '$res' | grep -q '^$new\$'"
[ -n "$new" ] && rm -rf "${ROOT:?}/results/lava/bench/$new"

# -- bad cases ---------------------------------------------------------------------
printf 'not-the-token\n' >"$work/bad.token"
chmod 600 "$work/bad.token"
out=$(al lava submit "$work/plan.yaml" --server "$url" --token-file "$work/bad.token" --out "$work/r-bad" 2>&1)
rc=$?
echo "$out" | tail -n 1
# LAVA 2023.01 answers an unknown token with 403 "Invalid token."
check "wrong token: non-zero exit ($rc), the server's refusal said" \
	failed_saying $rc "$out" 'refused the token (HTTP 40[13] .*Invalid token'
check "wrong token: refused before any image was made" test ! -e "$work/r-bad"
chmod 644 "$work/bad.token"
out=$(al lava results 1 --server "$url" --token-file "$work/bad.token" 2>&1)
rc=$?
check "a token file others can read: refused (exit $rc)" \
	failed_saying $rc "$out" 'readable by others'
down=http://127.0.0.1:$(free_port)
out=$(al lava results 1 --server "$down" --token-file "$token" --out "$work/r-bad" 2>&1)
rc=$?
echo "$out"
check "server down: non-zero exit ($rc), the URL named" \
	failed_saying $rc "$out" "LAVA server $down: .*Couldn't connect"
check "server down: nothing stored" test ! -e "$work/r-bad"

# A job that cannot boot (its images are not where the URL says) and one
# whose station never associates (a failing case in a Complete job).
cat >"$work/far.yaml" <<TOPO
cell: cell-far
ap: {host: dut1, radio: radio0, ssid: airlab-cell, passphrase: airlab-virtual-psk, channel: 6}
server: {host: dut1, link: veth}
stations:
  - {name: sta1, host: dut1, radio: radio1, path: path1, base_loss_db: 60}
  - {name: sta2, host: dut1, radio: radio2, path: path2, base_loss_db: 200}
TOPO
sed -e "s#^topology:.*#topology: $work/far.yaml#" -e 's/variants: .*/variants: [stock-6.1]/' \
	"$work/plan.yaml" >"$work/far-plan.yaml"
al lava submit "$work/one-plan.yaml" --server "$url" --token-file "$token" \
	--artifact-url "file://$work/no-such-dir" --out "$res" >"$work/noboot.out" 2>&1
al lava submit "$work/far-plan.yaml" --server "$url" --token-file "$token" \
	--assoc-wait 20 --out "$res" >"$work/far.out" 2>&1
jnb=$(sed -n 's/^job \([0-9]*\): .*/\1/p' "$work/noboot.out")
jfar=$(sed -n 's/^job \([0-9]*\): .*/\1/p' "$work/far.out")
check "both bad jobs submitted ($jnb, $jfar)" test -n "$jnb" -a -n "$jfar"
# Wait for them through `results`, which refuses an unfinished job.
for _ in $(seq 1 120); do
	out=$(al lava results "$jnb" "$jfar" --server "$url" --token-file "$token" --out "$res" 2>&1)
	rc=$?
	grep -q 'not finished yet' <<<"$out" || break
	sleep 10
done
echo "$out"
check "bad jobs: results exits 4, the lab ($rc)" test $rc -eq 4
nb=$(ls -d "$res"/*-lava"$jnb" 2>/dev/null | head -n 1)
far=$(ls -d "$res"/*-lava"$jfar" 2>/dev/null | head -n 1)
check "a job that cannot boot is stored as lab-failed with LAVA's reason" \
	test "$(json_eval "$nb/run.json" "d['status'] == 'lab-failed' and 'Incomplete' in d['reasons'] and 'no reason given' not in d['reasons'] and d['summary'] is None")" = True
check "a failing case inside a Complete job: stored as failed, naming the case" \
	test "$(json_eval "$far/run.json" "d['lava']['health'] == 'Complete' and d['status'] == 'failed' and 'rrul-associated' in d['reasons']")" = True
check "the store has them as lab-failed and failed" \
	test "$(al runs --out "$res" 2>/dev/null | awk -v a="lava$jnb" -v b="lava$jfar" \
		'$1 ~ a"$" {x=$2} $1 ~ b"$" {y=$2} END {print x, y}')" = "lab-failed failed"

"$LAB_SH" down "$state"
# ([l]: the pattern must not match this test's own command line)
check "down stops everything it started" \
	test -z "$(pgrep -f "[l]ava-worker .*127.0.0.1:$port|[g]unicorn3 .*127.0.0.1:$port|[l]ava-scheduler" | tr '\n' ' ')"
finish
