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
# -- the manual page, make install, bash completion -------------------------
make -s -C "$ROOT" install DESTDIR="$work/inst" PREFIX=/usr >"$work/install.log" 2>&1
rc=$?
check "make install DESTDIR PREFIX=/usr: exit 0 ($(tail -n 3 "$work/install.log" | tr '\n' ' '))" test $rc -eq 0
out=$("$work/inst/usr/bin/airlab" --version 2>&1)
check "the installed airlab is this tree's ($out)" grep -q ", $ROOT)$" <<<"$out"
man1=$work/inst/usr/share/man/man1/airlab.1
warn=$(groff -man -ww -z "$man1" 2>&1)
check "the manual page renders without a groff warning ($warn)" test -z "$warn"
ncmd=$("$AIRLAB" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { n++ } on && /^$/ { exit } END { print n }')
nss=$(grep -c '^\.SS ' "$man1")
check "the manual page has a section for each of the $ncmd commands ($nss)" test "$nss" -eq "$ncmd"
page=$(MANWIDTH=200 groff -man -Tutf8 -P-cbou "$man1" 2>/dev/null)
check "the manual page lists every option of run with its default" \
	bash -c 'for f in --length --step --streams --cc --out --wait; do grep -q -- "$f" <<<"$1" || exit 1; done; grep -q "seconds to wait for association (default 60)" <<<"$1"' _ "$page"
for code in 0 1 2 3 4; do
	h=$("$AIRLAB" --help | tr '\n' ' ' | grep -oE "(status: |; *)$code [^;]*" | sed -E 's/^(status: |; *)[0-9] //; s/ +/ /g; s/[ .]*$//')
	check "exit status $code reads the same in --help and the manual page ('$h')" \
		bash -c 'tr "\n" " " <<<"$1" | tr -s " " | grep -qF "$2"' _ "$page" "$h"
done
comp=$work/inst/usr/share/bash-completion/completions/airlab
complete_of() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _airlab; echo "${COMPREPLY[*]}"' _ "$comp" "$@"
}
check "completion: 'airlab ru' offers run and runs" test "$(complete_of "$AIRLAB" ru)" = "run runs"
check "completion: 'airlab run rrul --le' offers --length" test "$(complete_of "$AIRLAB" run rrul --le)" = "--length"
check "completion: 'airlab --variant stock' offers the tree's variants" test "$(complete_of "$AIRLAB" --variant stock)" = "stock-6.1"
check "completion: 'airlab run rtt' offers the suites" test "$(complete_of "$AIRLAB" run rtt)" = "rtt_fair"
make -s -C "$ROOT" uninstall DESTDIR="$work/inst" PREFIX=/usr >/dev/null 2>&1
check "make uninstall removes the three files" test -z "$(find "$work/inst" -type f -o -type l)"
finish
