#!/bin/bash
# Builds the virtual DUT image: per kernel series (6.1, 6.12) a Debian kernel
# and an initramfs holding busybox, the host's Debian userland (hostapd,
# wpa_supplicant, iw, iproute2, dropbear, iperf3, irtt) with its shared
# libraries, airlab's guest tools, the needed kernel modules and SSH keys.
#
#   build.sh --out DIR --guest-bin DIR
#
# Outputs: DIR/<series>/{vmlinuz,vmlinux,initrd.img,kernel.release}, DIR/ssh/.
# vmlinux is the same kernel as an uncompressed PVH ELF (boots faster under
# QEMU -kernel); vmlinuz is Debian's bzImage.
# Debian packages are cached outside the repo in
# ${AIRLAB_CACHE:-$HOME/.cache/airlab}/debs. Rebuilding with unchanged inputs
# is a no-op.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=
GUEST_BIN=
CACHE=${AIRLAB_CACHE:-$HOME/.cache/airlab}

usage() {
	echo "usage: $0 --out DIR --guest-bin DIR" >&2
	exit 2
}
die() {
	echo "image: error: $*" >&2
	exit 1
}
say() { echo "image: $*"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--out) OUT=${2:-}; shift 2 || usage ;;
	--guest-bin) GUEST_BIN=${2:-}; shift 2 || usage ;;
	-h | --help) usage ;;
	*) echo "image: unknown argument '$1'" >&2; usage ;;
	esac
done
[ -n "$OUT" ] && [ -n "$GUEST_BIN" ] || usage

for tool in apt-get apt-cache dpkg-deb depmod modinfo cpio ldd ldconfig \
	ssh-keygen dropbearkey sha256sum xz; do
	command -v "$tool" >/dev/null ||
		die "'$tool' not found in PATH (run 'make deps')"
done
# zstd unpacks fastest in the guest under TCG; gzip is the fallback.
if command -v zstd >/dev/null; then
	COMPRESS=(zstd -q -T0 -10)
	DECOMPRESS=(zstd -q -dc)
else
	COMPRESS=(gzip -6)
	DECOMPRESS=(gzip -dc)
fi

mkdir -p "$OUT" "$CACHE/debs" "$CACHE/unpacked"
OUT=$(cd "$OUT" && pwd)
GUEST_BIN=$(cd "$GUEST_BIN" 2>/dev/null && pwd) ||
	die "guest binaries directory '$GUEST_BIN' does not exist (run 'make all')"
[ -x "$GUEST_BIN/airlab-guest" ] ||
	die "$GUEST_BIN/airlab-guest missing (run 'make all')"

# ---- Debian packages ---------------------------------------------------------

# Prints the package a metapackage depends on (matching a pattern), or the
# highest-versioned available package matching the pattern.
pick_package() {
	local meta=$1 pattern=$2 pkg
	pkg=$(apt-cache depends "$meta" 2>/dev/null |
		awk '$1=="Depends:"{print $2}' | grep -E "$pattern" | head -n1 || true)
	if [ -z "$pkg" ]; then
		pkg=$(apt-cache pkgnames linux-image- 2>/dev/null | grep -E "$pattern" |
			sort -V | tail -n1 || true)
	fi
	echo "$pkg"
}

# Makes sure PKG's .deb is in the cache and prints its path. Without apt
# metadata for PKG, a cached .deb of that name is used as is.
fetch_deb() {
	local pkg=$1 ver deb
	ver=$(apt-cache policy "$pkg" 2>/dev/null | awk '$1=="Candidate:"{print $2}')
	if [ -n "$ver" ] && [ "$ver" != "(none)" ]; then
		# apt-get download escapes ':' of the epoch as %3a.
		deb="$CACHE/debs/${pkg}_${ver//:/%3a}_amd64.deb"
		if [ ! -s "$deb" ]; then
			say "downloading $pkg $ver" >&2
			(cd "$CACHE/debs" && apt-get download -q "$pkg" >&2 2> >(grep -v 'unsandboxed' >&2)) ||
				die "apt-get download $pkg failed (try 'apt-get update')"
			[ -s "$deb" ] || die "apt-get download $pkg did not produce $deb"
		fi
	else
		deb=$(ls -1 "$CACHE/debs/${pkg}"_*_amd64.deb 2>/dev/null | sort -V | tail -n1 || true)
		[ -n "$deb" ] || die "package $pkg unknown to apt and not in $CACHE/debs (run 'apt-get update')"
		say "apt has no candidate for $pkg; using cached $(basename "$deb")" >&2
	fi
	echo "$deb"
}

# Unpacks a .deb once into the cache; prints the directory.
unpack_deb() {
	local deb=$1 dir
	dir="$CACHE/unpacked/$(basename "$deb" .deb)"
	if [ ! -e "$dir/.unpacked" ]; then
		say "unpacking $(basename "$deb")" >&2
		rm -rf "$dir"
		mkdir -p "$dir"
		dpkg-deb -x "$deb" "$dir" || die "dpkg-deb -x $deb failed"
		touch "$dir/.unpacked"
	fi
	echo "$dir"
}

K61_PKG=$(pick_package linux-image-amd64 '^linux-image-6\.1\.0-[0-9]+-amd64$')
[ -n "$K61_PKG" ] || die "no linux-image-6.1.0-*-amd64 package known to apt (run 'apt-get update')"
K612_PKG=$(pick_package linux-image-6.12-amd64 '^linux-image-6\.12\.[0-9]+\+deb12-amd64$')
[ -n "$K612_PKG" ] || die "no linux-image-6.12.*+deb12-amd64 package known to apt (run 'apt-get update')"

K61_DEB=$(fetch_deb "$K61_PKG")
K612_DEB=$(fetch_deb "$K612_PKG")
BB_DEB=$(fetch_deb busybox-static)
BB_DIR=$(unpack_deb "$BB_DEB")
BUSYBOX="$BB_DIR/bin/busybox"
[ -x "$BUSYBOX" ] || BUSYBOX="$BB_DIR/usr/bin/busybox"
[ -x "$BUSYBOX" ] || die "no busybox binary in $BB_DEB"

# ---- host userland -------------------------------------------------------------

# guest path | host path candidates | Debian package
USERLAND=(
	"/usr/sbin/hostapd|/usr/sbin/hostapd|hostapd"
	"/usr/sbin/hostapd_cli|/usr/sbin/hostapd_cli|hostapd"
	"/usr/sbin/wpa_supplicant|/usr/sbin/wpa_supplicant /sbin/wpa_supplicant|wpasupplicant"
	"/usr/sbin/wpa_cli|/usr/sbin/wpa_cli /sbin/wpa_cli|wpasupplicant"
	"/usr/bin/wpa_passphrase|/usr/bin/wpa_passphrase|wpasupplicant"
	"/usr/sbin/iw|/usr/sbin/iw /sbin/iw|iw"
	"/usr/sbin/ip|/usr/sbin/ip /sbin/ip /usr/bin/ip /bin/ip|iproute2"
	"/usr/sbin/tc|/usr/sbin/tc /sbin/tc|iproute2"
	"/usr/bin/ss|/usr/bin/ss /bin/ss|iproute2"
	"/usr/sbin/dropbear|/usr/sbin/dropbear|dropbear-bin"
	"/usr/bin/iperf3|/usr/bin/iperf3|iperf3"
	"/usr/bin/irtt|/usr/bin/irtt|irtt"
	"/usr/bin/bash|/usr/bin/bash /bin/bash|bash"
)

HOST_FILES=()	 # host binaries + libraries that go into the image (for the stamp)
HOST_AND_TOOLS=() # the same plus airlab's guest tools (for their libraries)
declare -A GUEST_OF # host file -> guest path
for entry in "${USERLAND[@]}"; do
	IFS='|' read -r gpath candidates pkg <<<"$entry"
	found=
	for c in $candidates; do
		if [ -x "$c" ] && [ ! -d "$c" ]; then found=$c; break; fi
	done
	[ -n "$found" ] || die "$(basename "$gpath") not installed (looked for $candidates; install Debian package '$pkg', e.g. 'make deps')"
	HOST_FILES+=("$found")
	HOST_AND_TOOLS+=("$found")
	GUEST_OF[$found]=$gpath
done

# airlab's guest tools: most need only libc; airlab-usbtest (the USB
# driver test) brings libusb, libftdi and the rest of libairlab's libraries.
GUEST_TOOLS=$(find "$GUEST_BIN" -maxdepth 1 -type f -perm -u+x | sort)

# Shared-library closure of every host binary and guest tool, including the
# dynamic loader.
declare -A LIBS=()
while read -r f; do
	[ -n "$f" ] && HOST_AND_TOOLS+=("$f")
done <<<"$GUEST_TOOLS"
for f in "${HOST_AND_TOOLS[@]}"; do
	out=$(ldd "$f" 2>&1) || {
		# Static binaries are fine; anything else is not.
		grep -q 'not a dynamic executable' <<<"$out" && continue
		die "ldd $f failed: $out"
	}
	if grep -q 'not found' <<<"$out"; then
		die "$f needs a library that is not installed: $(grep 'not found' <<<"$out" | head -n1 | xargs)"
	fi
	while read -r lib; do
		[ -n "$lib" ] && LIBS[$lib]=1
	done < <(awk '$2=="=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$out")
done
LIB_LIST=$(printf '%s\n' "${!LIBS[@]}" | sort)
TC_DATA=
for d in /usr/lib/x86_64-linux-gnu/tc /usr/lib/tc /lib/tc; do
	if [ -d "$d" ]; then TC_DATA=$d; break; fi
done

# ---- SSH keys (made once, kept) ------------------------------------------------

SSH_DIR="$OUT/ssh"
mkdir -p "$SSH_DIR"
chmod 700 "$SSH_DIR"
if [ ! -s "$SSH_DIR/id_ed25519" ]; then
	say "generating client key $SSH_DIR/id_ed25519"
	rm -f "$SSH_DIR/id_ed25519" "$SSH_DIR/id_ed25519.pub"
	ssh-keygen -q -t ed25519 -N '' -C airlab-harness -f "$SSH_DIR/id_ed25519"
fi
if [ ! -s "$SSH_DIR/dropbear_ed25519_host_key" ]; then
	say "generating guest host key $SSH_DIR/dropbear_ed25519_host_key"
	rm -f "$SSH_DIR/dropbear_ed25519_host_key"
	dropbearkey -t ed25519 -f "$SSH_DIR/dropbear_ed25519_host_key" >/dev/null 2>&1 ||
		die "dropbearkey -t ed25519 -f $SSH_DIR/dropbear_ed25519_host_key failed"
fi
dropbearkey -y -f "$SSH_DIR/dropbear_ed25519_host_key" 2>/dev/null |
	awk '$1=="ssh-ed25519"{print $1, $2}' >"$SSH_DIR/dropbear_ed25519_host_key.pub.new"
[ -s "$SSH_DIR/dropbear_ed25519_host_key.pub.new" ] ||
	die "dropbearkey -y -f $SSH_DIR/dropbear_ed25519_host_key printed no ssh-ed25519 key"
mv "$SSH_DIR/dropbear_ed25519_host_key.pub.new" "$SSH_DIR/dropbear_ed25519_host_key.pub"

# ---- kernel modules ------------------------------------------------------------

# Modules the init loads at boot; the dependency closure comes from
# modinfo. "?" = optional (skipped with a note when the kernel has it
# neither as module nor built in).
MODULES_BOOT=(
	virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
	failover net_failover virtio_net
	rfkill libarc4 cfg80211 mac80211
	ctr ccm gcm ghash_generic cmac
	veth ?virtio_rng
	mac80211_hwsim
)
# In the image for the kernel to load on demand (tc, sysctl) through
# busybox modprobe and modules.dep: loading them all at boot costs ~1 s.
MODULES_DEMAND=(
	?ifb
	# CCMP through AES-NI when the CPU model has it (qemu power cpu:
	# max): hwsim has no hardware crypto, so every frame is encrypted
	# and decrypted by the guest's CPU.
	?aesni_intel
	?sch_fq_codel ?sch_codel ?sch_fq ?sch_netem ?sch_htb ?sch_tbf ?sch_prio
	?sch_sfq ?sch_cake ?sch_red ?sch_pie ?sch_fq_pie ?sch_ingress ?sch_mqprio
	?sch_multiq ?sch_drr ?sch_hfsc
	?cls_u32 ?cls_fw ?cls_matchall ?cls_basic ?cls_flow ?act_mirred ?act_skbedit
	# USB gadgets on a virtual host controller for the USB driver test
	# (it_usb.sh); usbcore, udc-core, configfs and hid come as
	# dependencies.
	?dummy_hcd ?libcomposite ?usb_f_hid ?usb_f_fs ?usbhid
)

# Stages modules for one kernel tree into STAGE/lib/modules/VER, decompressed,
# with modules.dep (depmod) and airlab's load order list.
stage_modules() {
	local kroot=$1 ver=$2 stage=$3 mdir name rel
	mdir="$kroot/lib/modules/$ver"
	[ -d "$mdir/kernel" ] || die "$mdir/kernel missing in the unpacked kernel package"
	declare -A path_of=() builtin=() seen=()
	while read -r rel; do
		name=$(basename "$rel")
		name=${name%%.ko*}
		path_of[${name//-/_}]=$rel
	done < <(cd "$mdir" && find kernel -name '*.ko*')
	if [ -f "$mdir/modules.builtin" ]; then
		while read -r rel; do
			name=$(basename "$rel" .ko)
			builtin[${name//-/_}]=1
		done <"$mdir/modules.builtin"
	fi
	local order=()
	visit() {
		local m=${1//-/_} d deps
		[ -n "${seen[$m]:-}" ] && return 0
		seen[$m]=1
		[ -n "${path_of[$m]:-}" ] || return 0
		deps=$(modinfo -F depends "$mdir/${path_of[$m]}" 2>/dev/null) ||
			die "modinfo $mdir/${path_of[$m]} failed"
		for d in ${deps//,/ }; do visit "$d"; done
		order+=("$m")
	}
	local want optional nboot
	for want in "${MODULES_BOOT[@]}" - "${MODULES_DEMAND[@]}"; do
		if [ "$want" = - ]; then
			nboot=${#order[@]}
			continue
		fi
		optional=
		if [ "${want#\?}" != "$want" ]; then optional=1; want=${want#\?}; fi
		if [ -z "${path_of[$want]:-}" ] && [ -z "${builtin[$want]:-}" ]; then
			[ -n "$optional" ] || die "kernel $ver has no module $want (looked in $mdir)"
			say "note: kernel $ver has no $want"
			continue
		fi
		visit "$want"
	done
	local dst="$stage/lib/modules/$ver"
	mkdir -p "$dst"
	: >"$dst/airlab.load"
	local idx=0
	for m in "${order[@]}"; do
		idx=$((idx + 1))
		rel=${path_of[$m]}
		mkdir -p "$dst/$(dirname "$rel")"
		case "$rel" in
		*.ko.xz) xz -dc "$mdir/$rel" >"$dst/${rel%.xz}" ;;
		*.ko.zst) zstd -q -dc "$mdir/$rel" >"$dst/${rel%.zst}" ;;
		*.ko.gz) gzip -dc "$mdir/$rel" >"$dst/${rel%.gz}" ;;
		*) cp "$mdir/$rel" "$dst/$rel" ;;
		esac
		rel=${rel%.xz}; rel=${rel%.zst}; rel=${rel%.gz}
		# hwsim is loaded by the init with radios=<n>; airlab's
		# patched build (emulated TX ring, kernel/README.md) replaces
		# the stock module at the same path.
		if [ "$m" = mac80211_hwsim ]; then
			cp "$HWSIM_KO" "$dst/$rel"
			echo "$rel" >"$dst/airlab.hwsim"
		elif [ $idx -le "$nboot" ]; then
			echo "$rel" >>"$dst/airlab.load"
		fi
	done
	[ -s "$dst/airlab.hwsim" ] || die "kernel $ver: mac80211_hwsim not staged"
	cp "$mdir/modules.builtin" "$mdir/modules.order" "$dst/" 2>/dev/null || true
	[ -f "$mdir/modules.builtin.modinfo" ] && cp "$mdir/modules.builtin.modinfo" "$dst/"
	depmod -b "$stage" "$ver" || die "depmod -b $stage $ver failed"
	say "kernel $ver: ${#order[@]} modules staged, $(wc -l <"$dst/airlab.load") loaded at boot"
}

# Writes the uncompressed ELF kernel inside a bzImage to FILE if it has a
# PVH entry note: QEMU boots that directly (no real-mode setup, no
# decompression under TCG: ~5 s faster). Returns 1 when it cannot.
extract_pvh_vmlinux() {
	local bz=$1 file=$2 setup_sects off len magic
	setup_sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$bz" | tr -d ' ')
	off=$(od -An -tu4 -j $((0x248)) -N4 "$bz" | tr -d ' ')
	len=$(od -An -tu4 -j $((0x24c)) -N4 "$bz" | tr -d ' ')
	[ -n "$setup_sects" ] && [ -n "$off" ] && [ -n "$len" ] || return 1
	off=$(((setup_sects + 1) * 512 + off))
	magic=$(od -An -tx1 -j "$off" -N4 "$bz" | tr -d ' ')
	case "$magic" in
	fd377a58) tail -c +$((off + 1)) "$bz" | head -c "$len" | xz -dcq --single-stream >"$file" 2>/dev/null ;;
	28b52ffd) tail -c +$((off + 1)) "$bz" | head -c "$len" | zstd -dcq >"$file" 2>/dev/null ;;
	1f8b*) tail -c +$((off + 1)) "$bz" | head -c "$len" | gzip -dcq >"$file" 2>/dev/null ;;
	*) return 1 ;;
	esac
	[ "$(od -An -c -N4 "$file" | tr -d ' ')" = '177ELF' ] || return 1
	# XEN_ELFNOTE_PHYS32_ENTRY (18) is what QEMU's PVH loader looks for.
	command -v readelf >/dev/null || return 1
	readelf -n "$file" 2>/dev/null | grep -q 'Xen.*(0x00000012)' || return 1
}

# ---- initramfs -----------------------------------------------------------------

# The kernel-independent part of the root filesystem.
stage_userland() {
	local root=$1 f g lib app
	mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64} \
		"$root"/{etc/airlab,etc/dropbear,root/.ssh,proc,sys,dev,run,tmp,var,mnt}
	ln -s usr/bin "$root/bin"
	ln -s usr/sbin "$root/sbin"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib64 "$root/lib64"
	ln -s ../run "$root/var/run"
	ln -s ../tmp "$root/var/tmp"
	chmod 1777 "$root/tmp"
	chmod 700 "$root/root" "$root/root/.ssh"

	for f in "${HOST_FILES[@]}"; do
		g=${GUEST_OF[$f]}
		cp -L "$f" "$root$g"
	done
	while read -r lib; do
		[ -n "$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done <<<"$LIB_LIST"
	if [ -n "$TC_DATA" ]; then
		mkdir -p "$root/usr/lib/x86_64-linux-gnu/tc"
		cp -L "$TC_DATA"/* "$root/usr/lib/x86_64-linux-gnu/tc/"
		ln -s x86_64-linux-gnu/tc "$root/usr/lib/tc"
	fi
	while read -r f; do
		[ -n "$f" ] && cp "$f" "$root/usr/bin/$(basename "$f")"
	done <<<"$GUEST_TOOLS"

	cp "$BUSYBOX" "$root/usr/bin/busybox"
	# Applet links, never over a real binary (so /usr/sbin/ip is iproute2).
	while read -r app; do
		case "$app" in
		linuxrc | init | */linuxrc | */init) continue ;;
		esac
		g="/usr/${app#usr/}"
		[ -e "$root$g" ] || [ -L "$root$g" ] && continue
		[ -e "$root/usr/bin/${g##*/}" ] || [ -e "$root/usr/sbin/${g##*/}" ] && continue
		mkdir -p "$root$(dirname "$g")"
		ln -s /usr/bin/busybox "$root$g"
	done < <("$BUSYBOX" --list-full)

	printf '/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' >"$root/etc/ld.so.conf"
	ldconfig -r "$root" 2>/dev/null || die "ldconfig -r $root failed"

	printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	printf 'root:*:19000:0:99999:7:::\n' >"$root/etc/shadow"
	chmod 600 "$root/etc/shadow"
	printf '/bin/sh\n/bin/bash\n/usr/bin/bash\n' >"$root/etc/shells"
	printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' >"$root/etc/nsswitch.conf"
	printf '127.0.0.1 localhost\n::1 localhost\n10.43.0.2 server\n' >"$root/etc/hosts"
	printf 'export PATH=/usr/sbin:/usr/bin\nexport PS1="\\h:\\w# "\n' >"$root/etc/profile"
	cp "$HERE/init" "$root/init"
	chmod 755 "$root/init"
	cp "$HERE/airlab-lava-run" "$root/usr/bin/airlab-lava-run"
	chmod 755 "$root/usr/bin/airlab-lava-run"
	# The suites airlab-suite-local runs (it reads BIN/../share/airlab/suites).
	mkdir -p "$root/usr/share/airlab/suites"
	cp "$REPO"/suites/*.suite "$root/usr/share/airlab/suites/"
	cp "$SSH_DIR/id_ed25519.pub" "$root/root/.ssh/authorized_keys"
	chmod 600 "$root/root/.ssh/authorized_keys"
	cp "$SSH_DIR/dropbear_ed25519_host_key" "$root/etc/dropbear/dropbear_ed25519_host_key"
	chmod 600 "$root/etc/dropbear/dropbear_ed25519_host_key"
}

# Writes a compressed newc cpio of DIR (owned by root) to FILE.
pack() {
	local dir=$1 file=$2
	(cd "$dir" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | "${COMPRESS[@]}" >"$file.tmp" ||
		die "packing $dir into $file failed"
	mv "$file.tmp" "$file"
}

# ---- inputs stamp ----------------------------------------------------------------

# A hash over everything the image is made of.
inputs_hash() {
	local series=$1 deb=$2
	{
		echo "series $series compress ${COMPRESS[*]}"
		stat -c '%n %s %Y' "$deb" "$BB_DEB"
		sha256sum "$HERE/build.sh" "$HERE/init" "$HERE/airlab-lava-run" "$SSH_DIR/id_ed25519.pub" \
			"$SSH_DIR/dropbear_ed25519_host_key" "${HOST_FILES[@]}" "$REPO"/suites/*.suite
		[ -n "$GUEST_TOOLS" ] && sha256sum $GUEST_TOOLS
		[ -n "$LIB_LIST" ] && sha256sum $LIB_LIST
		[ -n "$TC_DATA" ] && (cd "$TC_DATA" && sha256sum ./*)
	} | sha256sum | cut -d' ' -f1
}

WORK="$OUT/.work"
USERLAND_CPIO="$WORK/userland.cpio"
userland_built=

build_series() {
	local series=$1 deb=$2 kroot ver hash dst stage release
	dst="$OUT/$series"
	# The patched hwsim first: cached by its own inputs, and part of ours.
	release=$(dpkg-deb -f "$deb" Package) || die "dpkg-deb -f $deb Package failed"
	release=${release#linux-image-}
	HWSIM_KO="$WORK/hwsim-$series/mac80211_hwsim.ko"
	say "$series: patched mac80211_hwsim for $release"
	AIRLAB_CACHE="$CACHE" "$REPO/kernel/build-hwsim.sh" --series "$series" \
		--release "$release" --out "$WORK/hwsim-$series" ||
		die "building the patched mac80211_hwsim for $release failed"
	hash=$({
		inputs_hash "$series" "$deb"
		cat "$WORK/hwsim-$series/.inputs"
	} | sha256sum | cut -d' ' -f1)
	if [ -f "$dst/.inputs" ] && [ "$(cat "$dst/.inputs")" = "$hash" ] &&
		[ -s "$dst/vmlinuz" ] && [ -s "$dst/initrd.img" ] && [ -s "$dst/kernel.release" ] &&
		[ -s "$dst/initrd.cpio.gz" ]; then
		say "$series up to date ($(cat "$dst/kernel.release"))"
		return 0
	fi
	kroot=$(unpack_deb "$deb")
	ver=$(ls -1 "$kroot/lib/modules" | head -n1)
	[ -n "$ver" ] || die "no lib/modules/<version> in $deb"
	[ -s "$kroot/boot/vmlinuz-$ver" ] || die "no boot/vmlinuz-$ver in $deb"

	mkdir -p "$WORK"
	if [ -z "$userland_built" ]; then
		say "staging userland"
		rm -rf "$WORK/userland"
		stage_userland "$WORK/userland"
		pack "$WORK/userland" "$USERLAND_CPIO"
		userland_built=1
	fi
	say "staging modules for $ver"
	stage="$WORK/modules-$series"
	rm -rf "$stage"
	mkdir -p "$stage"
	stage_modules "$kroot" "$ver" "$stage"
	pack "$stage" "$WORK/modules-$series.cpio"

	mkdir -p "$dst"
	rm -f "$dst/.inputs"
	cp "$kroot/boot/vmlinuz-$ver" "$dst/vmlinuz.tmp" && mv "$dst/vmlinuz.tmp" "$dst/vmlinuz"
	if extract_pvh_vmlinux "$dst/vmlinuz" "$dst/vmlinux.tmp"; then
		mv "$dst/vmlinux.tmp" "$dst/vmlinux"
	else
		rm -f "$dst/vmlinux.tmp" "$dst/vmlinux"
		say "note: no PVH-bootable vmlinux could be extracted from vmlinuz-$ver (boot vmlinuz instead)"
	fi
	# Concatenated compressed cpio archives: the kernel unpacks each in turn.
	cat "$USERLAND_CPIO" "$WORK/modules-$series.cpio" >"$dst/initrd.img.tmp"
	# The kernel takes an uncompressed cpio appended later (the cell
	# config, at flash time) only at a 4-byte aligned offset; it skips
	# zero padding between archives.
	truncate -s %512 "$dst/initrd.img.tmp"
	mv "$dst/initrd.img.tmp" "$dst/initrd.img"
	# The same files as one gzip stream, for LAVA: its tmpfs deploy
	# unpacks a gzip'd ramdisk to add its test overlay (zstd it does
	# not take) and keeps only the first of concatenated archives, so
	# `airlab lava submit` joins these and the cell's configuration
	# into one archive (util/cpio.h).
	"${DECOMPRESS[@]}" "$USERLAND_CPIO" "$WORK/modules-$series.cpio" |
		gzip -6 >"$dst/initrd.cpio.gz.tmp" ||
		die "packing $dst/initrd.cpio.gz failed"
	mv "$dst/initrd.cpio.gz.tmp" "$dst/initrd.cpio.gz"
	echo "$ver" >"$dst/kernel.release"
	echo "$hash" >"$dst/.inputs"
	say "$series: $dst (kernel $ver, initrd $(du -h "$dst/initrd.img" | cut -f1))"
}

build_series 6.1 "$K61_DEB"
build_series 6.12 "$K612_DEB"
