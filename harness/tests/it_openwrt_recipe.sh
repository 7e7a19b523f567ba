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

# -- what the build adds to the image ----------------------------------------
marker=$(sed -n 's/^#define DUT_READY_MARKER "\(.*\)"$/\1/p' "$ROOT/harness/cell/dut.h")
check "rc.local prints airlab's ready marker ('$marker') on the console" \
	grep -q "echo \"$marker\" >/dev/console" "$src/files/etc/rc.local"
check "rc.local is valid sh" sh -n "$src/files/etc/rc.local"
# A stand-in for the ImageBuilder's `make image`: run by real make, it
# packs FILES into BIN_DIR's image the way the overlay lands in the
# ImageBuilder's rootfs, so what the image would carry can be read back.
mkdir -p "$work/ib"
printf 'image:\n\tmkdir -p $(BIN_DIR)\n\ttar -C $(FILES) -cf $(BIN_DIR)/openwrt-$(PROFILE)-squashfs-sysupgrade.bin .\n' >"$work/ib/Makefile"
"$src/build.sh" tplink_archer-c7-v2 --imagebuilder "$work/ib" --out "$work/bin" >"$work/out" 2>&1
rc=$?
check "a build without --authorized-keys is refused (exit $rc), saying why" \
	bash -c '[ "$1" -eq 2 ] && grep -q "authorized-keys FILE is needed" "$2"' _ "$rc" "$work/out"
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE0test airlab@test" >"$work/airlab.pub"
"$src/build.sh" tplink_archer-c7-v2 --imagebuilder "$work/ib" --out "$work/bin" \
	--authorized-keys "$work/airlab.pub" --version v-test-1 >"$work/out" 2>&1
rc=$?
img=$work/bin/tplink_archer-c7-v2/openwrt-tplink_archer-c7-v2-squashfs-sysupgrade.bin
check "a build with an ImageBuilder: exit 0 ($rc), one image" test "$rc" -eq 0 -a -s "$img"
mkdir -p "$work/root" && tar -C "$work/root" -xf "$img" 2>/dev/null
check "the image carries the key as dropbear's authorized_keys, mode 600" \
	bash -c 'cmp -s "$1/etc/dropbear/authorized_keys" "$2" && [ "$(stat -c %a "$1/etc/dropbear/authorized_keys")" = 600 ]' _ "$work/root" "$work/airlab.pub"
check "the image carries its version in /etc/airlab_version" \
	test "$(cat "$work/root/etc/airlab_version" 2>/dev/null)" = v-test-1
check "the image carries rc.local and the first-boot script" \
	test -f "$work/root/etc/rc.local" -a -f "$work/root/etc/uci-defaults/90-airlab"
check "IMAGE.version beside the image says the same version" \
	test "$(cat "$img.version" 2>/dev/null)" = v-test-1
check "the recipe's own files/ gained nothing" \
	test ! -e "$src/files/etc/dropbear" -a ! -e "$src/files/etc/airlab_version"
finish
