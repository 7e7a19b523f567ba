#!/usr/bin/env bash
# The OpenWrt DUT recipes (dut-images/openwrt/): OpenWrt's ImageBuilder
# is a download this machine cannot reach, so what is tested is what can
# be here: every board's recipe parses, its package list is complete (the
# common set, its radios' drivers, one wpad, no package both added and
# removed), broken recipes are refused with file:line, and a build
# without an ImageBuilder says what it needs.
set -u
. "$(dirname "$0")/lib.sh"

src=$ROOT/dut-images/openwrt
work=$(mktemp -d /tmp/airlab-it-openwrt.XXXXXX)
trap 'rm -rf "$work"' EXIT
common=$(sed 's/#.*//' "$src/packages-common.txt" | tr -s ' \t' '\n' | sed '/^$/d')

for conf in "$src"/boards/*.conf; do
	board=$(basename "$conf" .conf)
	out=$("$src/build.sh" "$board" --dry-run 2>&1)
	rc=$?
	check "$board: the recipe parses (exit $rc)" test "$rc" -eq 0
	# The PACKAGES= word of the printed command, unquoted.
	pk=$(printf '%s\n' "$out" | tail -1 | grep -o 'PACKAGES=[^ ]*\(\\ [^ ]*\)*' | sed 's/^PACKAGES=//; s/\\ / /g')
	missing=""
	for p in $common; do
		grep -qw -- "$p" <<<"$pk" || missing+=" $p"
	done
	check "$board: every common package is in${missing:+ (missing:$missing)}" test -z "$missing"
	radios=$(sed -n 's/^RADIOS=//p' "$conf")
	for r in $(tr " " "\n" <<<"$radios" | sort -u); do
		case $r in
		ath9k) want="kmod-ath9k" ;;
		ath10k) want="kmod-ath10k-ct ath10k-firmware-qca988x-ct" ;;
		*) want="?" ;;
		esac
		for w in $want; do
			check "$board: radio $r has its driver package $w" grep -qw -- "$w" <<<"$pk"
		done
	done
	check "$board: exactly one wpad" test "$(tr ' ' '\n' <<<"$pk" | grep -c '^wpad')" -eq 1
	both=$(tr ' ' '\n' <<<"$pk" | sed -n 's/^-//p' | while read -r p; do grep -qx -- "$p" < <(tr ' ' '\n' <<<"$pk") && echo "$p"; done)
	check "$board: no package both added and removed${both:+ ($both)}" test -z "$both"
done
check "the first-boot script is valid sh" sh -n "$src/files/etc/uci-defaults/90-airlab"

# -- broken recipes -----------------------------------------------------------
cp -r "$src" "$work/ow"
bad() { # NAME CONTENT PATTERN
	printf '%s\n' "$2" >"$work/ow/boards/bad.conf"
	"$work/ow/build.sh" bad --dry-run >"$work/out" 2>&1
	local rc=$?
	check "$1: exit 2 ($rc)" test "$rc" -eq 2
	check "$1: says '$3'" grep -q -- "$3" "$work/out"
}
bad "no PROFILE" $'RELEASE=23.05.5\nTARGET=ath79/generic\nRADIOS=ath9k' "boards/bad.conf: PROFILE is missing"
bad "a line that is no KEY=value" $'RELEASE=23.05.5\nthis is not it' "boards/bad.conf:2: not KEY=value"
bad "an unknown key" $'RELEASE=23.05.5\nFLASH=8M' "boards/bad.conf:2: unknown key FLASH"
bad "an unknown radio" $'RELEASE=23.05.5\nTARGET=ath79/generic\nPROFILE=x\nRADIOS=mt76' "radio 'mt76' is not one airlab builds for"
"$src/build.sh" nosuch --dry-run >"$work/out" 2>&1
check "unknown board: the error lists the boards" grep -q "boards: .*tplink_archer-c7-v2" "$work/out"
"$src/build.sh" tplink_archer-c7-v2 >"$work/out" 2>&1
rc=$?
check "a build without an ImageBuilder: exit 2 ($rc), naming the download" \
	bash -c '[ "$1" -eq 2 ] && grep -q "downloads.openwrt.org/releases/23.05.5/targets/ath79/generic" "$2"' _ "$rc" "$work/out"
finish
