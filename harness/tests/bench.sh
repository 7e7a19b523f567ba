#!/usr/bin/env bash
# make bench: seconds from `airlab up` to all stations associated, for 4
# and 16 stations, median of 3 runs each (printed, not asserted).
set -u
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/airlab-bench.XXXXXX)
lab=$(make_test_lab "$work")
trap '"$AIRLAB" --lab "$lab" down >/dev/null 2>&1; rm -rf "$work"' EXIT
variant=${AIRLAB_BENCH_VARIANT:-mac80211-6.12}
runs=${AIRLAB_BENCH_RUNS:-3}

for n in 4 16; do
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
