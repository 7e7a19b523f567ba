#!/usr/bin/env bash
# Runs every unit test binary (plain and ASan+UBSan builds), then the
# virtual-lab integration test, and prints one closing line:
# "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
export AIRLAB_ROOT=$PWD
unit_only=0
[ "${1:-}" = "--unit-only" ] && unit_only=1

passed=0 failed=0
failures=()
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Seconds each part took, printed at the end: make check has a budget.
timings=()
unit_start=$SECONDS
# The unit tests run AIRLAB_TEST_JOBS at a time (default two per CPU:
# most of their time is spent waiting on dropbear, a pty or a timeout),
# each into a file of its own, and are printed in order once all ended.
units=()
for t in build/tests/test_* build/tests-asan/test_*; do
	[ -x "$t" ] && units+=("$t")
done
jobs_max=${AIRLAB_TEST_JOBS:-$(($(nproc) * 2))}
udir=$(mktemp -d)
trap 'rm -f "$tmp"; rm -rf "$udir"' EXIT
for i in "${!units[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
	("${units[$i]}" >"$udir/$i.out" 2>&1; echo $? >"$udir/$i.rc") &
done
wait
for i in "${!units[@]}"; do
	t=${units[$i]}
	echo "== $t"
	out=$(cat "$udir/$i.out")
	rc=$(cat "$udir/$i.rc" 2>/dev/null || echo 1)
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | grep -oE '\[  PASSED  \] [0-9]+ test' | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')
	f=$(printf '%s\n' "$out" | grep -oE '\[  FAILED  \] [0-9]+ test' | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')
	# A crash or sanitizer abort leaves no cmocka summary: count it.
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "!! $t exited $rc without a cmocka failure summary"
		f=1
	fi
	[ "$f" -gt 0 ] && failures+=("$t: $(printf '%s\n' "$out" | grep -E '^\[  FAILED  \] [a-z_]' | sed 's/^\[  FAILED  \] //' | sort -u | tr '\n' ' ')")
	passed=$((passed + p))
	failed=$((failed + f))
done
timings+=("unit tests: $((SECONDS - unit_start)) s")

if [ "$unit_only" -eq 0 ]; then
	for it in harness/tests/it_*.sh; do
		echo "== $it"
		it_start=$SECONDS
		# Streamed as it runs (these take minutes), kept for the count.
		"$it" 2>&1 | tee "$tmp"
		rc=${PIPESTATUS[0]}
		timings+=("$it: $((SECONDS - it_start)) s")
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp" | tail -1)
		while IFS= read -r l; do failures+=("$it: ${l#not ok - }"); done < <(grep '^not ok - ' "$tmp")
		if [ -z "$line" ]; then
			echo "!! $it printed no closing line"
			failures+=("$it: printed no closing line")
			failed=$((failed + 1))
			continue
		fi
		passed=$((passed + ${line%% passed*}))
		f=${line#*, }
		f=${f%% failed*}
		# A script that says "0 failed" but exits non-zero (it died
		# after its count, or its own verdict disagrees) has failed.
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			echo "!! $it exited $rc after its closing line"
			failures+=("$it: exited $rc after '$line'")
			f=1
		fi
		failed=$((failed + f))
	done
fi

echo "== time:"
printf '  %s\n' "${timings[@]}"
if [ ${#failures[@]} -gt 0 ]; then
	echo "== failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
