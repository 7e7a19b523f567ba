#!/bin/bash
# Builds airlab's patched mac80211_hwsim (emulated TX ring, see README.md)
# out of tree for one Debian kernel release.
#
#   build-hwsim.sh --series 6.1|6.12 [--release UNAME_R] --out DIR
#
# Without --release the release is the one the DUT image uses:
# build/dut-image/<series>/kernel.release if it exists, else the same pick
# as dut-images/virtual/build.sh (newest linux-image-6.1.0-*-amd64 /
# linux-image-6.12.*+deb12-amd64 known to apt).
#
# Inputs, all Debian packages fetched with `apt-get download` into
# ${AIRLAB_CACHE:-$HOME/.cache/airlab}/debs: linux-source-<series> of the
# kernel's exact version (only mac80211_hwsim.{c,h} are streamed out of it),
# linux-headers-<release>, its -common package and its linux-kbuild package.
# The header packages are unpacked under the cache, not installed; the one
# absolute path in them (the -amd64 Makefile includes
# /usr/src/linux-headers-...-common/Makefile) is pointed at the unpacked
# copy. Needs pahole (Debian package dwarves) for BTF; installs it with
# apt-get when missing.
#
# Output: DIR/mac80211_hwsim.ko (vermagic checked against the release) and
# DIR/.inputs. With unchanged patch, script and packages nothing is rebuilt.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
CACHE=${AIRLAB_CACHE:-$HOME/.cache/airlab}
SERIES=
RELEASE=
OUT=

usage() {
	echo "usage: $0 --series 6.1|6.12 [--release UNAME_R] --out DIR" >&2
	exit 2
}
die() {
	echo "build-hwsim: error: $*" >&2
	exit 1
}
say() { echo "build-hwsim: $*" >&2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--series) SERIES=${2:-}; shift 2 || usage ;;
	--release) RELEASE=${2:-}; shift 2 || usage ;;
	--out) OUT=${2:-}; shift 2 || usage ;;
	-h | --help) sed -n '2,23p' "$0"; exit 0 ;;
	*) echo "build-hwsim: unknown argument '$1'" >&2; usage ;;
	esac
done
[ -n "$SERIES" ] && [ -n "$OUT" ] || usage
case "$SERIES" in
6.1) IMAGE_PATTERN='^linux-image-6\.1\.0-[0-9]+-amd64$'; IMAGE_META=linux-image-amd64 ;;
6.12) IMAGE_PATTERN='^linux-image-6\.12\.[0-9]+\+deb12-amd64$'; IMAGE_META=linux-image-6.12-amd64 ;;
*) die "unknown kernel series '$SERIES' (known: 6.1, 6.12)" ;;
esac
PATCH="$HERE/patches/$SERIES/mac80211_hwsim-txring.patch"
[ -r "$PATCH" ] || die "patch $PATCH missing"

for tool in apt-get apt-cache dpkg-deb tar xz patch make modinfo sha256sum; do
	command -v "$tool" >/dev/null || die "'$tool' not found in PATH (run 'make deps')"
done

# ---- which kernel release ---------------------------------------------------
if [ -z "$RELEASE" ]; then
	if [ -s "$REPO/build/dut-image/$SERIES/kernel.release" ]; then
		RELEASE=$(cat "$REPO/build/dut-image/$SERIES/kernel.release")
	else
		# Same choice as dut-images/virtual/build.sh.
		pkg=$(apt-cache depends "$IMAGE_META" 2>/dev/null |
			awk '$1=="Depends:"{print $2}' | grep -E "$IMAGE_PATTERN" | head -n1 || true)
		[ -n "$pkg" ] || pkg=$(apt-cache pkgnames linux-image- 2>/dev/null |
			grep -E "$IMAGE_PATTERN" | sort -V | tail -n1 || true)
		[ -n "$pkg" ] || die "no package matching $IMAGE_PATTERN known to apt (run 'apt-get update')"
		RELEASE=${pkg#linux-image-}
	fi
fi
case "$RELEASE" in
"$SERIES".*) ;;
*) die "release '$RELEASE' is not a $SERIES kernel" ;;
esac

mkdir -p "$CACHE/debs" "$OUT"
OUT=$(cd "$OUT" && pwd)

# ---- packages -----------------------------------------------------------------

# Prints the candidate version of a package, or nothing.
candidate() {
	apt-cache policy "$1" 2>/dev/null | awk '$1=="Candidate:" && $2!="(none)"{print $2}'
}

# Makes sure PKG (at VERSION, if given) is in the cache; prints its path. A
# cached .deb is used as is when apt does not know the package.
fetch_deb() {
	local pkg=$1 ver=${2:-} deb
	[ -n "$ver" ] || ver=$(candidate "$pkg")
	if [ -n "$ver" ]; then
		# apt-get download writes ':' of an epoch as %3a.
		deb=$(ls -1 "$CACHE/debs/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n1 || true)
		if [ -z "$deb" ]; then
			say "downloading $pkg $ver"
			(cd "$CACHE/debs" && apt-get download -q "$pkg=$ver" 2>&1 |
				{ grep -v -e 'unsandboxed' -e '^Get:' >&2 || true; }) ||
				die "apt-get download $pkg=$ver failed (try 'apt-get update')"
			deb=$(ls -1 "$CACHE/debs/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n1 || true)
			[ -n "$deb" ] || die "apt-get download $pkg=$ver left no ${pkg}_${ver}_*.deb in $CACHE/debs"
		fi
	else
		deb=$(ls -1 "$CACHE/debs/${pkg}_"*.deb 2>/dev/null | sort -V | tail -n1 || true)
		[ -n "$deb" ] || die "package $pkg unknown to apt and not in $CACHE/debs (run 'apt-get update')"
		say "apt has no candidate for $pkg; using cached $(basename "$deb")"
	fi
	echo "$deb"
}

# Prints the dependency of a .deb whose name matches PATTERN.
deb_depends() {
	dpkg-deb -f "$1" Depends | tr ',|' '\n\n' | awk '{print $1}' | grep -E "$2" | head -n1 || true
}

HDR_DEB=$(fetch_deb "linux-headers-$RELEASE")
KVER=$(dpkg-deb -f "$HDR_DEB" Version)
COMMON_PKG=$(deb_depends "$HDR_DEB" '^linux-headers-.*-common$')
KBUILD_PKG=$(deb_depends "$HDR_DEB" '^linux-kbuild-')
[ -n "$COMMON_PKG" ] && [ -n "$KBUILD_PKG" ] ||
	die "$(basename "$HDR_DEB") names no -common or linux-kbuild dependency"
COMMON_DEB=$(fetch_deb "$COMMON_PKG" "$KVER")
KBUILD_DEB=$(fetch_deb "$KBUILD_PKG" "$KVER")
# The source of exactly this kernel build (same Debian version).
SRC_DEB=$(fetch_deb "linux-source-$SERIES" "$KVER")

# ---- cache check ----------------------------------------------------------------
WORK="$CACHE/hwsim/$RELEASE"
HASH=$({
	echo "release $RELEASE"
	sha256sum "$PATCH" "$0"
	stat -c '%n %s %Y' "$HDR_DEB" "$COMMON_DEB" "$KBUILD_DEB" "$SRC_DEB"
} | sha256sum | cut -d' ' -f1)
if [ -s "$OUT/mac80211_hwsim.ko" ] && [ -f "$OUT/.inputs" ] &&
	[ "$(cat "$OUT/.inputs")" = "$HASH" ]; then
	say "$SERIES: $OUT/mac80211_hwsim.ko up to date ($RELEASE)"
	exit 0
fi

if ! command -v pahole >/dev/null; then
	say "installing dwarves (pahole, for the module's BTF)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q dwarves >&2 ||
		die "apt-get install dwarves failed (pahole is needed for BTF)"
fi

# ---- headers: unpacked under the cache, Makefile pointed at the copy ------------
HDR_ROOT="$WORK/headers"
HDR_DIR="$HDR_ROOT/usr/src/linux-headers-$RELEASE"
HDR_STAMP=$(stat -c '%n %s %Y' "$HDR_DEB" "$COMMON_DEB" "$KBUILD_DEB" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$HDR_ROOT/.unpacked" 2>/dev/null)" != "$HDR_STAMP" ]; then
	say "unpacking headers for $RELEASE"
	rm -rf "$HDR_ROOT"
	mkdir -p "$HDR_ROOT"
	for deb in "$HDR_DEB" "$COMMON_DEB" "$KBUILD_DEB"; do
		dpkg-deb -x "$deb" "$HDR_ROOT" || die "dpkg-deb -x $deb $HDR_ROOT failed"
	done
	[ -f "$HDR_DIR/Makefile" ] || die "no $HDR_DIR/Makefile in $(basename "$HDR_DEB")"
	grep -q '^include /usr/src/' "$HDR_DIR/Makefile" ||
		die "$HDR_DIR/Makefile has no 'include /usr/src/...' line to redirect"
	sed -i "s|^include /usr/src/|include $HDR_ROOT/usr/src/|" "$HDR_DIR/Makefile"
	echo "$HDR_STAMP" >"$HDR_ROOT/.unpacked"
fi

# ---- hwsim source: streamed out of the source tarball ------------------------------
# The patch names the file (drivers/net/wireless/[virtual/]mac80211_hwsim.c).
REL_C=$(awk '/^\+\+\+ /{sub(/^b\//, "", $2); print $2; exit}' "$PATCH")
[ -n "$REL_C" ] || die "$PATCH names no file (+++ line)"
REL_DIR=$(dirname "$REL_C")
SRC_DIR="$WORK/source"
SRC_STAMP=$(stat -c '%n %s %Y' "$SRC_DEB" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$SRC_DIR/.extracted" 2>/dev/null)" != "$SRC_STAMP" ]; then
	say "extracting $REL_DIR/mac80211_hwsim.{c,h} from $(basename "$SRC_DEB")"
	rm -rf "$SRC_DIR"
	mkdir -p "$SRC_DIR"
	tarball=./usr/src/linux-source-$SERIES.tar.xz
	dpkg-deb --fsys-tarfile "$SRC_DEB" | tar -xO "$tarball" | xz -dc -T0 |
		tar -x -C "$SRC_DIR" --strip-components=1 \
			"linux-source-$SERIES/$REL_DIR/mac80211_hwsim.c" \
			"linux-source-$SERIES/$REL_DIR/mac80211_hwsim.h" ||
		die "extracting $REL_DIR/mac80211_hwsim.{c,h} from $tarball in $SRC_DEB failed"
	echo "$SRC_STAMP" >"$SRC_DIR/.extracted"
fi

# ---- patch and build ---------------------------------------------------------------
BUILD="$WORK/build"
rm -rf "$BUILD"
mkdir -p "$BUILD/$REL_DIR"
cp "$SRC_DIR/$REL_DIR/mac80211_hwsim.c" "$SRC_DIR/$REL_DIR/mac80211_hwsim.h" "$BUILD/$REL_DIR/"
patch -s -p1 -d "$BUILD" --no-backup-if-mismatch <"$PATCH" ||
	die "$PATCH does not apply to $REL_DIR/mac80211_hwsim.c of $(basename "$SRC_DEB")"
MOD_DIR="$BUILD/$REL_DIR"
echo 'obj-m := mac80211_hwsim.o' >"$MOD_DIR/Kbuild"
say "building mac80211_hwsim.ko for $RELEASE"
make -s -C "$HDR_DIR" M="$MOD_DIR" modules >"$BUILD/make.log" 2>&1 || {
	tail -n 20 "$BUILD/make.log" >&2
	die "make -C $HDR_DIR M=$MOD_DIR modules failed (log: $BUILD/make.log)"
}
KO="$MOD_DIR/mac80211_hwsim.ko"
[ -s "$KO" ] || die "make -C $HDR_DIR M=$MOD_DIR modules produced no $KO"
vermagic=$(modinfo -F vermagic "$KO")
[ "${vermagic%% *}" = "$RELEASE" ] ||
	die "$KO has vermagic '$vermagic', not kernel $RELEASE"
modinfo -F parm "$KO" | grep -q '^txring:' || die "$KO lacks the txring parameter (patch not built in?)"

rm -f "$OUT/.inputs"
cp "$KO" "$OUT/mac80211_hwsim.ko.tmp"
mv "$OUT/mac80211_hwsim.ko.tmp" "$OUT/mac80211_hwsim.ko"
echo "$HASH" >"$OUT/.inputs"
say "$SERIES: $OUT/mac80211_hwsim.ko (vermagic $vermagic)"
