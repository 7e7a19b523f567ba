#!/usr/bin/env bash
# Integration test of `airlab bisect` on the virtual lab (make check-long:
# it boots the DUT once per step, ~8 minutes under TCG). A repository of
# ten commits builds a stack variant; one commit in the middle makes the
# queuing bloated (a 1000-packet pfifo at the wlan root over a 1000-frame
# driver ring, as kernel/stock-6.1.yaml), a later one is unrelated.
# bisect must name the bloating commit in at most ceil(log2(n)) + 2 steps
# (n: the commits after good), keep every step, refuse bad arguments.
set -u
. "$(dirname "$0")/../lib.sh"

one_station_lab bisect

# -- the repository ---------------------------------------------------------
repo=$work/stack
mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" config user.email lab@airlab.invalid
git -C "$repo" config user.name "airlab test"
commit() { git -C "$repo" add -A && git -C "$repo" commit -qm "$1"; }
variant() { # ROOT_QDISC TXRING [DEFAULT_QDISC]
	{
		echo "variant: stack"
		echo 'kernel: "6.1"'
		[ -n "${3:-}" ] && echo "default_qdisc: $3"
		echo "root_qdisc: $1"
		echo "txring: $2"
		echo "description: the stack under bisect"
	} >"$repo/stack.yaml"
}
cat >"$repo/build.sh" <<'SH'
#!/bin/sh
# The "build": the variant file this revision describes.
set -e
cp stack.yaml "$AIRLAB_OUT/stack.yaml"
SH
chmod +x "$repo/build.sh"
variant mq 64 fq_codel
commit "stack: mq + fq_codel over a 64-frame ring"
good=$(git -C "$repo" rev-parse HEAD)
echo "notes" >"$repo/NOTES"; commit "notes"
echo "# stack" >"$repo/README"; commit "readme"
echo "more notes" >>"$repo/NOTES"; commit "more notes"
variant "pfifo limit 1000" 1000; commit "stack: deep pfifo and ring (bloat)"
culprit=$(git -C "$repo" rev-parse HEAD)
echo "usage" >>"$repo/README"; commit "readme: usage"
echo "x" >"$repo/CHANGES"; commit "changes"
sed -i 's/description: .*/description: the stack under bisect, renamed/' "$repo/stack.yaml"
commit "stack: description only (unrelated)"
echo "y" >>"$repo/CHANGES"; commit "changes again"
bad=$(git -C "$repo" rev-parse HEAD)
n=$(git -C "$repo" rev-list --count "$good..$bad")
limit=$(python3 -c "import math; print(math.ceil(math.log2($n)) + 2)")

# -- refused -----------------------------------------------------------------
al bisect --out "$res" --repo "$repo" --good "$good" --bad nosuch --build ./build.sh --metric latency >"$work/e1" 2>&1
check "unknown --bad revision: exit 2 ($?)" grep -q "no commit 'nosuch'" "$work/e1"
al bisect --out "$res" --repo "$repo" --good "$good" --bad "$bad" --build ./build.sh --metric speed >"$work/e2" 2>&1
check "unknown metric: the error lists the known ones" grep -q "unknown metric 'speed' (known: latency" "$work/e2"
al bisect --out "$res" --repo "$work/none" --good "$good" --bad "$bad" --build ./build.sh --metric latency >"$work/e3" 2>&1
check "missing --repo: the error names it" grep -q "$work/none" "$work/e3"

# -- bisect ------------------------------------------------------------------
t0=$(date +%s)
al bisect --out "$res" --repo "$repo" --good "$good" --bad "$bad" \
	--build ./build.sh --metric latency --threshold 1.0 --runs 1 \
	--suite rrul_be --length 20 >"$work/bisect.out" 2>"$work/bisect.err"
rc=$?
wall=$(($(date +%s) - t0))
cat "$work/bisect.out" | sed 's/^/# /'
grep '^bisect: ' "$work/bisect.err" | sed 's/^/# /'
bj=$(sed -n 's/^bisect .* record \(.*\)$/\1/p' "$work/bisect.out")
[ "$rc" -eq 0 ] || tail -40 "$work/bisect.err"
steps=$(json_eval "$bj" 'd["bisect_steps"]')
echo "# bisect: exit $rc, $steps steps after the two ends (limit $limit for $n commits), $wall s"
check "bisect exits 0" test "$rc" -eq 0
check "it names the bloating commit" grep -q "^first bad commit: $culprit" "$work/bisect.out"
check "in at most ceil(log2($n)) + 2 = $limit steps ($steps)" test "$steps" -le "$limit"
check "the record says complete, first bad = the culprit" \
	test "$(json_eval "$bj" 'd["status"] == "complete" and d["first_bad"]["rev"] == "'"$culprit"'"')" = True
check "the culprit's latency is worse than its parent's on record" \
	test "$(json_eval "$bj" '[s for s in d["steps"] if s["rev"] == "'"$culprit"'"][0]["median"] > 2 * [s for s in d["steps"] if s["rev"] == d["first_bad"]["parent"]][0]["median"]')" = True
check "every step kept its step.json and build.log" \
	test "$(json_eval "$bj" 'all(__import__("os").path.exists(s["dir"] + "/step.json") and __import__("os").path.exists(s["dir"] + "/build.log") for s in d["steps"])')" = True
check "a report of the two sides" test -s "$(json_eval "$bj" 'd["report"]')/index.html"
finish
