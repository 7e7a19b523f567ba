#!/usr/bin/env bash
# The USB drivers end to end, in the virtual lab's guest (stock-6.1):
# dummy_hcd gives the guest a USB host controller whose devices are USB
# gadgets emulated in the same guest (airlab-usb-emu: an FT245R relay
# board and two USBRelay HID boards on FunctionFS, a Mini-Circuits
# attenuator on configfs HID), and airlab-usbtest drives airlab's real
# ftdi-relay, usb-hid-relay and minicircuits-usb drivers (libftdi,
# libusb) against them. Its ok / not ok lines are this test's.
# AIRLAB_USB_VARIANT picks another stack variant (mac80211-6.12: the same
# modules exist in Debian's 6.12).
set -u
. "$(dirname "$0")/lib.sh"

one_station_lab usb

variant=${AIRLAB_USB_VARIANT:-stock-6.1}
al up --variant "$variant" >"$work/up.out" 2>"$work/up.err"
rc=$?
if [ $rc -eq 0 ]; then ok "up $variant (exit 0)"; else
	not_ok "up $variant exited $rc"
	cat "$work/up.out" "$work/up.err"
	finish
	exit 1
fi

# The gadget side: four UDCs on dummy_hcd, configfs, the gadget functions
# and usbhid (which the drivers must detach).
al shell dut1 -- sh -c '
	modprobe dummy_hcd num=4 && modprobe libcomposite && modprobe usb_f_hid &&
	modprobe usb_f_fs && modprobe usbhid &&
	{ grep -q " /sys/kernel/config " /proc/mounts ||
		mount -t configfs none /sys/kernel/config; } &&
	ls /sys/class/udc' >"$work/udc.out" 2>&1
rc=$?
check "guest loads dummy_hcd, libcomposite, usb_f_hid, usb_f_fs, usbhid (exit $rc)" test $rc -eq 0
check "dummy_hcd gives four UDCs" \
	test "$(grep -c '^dummy_udc\.[0-3]$' "$work/udc.out")" -eq 4
[ $rc -eq 0 ] || cat "$work/udc.out"

timeout 170 "$AIRLAB" --lab "$lab" --topology "$work/t1.yaml" shell dut1 -- \
	airlab-usbtest dummy_udc.0 dummy_udc.1 dummy_udc.2 dummy_udc.3 \
	>"$work/usbtest.out" 2>"$work/usbtest.err"
rc=$?
while IFS= read -r line; do
	case "$line" in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) not_ok "${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
done <"$work/usbtest.out"
check "airlab-usbtest ran to its end (exit $rc)" \
	grep -q '^# usbtest: [0-9]* passed, 0 failed$' "$work/usbtest.out"
if [ $rc -ne 0 ]; then
	echo "# airlab-usbtest stderr:"
	sed 's/^/#   /' "$work/usbtest.err"
	al shell dut1 -- sh -c 'dmesg | grep -iE "usb|gadget|hid|ffs" | tail -40' | sed 's/^/#   /'
fi

finish
