#!/usr/bin/env bash
# Integration test of the virtual lab, driven through the airlab CLI as a
# user would: boot, associate, ping through the AP, shell exit status,
# console, power cycle, both kernel variants, bad input, power off.
set -u
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d /tmp/airlab-it.XXXXXX)
lab=$(make_test_lab "$work")
state="$work/state/dut1"
al() { "$AIRLAB" --lab "$lab" "$@"; }
cleanup() {
	al down >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# -- stock-6.1: boot and associate all four stations --------------------
al up --require-all --variant stock-6.1 >"$work/up.out" 2>"$work/up.err"
rc=$?
cat "$work/up.out"
if [ $rc -eq 0 ]; then ok "up stock-6.1 (exit 0)"; else
	not_ok "up stock-6.1 exited $rc"; cat "$work/up.err"; fi
check "4 stations associated" \
	test "$(grep -cE '^sta[0-9]+ +yes ' "$work/up.out")" -eq 4
check "up reports kernel 6.1" grep -q 'kernel 6\.1\.' "$work/up.out"
check "serial history has the 6.1 kernel banner" \
	grep -q 'Linux version 6\.1\.' "$state/serial.log"
check "console log has the ready marker, timestamped" \
	grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z .*airlab-init: ready' "$state/console.log"

for s in sta1 sta2 sta3 sta4; do
	check "$s pings the server through the AP" \
		al shell dut1 -- /usr/sbin/ip netns exec "$s" ping -c 2 -W 3 10.43.0.2
done

al shell dut1 -- sh -c 'exit 7'
check "shell returns the remote exit status (7)" test $? -eq 7
check "shell returns 0 for true" al shell dut1 -- true
out=$(al shell dut1 -- echo "it's quoted")
check "shell passes arguments intact" test "$out" = "it's quoted"

qd=$(al shell dut1 -- tc qdisc show dev wlan0)
echo "stock-6.1 wlan0: $qd"
check "stock-6.1: wlan0 root is pfifo limit 1000" \
	grep -qE 'qdisc pfifo [0-9a-f]+: root .*limit 1000p' <<<"$qd"

# The console CLI: what the guest writes to its serial port reaches us.
al console dut1 --timeout 8 --log "$work/console.log" </dev/null >"$work/console.out" &
cpid=$!
sleep 2
al shell dut1 -- sh -c 'echo airlab-console-probe >/dev/ttyS0'
wait $cpid
check "console shows what the guest writes on ttyS0" \
	grep -q airlab-console-probe "$work/console.out"
check "console --log keeps it" grep -q airlab-console-probe "$work/console.log"

# -- power cycle: the DUT really goes down and the cell comes back ------
boot1=$(al shell dut1 -- cat /proc/sys/kernel/random/boot_id)
pid1=$(cat "$state/qemu.pid" 2>/dev/null)
al power cycle dut1
check "power cycle exits 0" test $? -eq 0
boot2=$(al shell dut1 -- cat /proc/sys/kernel/random/boot_id)
check "power cycle rebooted the guest (new boot_id)" \
	test -n "$boot2" -a "$boot1" != "$boot2"
# Gone = no such process, or a zombie waiting for its (re)parent to reap it.
gone() {
	test -n "$1" || return 1
	[ -d "/proc/$1" ] || return 0
	[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]
}
check "power cycle ended the old QEMU process" gone "$pid1"
al status --wait 60 >"$work/status.out"
cat "$work/status.out"
check "all 4 stations associate again after the cycle" \
	test "$(grep -cE '^sta[0-9]+ +yes ' "$work/status.out")" -eq 4

# -- mac80211-6.12: reflash + reboot, intermediate queues ---------------
al up --require-all --variant mac80211-6.12 >"$work/up2.out" 2>"$work/up2.err"
rc=$?
cat "$work/up2.out"
if [ $rc -eq 0 ]; then ok "up mac80211-6.12 (exit 0)"; else
	not_ok "up mac80211-6.12 exited $rc"; cat "$work/up2.err"; fi
check "up reports kernel 6.12" grep -q 'kernel 6\.12\.' "$work/up2.out"
check "serial history has the 6.12 kernel banner" \
	grep -q 'Linux version 6\.12\.' "$state/serial.log"
qd2=$(al shell dut1 -- tc qdisc show dev wlan0)
echo "mac80211-6.12 wlan0: $qd2"
check "mac80211-6.12: wlan0 has noqueue" grep -q 'qdisc noqueue' <<<"$qd2"
check "the two variants queue differently" test "$qd" != "$qd2"

# -- bad input ------------------------------------------------------------
printf 'lab: x\nhosts:\n  dut1:\n    power: [1, 2\n' >"$work/bad.yaml"
err=$("$AIRLAB" --lab "$work/bad.yaml" status 2>&1)
rc=$?
check "malformed lab file: exit 2, bad input (got $rc)" test $rc -eq 2
check "malformed lab file: file:line error" \
	grep -qE "^airlab: $work/bad.yaml:[0-9]+: " <<<"$err"
err=$(al up --variant no-such-variant 2>&1)
check "unknown variant lists the known ones" grep -q 'stock-6.1' <<<"$err"

# -- down ------------------------------------------------------------------
pid=$(cat "$state/qemu.pid" 2>/dev/null)
al down
check "down: power reads off" grep -q 'dut1: off' <<<"$(al power status dut1)"
check "down: the QEMU process is gone" gone "$pid"
out=$(al shell dut1 -- true 2>&1)
check "shell to a powered-off DUT fails with an error naming it" \
	grep -q 'dut1' <<<"$out"

# A kernel that panics at boot (no init in the initramfs, no root): said at
# once with the panic's line, booted boot_attempts times, never a wait for
# the timeout.
sed -e 's#^\(      boot_timeout_s:\).*#\1 100\n      boot_attempts: 2\n      append: rdinit=/airlab-no-such-init#' \
	"$lab" >"$work/panic.yaml"
t0=$(date +%s)
err=$("$AIRLAB" --lab "$work/panic.yaml" up --variant stock-6.1 2>&1)
rc=$?
took=$(($(date +%s) - t0))
check "panicking kernel: up fails with exit 4, the lab (exit $rc)" test $rc -eq 4
check "panicking kernel: the error quotes the panic" \
	grep -q "^airlab: dut1: the kernel panicked while booting: 'Kernel panic - not syncing: [^']\+' (the whole trace is in " <<<"$err"
check "panicking kernel: booted twice (boot_attempts: 2)" \
	test "$(grep -c "waiting for 'airlab-init: ready'" <<<"$err")" -eq 2
check "panicking kernel: attempt 2 said" grep -q 'booting again (attempt 2 of 2)' <<<"$err"
check "panicking kernel: given up in ${took} s, well before 2 x 100 s" test "$took" -lt 100
check "panicking kernel: both traces in the console log" \
	test "$(grep -c 'Kernel panic - not syncing' "$state/console.log")" -ge 2
"$AIRLAB" --lab "$work/panic.yaml" down >/dev/null 2>&1

finish
