#!/usr/bin/env bash
# Builds an OpenWrt image for one airlab DUT board with OpenWrt's
# ImageBuilder: build.sh BOARD --imagebuilder DIR [--out DIR] [--dry-run]
# (BOARD: a file in boards/ without .conf). --dry-run checks the recipe
# and prints the ImageBuilder command without an ImageBuilder.
set -u
here=$(cd "$(dirname "$0")" && pwd)
board="" ib="" out="$here/out" dry=0
while [ $# -gt 0 ]; do
	case $1 in
	--imagebuilder) ib=${2:-}; shift ;;
	--out) out=${2:-}; shift ;;
	--dry-run) dry=1 ;;
	-h | --help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

cmd=(make -C "${ib:-IMAGEBUILDER}" image "PROFILE=${v[PROFILE]}" "PACKAGES=$pkgs"
	"FILES=$here/files" "BIN_DIR=$out/$board")
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
mkdir -p "$out/$board"
echo "build.sh: $board: ${cmd[*]}" >&2
"${cmd[@]}"
