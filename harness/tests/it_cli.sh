#!/usr/bin/env bash
# The command line's conventions, no lab needed: --version, help COMMAND,
# --opt=value as --opt value, and bad input on reading commands (a
# missing results directory or run) as exit 2 with one line.
set -u
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/airlab-it-cli.XXXXXX)
trap 'rm -rf "$work"' EXIT

out=$("$AIRLAB" --version 2>&1)
rc=$?
check "--version: exit 0, one line naming the commit ($out)" \
	bash -c '[ "$1" -eq 0 ] && [ "$(wc -l <<<"$2")" -eq 1 ] && grep -Eq "^airlab [0-9.]+ \(commit [0-9a-f]{40}" <<<"$2"' _ $rc "$out"

out=$("$AIRLAB" help run 2>&1)
rc=$?
check "help run: exit 0, run's own usage" \
	bash -c '[ "$1" -eq 0 ] && head -n 1 <<<"$2" | grep -q "^Usage: airlab run SUITE"' _ $rc "$out"
check "help run is run --help" test "$out" = "$("$AIRLAB" run --help 2>&1)"
out=$("$AIRLAB" help no-such-command 2>&1)
rc=$?
check "help of an unknown command: exit 2, said first" \
	bash -c '[ "$1" -eq 2 ] && head -n 1 <<<"$2" | grep -q "^airlab help: unknown command .no-such-command."' _ $rc "$out"

a=$("$AIRLAB" runs --out "$work/typo" 2>&1)
rca=$?
b=$("$AIRLAB" runs --out="$work/typo" 2>&1)
rcb=$?
check "runs --out=DIR is runs --out DIR" test "$rca:$a" = "$rcb:$b"
check "runs --out a missing directory: exit 2, one line, nothing created ($a)" \
	bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <<<"$2")" -eq 1 ] && [ ! -e "$3" ]' _ $rca "$a" "$work/typo"
out=$("$AIRLAB" --lab="$ROOT/lab/virtual.yaml" runs --out="$work/typo" 2>&1)
check "a common option takes --lab=FILE too" test "$out" = "$a"

mkdir -p "$work/res"
out=$("$AIRLAB" compare --out="$work/res" run-a run-b 2>&1)
rc=$?
check "compare of runs that are not there: exit 2, one line, no table ($out)" \
	bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <<<"$2")" -eq 1 ] && grep -q "no run .run-a. in" <<<"$2"' _ $rc "$out"
# A plan naming a variant kernel/ lacks: the plan's file:line, one
# location, before anything starts.
printf 'name: cli\nvariants:\n  - mac80211-6.12\n  - no-such-variant\nsuites: [{name: ping, length: 3}]\n' \
	>"$work/plan.yaml"
out=$("$AIRLAB" nightly "$work/plan.yaml" --out "$work/nres" 2>&1)
rc=$?
check "nightly: an unknown variant is the plan's error at its line, exit 2 ($out)" \
	bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <<<"$2")" -eq 1 ] &&
		grep -q "^airlab nightly: $3:4: unknown variant .no-such-variant. (" <<<"$2" && [ ! -e "$4" ]' \
	_ $rc "$out" "$work/plan.yaml" "$work/nres"
for a in "set no-such-path 10" "get no-such-path"; do
	# shellcheck disable=SC2086 # the words of the command
	out=$("$AIRLAB" atten $a 2>&1)
	rc=$?
	check "atten $a: a path the lab lacks is bad input, exit 2, the known ones listed ($out)" \
		bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <<<"$2")" -eq 1 ] && grep -q "no attenuator has RF path .no-such-path. (known: path1" <<<"$2"' \
		_ $rc "$out"
done
finish
