#!/bin/bash
# Boots the virtual DUT image by hand (for development; the harness has its
# own qemu power driver). Appends CELL_CONF to the initramfs as an extra cpio
# archive, like the qemu-image flash driver does, and runs QEMU (TCG) with
# the serial console on stdio.
#
#   qemu-dev.sh [--image DIR] [--series 6.1|6.12] [--conf CELL_CONF]
#               [--port SSH_PORT] [--smp N] [--mem MB] [--append ARGS]
#               [--fast-opts KERNEL_ARGS] [--qemu-opts QEMU_ARGS]
#               [--bzimage] [--timestamps]
#
# Boots DIR/<series>/vmlinux (PVH ELF) when present, vmlinuz with --bzimage.
# --timestamps prefixes each console line with seconds since QEMU started.
# Log in with: ssh -i DIR/ssh/id_ed25519 -p PORT root@127.0.0.1
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IMAGE=$HERE/../../build/dut-image
SERIES=6.1
CONF=
PORT=10022
SMP=2
MEM=1024
EXTRA=
STAMP=
BZIMAGE=
QEMU_OPTS=
# Kernel options that shorten a TCG boot without hiding the console banner.
FAST_OPTS="mitigations=off tsc=reliable no_timer_check cryptomgr.notests i8042.noaux i8042.nomux i8042.nopnp i8042.dumbkbd"

while [ $# -gt 0 ]; do
	case "$1" in
	--image) IMAGE=$2; shift 2 ;;
	--series) SERIES=$2; shift 2 ;;
	--conf) CONF=$2; shift 2 ;;
	--port) PORT=$2; shift 2 ;;
	--smp) SMP=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--append) EXTRA=$2; shift 2 ;;
	--fast-opts) FAST_OPTS=$2; shift 2 ;;
	--timestamps) STAMP=1; shift ;;
	--bzimage) BZIMAGE=1; shift ;;
	--qemu-opts) QEMU_OPTS=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -e/{/^#/s/^# \?//p}' "$0"; exit 0 ;;
	*) echo "qemu-dev: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done

KDIR=$IMAGE/$SERIES
for f in vmlinuz initrd.img; do
	[ -s "$KDIR/$f" ] || { echo "qemu-dev: $KDIR/$f missing (run 'make image')" >&2; exit 1; }
done
# The PVH ELF skips real-mode setup and decompression under TCG.
KERNEL=$KDIR/vmlinuz
[ -z "$BZIMAGE" ] && [ -s "$KDIR/vmlinux" ] && KERNEL=$KDIR/vmlinux

TMP=$(mktemp -d /tmp/airlab-qemu-dev.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
INITRD=$KDIR/initrd.img
if [ -n "$CONF" ]; then
	[ -r "$CONF" ] || { echo "qemu-dev: cannot read cell config '$CONF'" >&2; exit 1; }
	mkdir -p "$TMP/root/etc/airlab"
	cp "$CONF" "$TMP/root/etc/airlab/cell.conf"
	# An uncompressed newc archive after the compressed ones: the kernel
	# unpacks it last, so its files win.
	(cd "$TMP/root" && find etc | cpio -o -H newc -R 0:0 --quiet) |
		cat "$KDIR/initrd.img" - >"$TMP/flashed.img"
	INITRD=$TMP/flashed.img
fi

QEMU=(qemu-system-x86_64 -accel tcg -m "$MEM" -smp "$SMP" -nodefaults
	-display none -no-reboot
	-kernel "$KERNEL" -initrd "$INITRD"
	-append "console=ttyS0 panic=-1 $FAST_OPTS $EXTRA"
	-netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$PORT-:22"
	-device virtio-net-pci,netdev=n0
	-serial stdio ${QEMU_OPTS:-})
echo "qemu-dev: ${QEMU[*]}" >&2
if [ -n "$STAMP" ]; then
	start=${EPOCHREALTIME/[.,]/}
	"${QEMU[@]}" </dev/null | while IFS= read -r line; do
		us=$((${EPOCHREALTIME/[.,]/} - start))
		printf '%4d.%03d %s\n' $((us / 1000000)) $((us / 1000 % 1000)) "${line%$'\r'}"
	done
else
	"${QEMU[@]}"
fi
