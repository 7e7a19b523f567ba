#!/usr/bin/env bash
# A nightly killed with SIGKILL at random moments, over and over (make
# check-long: ~10 minutes under TCG). After each kill: every run the
# store had is still there and the index passes SQLite's integrity check,
# progress.json is whole JSON, and the next start is not blocked by a
# lock. Then `airlab nightly --resume DATE` finishes the night: every run
# of the plan stored once, summary.json, junit.xml and the report.
# AIRLAB_KILL_TRIALS sets the number of kills (default 20).
set -u
. "$(dirname "$0")/../lib.sh"

one_station_lab nightkill
trials=${AIRLAB_KILL_TRIALS:-20}
runs_per_night=6
plan=$work/plan.yaml
cat >"$plan" <<EOF
name: kill-test
lab: $lab
topology: $work/t1.yaml
variants: [mac80211-6.12]
suites: [{name: ping, length: 3}]
repeat: $runs_per_night
EOF

# The ids the store lists, sorted (runs' first column after the count).
stored_ids() { al runs --out "$res" 2>/dev/null | awk 'NR > 1 { print $1 }' | sort; }
integrity() {
	python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("pragma integrity_check").fetchone()[0])' "$res/airlab.db" 2>&1
}
# The newest night that has not ended (its name), or nothing.
open_night() {
	for p in $(ls -1d "$res"/nightly/*/progress.json 2>/dev/null | sort -r); do
		if [ "$(json_eval "$p" 'd["status"]')" != done ]; then
			basename "$(dirname "$p")"
			return
		fi
	done
}

# The first night boots the DUT; the kills come after it is up, while
# runs are being made, stored and indexed.
al up >/dev/null 2>&1
prev=""
killed=0 blocked=0 lost=0 broken=0 torn=0 nights=0
for t in $(seq 1 "$trials"); do
	night=$(open_night)
	# airlab itself in the background (not through al(), whose subshell
	# would be what the kill hits)
	if [ -n "$night" ]; then
		"$AIRLAB" --lab "$lab" nightly --resume "$night" --out "$res" >"$work/t$t.out" 2>"$work/t$t.err" &
	else
		nights=$((nights + 1))
		"$AIRLAB" --lab "$lab" nightly "$plan" --out "$res" >"$work/t$t.out" 2>"$work/t$t.err" &
	fi
	pid=$!
	# 0.1 to 30 s: before the first run, inside a run, between the run
	# and its index, in the comparisons and the report.
	delay=$(python3 -c "import random; print(round(random.uniform(0.1, 30), 2))")
	sleep "$delay"
	if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
	wait "$pid" 2>/dev/null
	if grep -q "in use by another airlab" "$work/t$t.err"; then
		blocked=$((blocked + 1))
		sed 's/^/# blocked: /' "$work/t$t.err" | head -3
	fi
	now=$(stored_ids)
	missing=$(comm -23 <(printf '%s\n' "$prev" | sed '/^$/d') <(printf '%s\n' "$now" | sed '/^$/d') | wc -l)
	lost=$((lost + missing))
	[ "$(integrity)" = ok ] || broken=$((broken + 1))
	for p in "$res"/nightly/*/progress.json; do
		[ -e "$p" ] || continue
		python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$p" 2>/dev/null || torn=$((torn + 1))
	done
	echo "# trial $t: killed after ${delay} s (${night:-a new night}); $(printf '%s\n' "$now" | sed '/^$/d' | wc -l) runs stored"
	prev=$now
done
check "$killed of $trials nightlies were killed mid-way (the rest had ended)" test "$killed" -ge $((trials / 2))
check "no kill lost a stored run ($lost lost)" test "$lost" -eq 0
check "the index passed SQLite's integrity check after every kill ($broken failed)" test "$broken" -eq 0
check "progress.json was whole JSON after every kill ($torn torn)" test "$torn" -eq 0
check "no start was blocked by a lock a killed one left ($blocked)" test "$blocked" -eq 0

night=$(open_night)
if [ -z "$night" ]; then
	# every night the kills left had ended: one more, killed early
	"$AIRLAB" --lab "$lab" nightly "$plan" --out "$res" >/dev/null 2>&1 &
	pid=$!
	sleep 12
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	night=$(open_night)
fi
before=$(json_eval "$res/nightly/$night/progress.json" 'len(d["runs"])')
al nightly --resume "$night" --out "$res" >"$work/resume.out" 2>"$work/resume.err"
rc=$?
sed 's/^/# /' "$work/resume.out"
nd=$res/nightly/$night
check "nightly --resume $night: exit 0, 1 or 3 (got $rc; $before runs were stored before)" \
	bash -c '[ "$1" -eq 0 ] || [ "$1" -eq 1 ] || [ "$1" -eq 3 ]' _ "$rc"
check "the resumed night has all $runs_per_night runs, each stored once" \
	test "$(json_eval "$nd/summary.json" 'len(d["runs"]) == '"$runs_per_night"' and len(set(r["id"] for r in d["runs"])) == '"$runs_per_night")" = True
check "every run of the night is in the store" \
	bash -c 'for id in $(python3 -c "import json; [print(r[\"id\"]) for r in json.load(open(\"$1\"))[\"runs\"]]"); do grep -qx "$id" <<<"$2" || exit 1; done' _ "$nd/summary.json" "$(stored_ids)"
check "progress.json says done, junit.xml and the report are there" \
	bash -c '[ "$(python3 -c "import json; print(json.load(open(\"$1/progress.json\"))[\"status\"])")" = done ] && [ -s "$1/junit.xml" ] && [ -s "$1/report/index.html" ]' _ "$nd"
al nightly --resume "$night" --out "$res" >/dev/null 2>"$work/again.err"
check "a night that ended is not resumed again (exit $?)" grep -q "the night has ended" "$work/again.err"
echo "# $nights nights started, $killed kills, $(stored_ids | wc -l) runs stored"
finish
