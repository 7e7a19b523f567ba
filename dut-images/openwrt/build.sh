#!/usr/bin/env bash
# Builds an OpenWrt image for one airlab DUT board with OpenWrt's
# ImageBuilder: build.sh BOARD --imagebuilder DIR --authorized-keys FILE
# [--version STR] [--out DIR] [--dry-run]
# (BOARD: a file in boards/ without .conf). --dry-run checks the recipe
# and prints the ImageBuilder command without an ImageBuilder.
# The image carries FILE as dropbear's authorized_keys (sysupgrade -n
# keeps no settings: without it the DUT refuses airlab's key) and STR
# in /etc/airlab_version; each image gets IMAGE.version beside it, what
# the sysupgrade and uboot-tftp flash drivers check the DUT boots.
set -u
here=$(cd "$(dirname "$0")" && pwd)
board="" ib="" out="$here/out" dry=0 keys="" version=""
while [ $# -gt 0 ]; do
	case $1 in
	--imagebuilder) ib=${2:-}; shift ;;
	--out) out=${2:-}; shift ;;
	--authorized-keys) keys=${2:-}; shift ;;
	--version) version=${2:-}; shift ;;
	--dry-run) dry=1 ;;
	-h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "build.sh: unknown option $1" >&2; exit 2 ;;
	*) board=$1 ;;
	esac
	shift
done
boards=$(cd "$here/boards" && ls -- *.conf 2>/dev/null | sed 's/\.conf$//' | tr '\n' ' ')
if [ -z "$board" ] || [ ! -f "$here/boards/$board.conf" ]; then
	echo "build.sh: unknown board '${board}' (boards: ${boards% })" >&2
	exit 2
fi
conf="boards/$board.conf"

# KEY=value lines; anything else (but comments and blank lines) is an
# error with its line.
declare -A v
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	case $line in '' | '#'*) continue ;; esac
	if [[ ! $line =~ ^([A-Z]+)=(.*)$ ]]; then
		echo "$conf:$n: not KEY=value: $line" >&2
		exit 2
	fi
	key=${BASH_REMATCH[1]}
	case $key in RELEASE | TARGET | PROFILE | RADIOS | PACKAGES) ;; *)
		echo "$conf:$n: unknown key $key (known: RELEASE TARGET PROFILE RADIOS PACKAGES)" >&2
		exit 2 ;;
	esac
	v[$key]=${BASH_REMATCH[2]}
done <"$here/$conf"
for key in RELEASE TARGET PROFILE RADIOS; do
	if [ -z "${v[$key]:-}" ]; then
		echo "$conf: $key is missing" >&2
		exit 2
	fi
done

# The radio drivers: each kind of radio the board has, once.
pkgs=$(sed 's/#.*//' "$here/packages-common.txt" | tr -s ' \t' '\n' | sed '/^$/d')
for r in $(echo "${v[RADIOS]}" | tr ' ' '\n' | sort -u); do
	case $r in
	ath9k) pkgs+=$'\n'kmod-ath9k ;;
	ath10k) pkgs+=$'\n'kmod-ath10k-ct$'\n'ath10k-firmware-qca988x-ct ;;
	*) echo "$conf: radio '$r' is not one airlab builds for (ath9k ath10k)" >&2; exit 2 ;;
	esac
done
pkgs+=$'\n'$(echo "${v[PACKAGES]:-}" | tr ' ' '\n')
pkgs=$(echo "$pkgs" | sed '/^$/d' | awk '!seen[$0]++' | tr '\n' ' ')
pkgs=${pkgs% }

files="$out/$board/files"
cmd=(make -C "${ib:-IMAGEBUILDER}" image "PROFILE=${v[PROFILE]}" "PACKAGES=$pkgs"
	"FILES=$files" "BIN_DIR=$out/$board")
if [ "$dry" -eq 1 ]; then
	echo "board $board: OpenWrt ${v[RELEASE]} ${v[TARGET]}, radios ${v[RADIOS]}"
	printf '%q ' "${cmd[@]}"
	echo
	exit 0
fi
url="https://downloads.openwrt.org/releases/${v[RELEASE]}/targets/${v[TARGET]}/"
if [ -z "$ib" ] || [ ! -f "$ib/Makefile" ]; then
	echo "build.sh: $board needs OpenWrt's ${v[RELEASE]} ImageBuilder for ${v[TARGET]} (--imagebuilder DIR, unpacked from $url); it is not in Debian" >&2
	exit 2
fi
if [ -z "$keys" ] || [ ! -s "$keys" ]; then
	echo "build.sh: $board: --authorized-keys FILE is needed (airlab's public key; '${keys}' is missing or empty): sysupgrade -n keeps no settings and the image turns passwords off" >&2
	exit 2
fi
if [ -z "$version" ]; then
	rev=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo nogit)
	version="$board-$(date -u +%Y%m%dT%H%M%SZ)-$rev"
fi
# files/ as it is, plus what this build adds.
mkdir -p "$out/$board"
rm -rf "$files"
cp -a "$here/files" "$files"
mkdir -p "$files/etc/dropbear"
install -m 600 "$keys" "$files/etc/dropbear/authorized_keys"
echo "$version" >"$files/etc/airlab_version"
echo "build.sh: $board: ${cmd[*]}" >&2
"${cmd[@]}" || exit 1
n=0
for img in "$out/$board"/*.bin; do
	[ -f "$img" ] || continue
	echo "$version" >"$img.version"
	n=$((n + 1))
done
if [ "$n" -eq 0 ]; then
	echo "build.sh: $board: the ImageBuilder left no *.bin in $out/$board" >&2
	exit 1
fi
echo "build.sh: $board: $n image(s) in $out/$board, version $version"
