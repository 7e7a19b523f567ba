#!/usr/bin/env bash
# Integration test of `airlab sweep` on the virtual lab: bad arguments are
# refused before anything starts; one station swept from 0 dB (over its
# 60 dB base loss) until it drops: attenuation read back, rate and goodput
# falling, the drop recorded and the sweep going on, the bench restored,
# the station back; the record in the store and through reindex; the
# report's plots; a fixed-MCS sweep through the station's bitrate mask;
# a sweep interrupted mid-way keeps the steps it recorded.
set -u
. "$(dirname "$0")/lib.sh"

one_station_lab sweep

# db SQL: the first column of the first row from the results store.
db() {
	python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()
print(r[0] if r else "")' "$res/airlab.db" "$1"
}

# -- refused before anything starts ---------------------------------------
refused() { # NAME PATTERN ARGS...: exit 2 and PATTERN in the error
	local name=$1 pat=$2 rc
	shift 2
	al sweep --out "$res" "$@" >"$work/err.out" 2>&1
	rc=$?
	check "$name: exit 2 (got $rc)" test "$rc" -eq 2
	check "$name: the error says '$pat'" grep -q -- "$pat" "$work/err.out"
}
refused "unknown path" "path9" --path path9 --from 0 --to 10 --step 5
refused "unknown path lists the known ones" "path1" --path path9 --from 0 --to 10 --step 5
refused "--step 0" "above 0 dB" --path path1 --from 0 --to 10 --step 0
refused "--to not a number" "not a number" --path path1 --from 0 --to ten --step 5
refused "MCS 40" "MCS index" --rates mcs:40
refused "legacy on an HT station" "t1.yaml:[0-9]*: station sta1" --rates legacy:1
refused "unknown suite" "rrul" --path path1 --from 0 --to 10 --step 5 --suite nosuch
refused "path of no station" "no station" --path path2 --from 0 --to 10 --step 5
check "refused sweeps wrote no record" test ! -e "$res/sweeps"
check "refused sweeps started no DUT" grep -q 'dut1: off' <<<"$(al power status dut1)"

# -- sta1 from 0 dB until it drops ------------------------------------------
t0=$(date +%s)
al sweep --out "$res" --path path1 --from 0 --to 75 --step 15 --length 8 \
	--dwell 15 >"$work/sweep.out" 2>"$work/sweep.err"
rc=$?
echo "# attenuation sweep: exit $rc in $(($(date +%s) - t0)) s"
grep -E '^(variant|mac80211)' "$work/sweep.out" | sed 's/^/# /'
sj=$(ls "$res"/sweeps/*/sweep.json 2>/dev/null | head -1)
if [ "$rc" -ne 0 ] || [ -z "$sj" ]; then
	tail -30 "$work/sweep.err"
fi
check "sweep exits 0" test "$rc" -eq 0
check "sweep.json says complete" test "$(json_eval "$sj" 'd["status"]')" = complete
check "6 steps recorded (0 to 75 by 15)" test "$(json_eval "$sj" 'len(d["steps"])')" -eq 6
check "every step's attenuation is what the medium read back" \
	test "$(json_eval "$sj" 'all(s["atten"][0]["read_db"] == s["atten"][0]["set_db"] == s["x"] for s in d["steps"])')" = True
# Per step: dB, associated, rate used, up + down goodput.
json_eval "$sj" '"\n".join("%g %d %s %s" % (s["x"], s["stations"][0]["associated"],
	s["stations"][0]["rate_mbps"], (s["stations"][0]["goodput_up_mbps"] or 0) + (s["stations"][0]["goodput_down_mbps"] or 0))
	for s in d["steps"])' >"$work/steps"
sed 's/^/# step: dB assoc rate_Mb\/s goodput_Mbit\/s: /' "$work/steps"
read -r _ _ rate0 good0 <<<"$(head -1 "$work/steps")"
read -r xl _ ratel goodl <<<"$(awk '$2 == 1' "$work/steps" | tail -1)"
check "the rate used falls: $rate0 Mb/s at 0 dB, $ratel at $xl dB (the last step associated)" \
	awk -v a="$rate0" -v b="$ratel" 'BEGIN { exit !(a > 2 * b) }'
check "goodput falls: $good0 Mbit/s at 0 dB, $goodl at $xl dB" \
	awk -v a="$good0" -v b="$goodl" 'BEGIN { exit !(a > 2 * b) }'
check "sta1 dropped at the far end: recorded as dropped, no run" \
	test "$(json_eval "$sj" 'd["steps"][-1]["outcome"] == "dropped" and d["steps"][-1]["run_id"] is None and not d["steps"][-1]["stations"][0]["associated"]')" = True
check "once dropped, it stays dropped further out (the sweep went on)" \
	awk '$2 == 0 { gone = 1 } $2 == 1 && gone { bad = 1 } END { exit !(gone && !bad) }' "$work/steps"
check "the steps that ran settled first" \
	test "$(json_eval "$sj" 'all(s["stations"][0]["settled"] for s in d["steps"] if s["run_id"])')" = True
id=$(json_eval "$sj" 'd["id"]')
nrun=$(json_eval "$sj" 'sum(1 for s in d["steps"] if s["run_id"])')
check "the store holds the sweep and its $nrun runs" \
	test "$(db "SELECT count(*) FROM series_steps s JOIN runs r ON r.id = s.run_id WHERE s.series_id = '$id'")" -eq "$nrun"
check "path1 is back where the sweep found it" \
	bash -c '"$@" | grep -qE "^path1 .* 0\.00$"' _ "$AIRLAB" --lab "$lab" atten get path1
check "sta1 associates again after the sweep" \
	bash -c '"$@" 2>/dev/null | grep -qE "^sta1 +yes"' _ "$AIRLAB" --lab "$lab" --topology "$work/t1.yaml" status --wait 40
rm -f "$res/airlab.db" "$res/airlab.db-wal" "$res/airlab.db-shm"
al reindex --out "$res" >/dev/null 2>&1
check "reindex finds the sweep again" \
	test "$(db "SELECT count(*) FROM series_steps WHERE series_id = '$id'")" -eq 6
al report --out "$res" --sweep "$id" -o "$work/report" >"$work/report.out" 2>&1
check "report --sweep draws goodput, latency and rate" \
	test -s "$work/report/goodput.png" -a -s "$work/report/latency.png" -a -s "$work/report/rate.png"
check "the report's table shows the drop" grep -q "dropped" "$work/report/index.html"
check "report --sweep of an unknown sweep: exit 2" \
	bash -c '"$@" >/dev/null 2>&1; [ $? -eq 2 ]' _ "$AIRLAB" report --out "$res" --sweep nosuch

# -- fixed MCS through the station's bitrate mask ---------------------------
al sweep --out "$res" --rates mcs:0,7 --suite tcp_1up --length 8 --dwell 10 \
	>"$work/rates.out" 2>"$work/rates.err"
rc=$?
rj=$(ls -t "$res"/sweeps/*/sweep.json | head -1)
[ "$rc" -eq 0 ] || tail -20 "$work/rates.err"
read -r br0 br7 up0 up7 ru0 ru7 <<<"$(json_eval "$rj" '" ".join(str(s["stations"][0][k]) for k in ("settle_txrate_mbps",) for s in d["steps"]) + " " + " ".join(str(s["stations"][0]["goodput_up_mbps"]) for s in d["steps"]) + " " + " ".join(str(s["stations"][0]["rate_mbps"]) for s in d["steps"])')"
echo "# fixed MCS: last tx bitrate $br0 / $br7 Mb/s, rate used $ru0 / $ru7 Mb/s, upload $up0 / $up7 Mbit/s"
check "rate sweep exits 0" test "$rc" -eq 0
# The rate the upload went at (its bytes over its airtime, overheads and
# retries in), not the last frame's: a null-data or management frame at
# the lowest basic rate is often the last one (CI read 1.0 at MCS 0).
# The AP's TCP ACKs (at its own rate) share the figure, so the bounds sit
# between the neighbouring MCS rather than on the PHY rate itself.
check "MCS 0: the upload went at MCS 0 (rate used $ru0 Mb/s: over 2, under MCS 1's 13)" \
	awk -v r="$ru0" 'BEGIN { exit !(r > 2 && r < 9) }'
check "MCS 7: the upload went at MCS 7 (rate used $ru7 Mb/s: over MCS 1's 13, under MCS 15's 117)" \
	awk -v r="$ru7" 'BEGIN { exit !(r > 13 && r < 80) }'
check "the upload is faster at MCS 7 ($up7) than at MCS 0 ($up0)" \
	awk -v a="$up7" -v b="$up0" 'BEGIN { exit !(a > 1.5 * b) }'

# -- interrupted: what was recorded stays ------------------------------------
# Not through al(): a backgrounded function is a subshell, and SIGINT
# would go to it, not to airlab.
"$AIRLAB" --lab "$lab" --topology "$work/t1.yaml" sweep --out "$res" \
	--path path1 --from 0 --to 60 --step 15 --length 8 --dwell 10 \
	>"$work/int.out" 2>"$work/int.err" &
pid=$!
ij=""
for _ in $(seq 1 120); do
	sleep 1
	ij=$(ls -t "$res"/sweeps/*/sweep.json | head -1)
	[ "$ij" != "$rj" ] && [ "$(json_eval "$ij" 'len(d["steps"])' 2>/dev/null)" = 1 ] && break
done
# While it drives the DUT, another airlab may watch it but not drive it.
al power status dut1 >"$work/busy.out" 2>&1
busy=$?
check "a second airlab cannot drive the DUT (exit $busy): the holder is named" \
	bash -c '[ "$1" -ne 0 ] && grep -q "dut1 is in use by another airlab (pid=$2 " "$3"' _ "$busy" "$pid" "$work/busy.out"
check "but it can watch it (status)" bash -c '"$@" >/dev/null 2>&1' _ "$AIRLAB" --lab "$lab" --topology "$work/t1.yaml" status
kill -INT "$pid"
wait "$pid"
rc=$?
check "interrupted sweep exits non-zero ($rc)" test "$rc" -ne 0
check "interrupted sweep says so in its record" test "$(json_eval "$ij" 'd["status"]')" = interrupted
check "the bench is restored after the interrupt" grep -q "path1 back to 0.00 dB" "$work/int.err"
check "the step recorded before the interrupt is kept, with its run" \
	test "$(json_eval "$ij" 'len(d["steps"]) >= 1 and d["steps"][0]["run_id"] is not None')" = True
finish
