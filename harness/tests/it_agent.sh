#!/usr/bin/env bash
# airlab-agent against the reference tools, over a veth pair between two
# network namespaces this test creates (and removes). The link is shaped
# with tbf (the host kernel has no netem/fq_codel) so TCP is limited by the
# link, not by the CPU, and a loaded queue gives RTTs worth comparing. At
# 100 Mbit/s CPU contention on a 2-core host swings either tool's goodput
# by 15 % from run to run; at 20 Mbit/s with a 100 ms buffer both sit at
# the link rate:
#  - TCP goodput of one 10 s agent flow vs iperf3 over the same path: 5 %
#  - UDP RTT median vs irtt, idle and under load (both probing the same
#    queue at once): 10 % or 0.5 ms, whichever is larger
#  - rrul, tcp_nup and rtt_fair result files that Debian's flent opens and
#    plots.
set -u
. "$(dirname "$0")/lib.sh"
AGENT=$ROOT/build/guest/airlab-agent
RUNNER=$ROOT/build/airlab-suite-local
RATE=${AIRLAB_IT_RATE:-20mbit}
D=$(mktemp -d /tmp/it_agent.XXXXXX)
SRV=alit-srv-$$
STA=alit-sta-$$
SRV_IP=10.199.$((RANDOM % 200)).1
STA_IP=${SRV_IP%.1}.2
PIDS=()

cleanup() {
	exec 3>&-
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$SRV" 2>/dev/null
	ip netns del "$STA" 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT

make -s -C "$ROOT" build/guest/airlab-agent build/airlab-suite-local >"$D/make.log" 2>&1 ||
	{ cat "$D/make.log"; not_ok "build agent and runner"; finish; exit 1; }
for tool in iperf3 irtt flent; do
	command -v $tool >/dev/null || { not_ok "$tool is installed (make deps)"; finish; exit 1; }
done

ip netns add "$SRV" && ip netns add "$STA" &&
	ip link add alit0-$$ type veth peer name alit1-$$ &&
	ip link set alit0-$$ netns "$SRV" && ip link set alit1-$$ netns "$STA" &&
	ip -n "$SRV" addr add "$SRV_IP/24" dev alit0-$$ &&
	ip -n "$STA" addr add "$STA_IP/24" dev alit1-$$ &&
	ip -n "$SRV" link set alit0-$$ up && ip -n "$STA" link set alit1-$$ up &&
	ip -n "$SRV" link set lo up && ip -n "$STA" link set lo up &&
	tc -n "$SRV" qdisc add dev alit0-$$ root tbf rate "$RATE" burst 16kb latency 100ms &&
	tc -n "$STA" qdisc add dev alit1-$$ root tbf rate "$RATE" burst 16kb latency 100ms
if [ $? -ne 0 ]; then
	not_ok "namespaces $SRV/$STA with a $RATE tbf veth"
	finish
	exit 1
fi
ok "namespaces $SRV/$STA, veth shaped with tbf $RATE"

# Server agent: serves TCP and UDP until its input (fd 3) closes.
mkfifo "$D/srv.in"
ip netns exec "$SRV" "$AGENT" <"$D/srv.in" >"$D/srv.out" 2>&1 &
PIDS+=($!)
exec 3>"$D/srv.in"
printf 'serve tcp 5301\nserve udp 5302\n' >&3
ip netns exec "$SRV" iperf3 -s -p 5303 >/dev/null 2>&1 &
PIDS+=($!)
ip netns exec "$SRV" irtt server -b "$SRV_IP:5304" >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do
	grep -q "ok serve udp" "$D/srv.out" 2>/dev/null && break
	sleep 0.1
done
check "server agent serves tcp and udp" grep -q "ok serve udp 5302" "$D/srv.out"

# run_agent OUT LENGTH_S COMMANDS...: one client run, start 0.5 s ahead.
run_agent() {
	local out=$1 len=$2
	shift 2
	local t=$(($(date +%s%3N) + 500))
	{ printf '%s\n' "$@"; echo "start $t $len 200"; } >"$D/cmds"
	{ cat "$D/cmds"; sleep $((len + 6)); } |
		timeout $((len + 30)) ip netns exec "$STA" "$AGENT" >"$out" 2>&1
}

within() { # within A B REL ABS: |A-B| <= max(REL*B, ABS)
	awk -v a="$1" -v b="$2" -v r="$3" -v m="$4" \
		'BEGIN { d = a - b; if (d < 0) d = -d; l = r * b; if (l < m) l = m; exit !(d <= l) }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m }'; }

# ---- TCP goodput --------------------------------------------------------
# The agent and iperf3 run one after the other, so a busy host (CI) can
# shift one of them; a miss is measured once more before it counts.
measure_goodput() {
	run_agent "$D/tcp.out" 10 "flow tcp-up t1 $SRV_IP 5301 cc=cubic"
	a_bytes=$(awk '$1 == "sum" && $2 == "t1" { for (i = 3; i <= NF; i++) if ($i ~ /^bytes=/) print substr($i, 7) }' "$D/tcp.out")
	a_mbps=$(awk -v b="${a_bytes:-0}" 'BEGIN { printf "%.2f", b * 8 / 10 / 1e6 }')
	steps=$(grep -c '^s t1 ' "$D/tcp.out")
	ip netns exec "$STA" iperf3 -c "$SRV_IP" -p 5303 -t 10 -C cubic -J >"$D/iperf.json" 2>&1
	i_mbps=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.2f" % (d["end"]["sum_received"]["bits_per_second"]/1e6))' "$D/iperf.json" 2>/dev/null)
	echo "# TCP goodput over $RATE tbf, 10 s: agent $a_mbps Mbit/s, iperf3 ${i_mbps:-?} Mbit/s"
	[ -n "$i_mbps" ] && within "$a_mbps" "$i_mbps" 0.05 0
}
measure_goodput || measure_goodput
gp_rc=$?
check "agent flow ran 10 s at 200 ms steps ($steps samples)" [ "$steps" -ge 48 ]
if [ $gp_rc -eq 0 ]; then
	ok "agent TCP goodput $a_mbps within 5% of iperf3 $i_mbps Mbit/s"
else
	not_ok "agent TCP goodput $a_mbps vs iperf3 ${i_mbps:-none} Mbit/s (5%)"
fi

# ---- UDP RTT: idle, then under load with both probers at once ---------
irtt_median() { # irtt_median JSON -> ms
	python3 -c 'import json,sys; print("%.4f" % (json.load(open(sys.argv[1]))["stats"]["rtt"]["median"]/1e6))' "$1" 2>/dev/null
}
agent_median() { awk '$1 == "s" && $2 == "u1" { print $4 }' "$1" | median; }

compare_rtt() { # compare_rtt LABEL
	local label=$1 am im
	am=$(agent_median "$D/udp.out")
	im=$(irtt_median "$D/irtt.json")
	lost=$(awk '$1 == "sum" && $2 == "u1"' "$D/udp.out")
	echo "# UDP RTT median $label: agent ${am:-?} ms, irtt ${im:-?} ms ($lost)"
	if [ -n "$am" ] && [ -n "$im" ] && within "$am" "$im" 0.10 0.5; then
		ok "UDP RTT median $label: agent $am ms vs irtt $im ms"
	else
		not_ok "UDP RTT median $label: agent ${am:-none} ms vs irtt ${im:-none} ms"
	fi
}

ip netns exec "$STA" irtt client -Q -i 10ms -d 10s -o "$D/irtt.json" "$SRV_IP:5304" >/dev/null 2>&1 &
irtt_pid=$!
run_agent "$D/udp.out" 10 "probe udp u1 $SRV_IP 5302 interval_ms=10"
wait $irtt_pid
compare_rtt "idle"

ip netns exec "$STA" iperf3 -c "$SRV_IP" -p 5303 -t 16 >/dev/null 2>&1 &
load_pid=$!
sleep 2
ip netns exec "$STA" irtt client -Q -i 10ms -d 10s -o "$D/irtt.json" "$SRV_IP:5304" >/dev/null 2>&1 &
irtt_pid=$!
run_agent "$D/udp.out" 10 "probe udp u1 $SRV_IP 5302 interval_ms=10"
wait $irtt_pid
wait $load_pid
compare_rtt "under one TCP upload"

# 1 s at 100 ms: about 10 echoes (9 to 11, by where the ends fall);
# every one sent must be answered.
check "ICMP probe answered" bash -c "
	t=\$((\$(date +%s%3N) + 300))
	printf 'probe icmp i1 $SRV_IP interval_ms=100\nstart %s 1 200\n' \$t |
		(cat; sleep 4) | ip netns exec $STA $AGENT |
		awk '\$1 == \"sum\" && \$2 == \"i1\" { s = substr(\$3, 6) + 0; r = substr(\$4, 10) + 0; ok = (s >= 9 && s <= 11 && r == s) } END { exit !ok }'"

# ---- dev=: flows and probes leave from the interface they are bound to --
# A dead end in the station's namespace (a veth whose peer is its own,
# unaddressed, the host kernel has no dummy) holds an address but leads
# nowhere: bound to it, a flow to the server fails and its frames went out
# of it; bound to the link, a probe is answered; an unknown name is an
# error.
ip -n "$STA" link add alitd-$$ type veth peer name alite-$$ &&
	ip -n "$STA" addr add 10.198.$((RANDOM % 200)).2/24 dev alitd-$$ &&
	ip -n "$STA" link set alitd-$$ up && ip -n "$STA" link set alite-$$ up
deadend_tx() { ip netns exec "$STA" cat /sys/class/net/alitd-$$/statistics/tx_packets; }
tx0=$(deadend_tx)
run_agent "$D/dev.out" 3 "probe icmp i1 $SRV_IP interval_ms=100 dev=alit1-$$" \
	"flow tcp-up t1 $SRV_IP 5301 dev=alitd-$$" "flow tcp-up t2 $SRV_IP 5301 dev=nosuch$$"
tx1=$(deadend_tx)
cat "$D/dev.out" | grep -E '^(e|sum) ' >&2
check "probe bound to the veth (dev=alit1-$$) is answered" \
	awk '$1 == "sum" && $2 == "i1" { r = substr($4, 10) + 0 } END { exit !(r >= 20) }' "$D/dev.out"
check "flow bound to the dead end fails: no path from there" \
	awk '$1 == "sum" && $2 == "t1" && / connected=0 / { f = 1 } END { exit !f }' "$D/dev.out"
check "its frames went out of the dead end (tx_packets $tx0 -> $tx1)" [ "$tx1" -gt "$tx0" ]
check "an unknown interface: an error event naming it" \
	grep -q "^e t2 .*error SO_BINDTODEVICE nosuch$$ for $SRV_IP port 5301: No such device" "$D/dev.out"

# ---- marking on the wire ----------------------------------------------
# The server agent listens on a dual-stack socket, so an IPv4 client's
# connection is IPv4-mapped there; its packets are IPv4 and must carry the
# flow's DSCP all the same: the data of an EF download, the ACKs of an EF
# upload. Counted on the server's egress by an HTB whose u32 filter sends
# TOS 0xb8 (EF) to its own class. (IPV6_TCLASS on such a socket left them
# unmarked: every rrul download went out best effort.)
ef_sent() { tc -n "$SRV" -s class show dev alit0-$$ classid 1:10 | awk '/Sent/ { print $4; exit }'; }
if tc -n "$SRV" qdisc replace dev alit0-$$ root handle 1: htb default 20 &&
	tc -n "$SRV" class add dev alit0-$$ parent 1: classid 1:10 htb rate "$RATE" &&
	tc -n "$SRV" class add dev alit0-$$ parent 1: classid 1:20 htb rate "$RATE" &&
	tc -n "$SRV" filter add dev alit0-$$ parent 1: protocol ip u32 \
		match ip tos 0xb8 0xfc flowid 1:10; then
	run_agent "$D/mark.out" 2 "flow tcp-down m1 $SRV_IP 5301 tos=0xb8"
	ef_down=$(ef_sent)
	run_agent "$D/mark.out" 2 "flow tcp-up m2 $SRV_IP 5301 tos=0xb8"
	ef_up=$(ef_sent)
	ef_up=$((ef_up - ef_down))
	run_agent "$D/mark.out" 2 "flow tcp-down m3 $SRV_IP 5301"
	ef_none=$(($(ef_sent) - ef_down - ef_up))
	echo "# EF packets the server sent: download $ef_down, upload's ACKs $ef_up, unmarked download $ef_none"
	check "an EF download's data leave the server marked EF ($ef_down packets)" [ "$ef_down" -ge 500 ]
	check "an EF upload's ACKs leave the server marked EF ($ef_up packets)" [ "$ef_up" -ge 200 ]
	check "an unmarked download leaves unmarked ($ef_none EF packets)" [ "$ef_none" -eq 0 ]
else
	not_ok "an HTB with a u32 TOS filter on the server's veth"
fi
tc -n "$SRV" qdisc replace dev alit0-$$ root tbf rate "$RATE" burst 16kb latency 100ms

# ---- suites -> Flent files ---------------------------------------------
suite_file() { # suite_file NAME ARGS... ; prints the file path
	local name=$1
	shift
	"$RUNNER" --suite "$name" --length 5 --agent "$AGENT" \
		--server "$SRV,$SRV_IP" --tcp-port 5311 --udp-port 5312 \
		--out "$D/res" --title "it_agent" "$@" >"$D/$name.log" 2>&1
	local rc=$?
	cat "$D/$name.log" >&2
	[ $rc -eq 0 ] && sed -n 's/^wrote //p' "$D/$name.log"
}

flent_opens() { # flent_opens FILE PLOT
	local f=$1 plot=$2 png=$D/$(basename "$1" .flent.gz).$2.png
	flent -i "$f" -f summary >"$D/summary.txt" 2>&1 || { cat "$D/summary.txt"; return 1; }
	grep -q "Summary of" "$D/summary.txt" || return 1
	flent -i "$f" -p "$plot" -o "$png" >"$D/plot.txt" 2>&1 || { cat "$D/plot.txt"; return 1; }
	[ "$(stat -c %s "$png" 2>/dev/null || echo 0)" -gt 20000 ] || return 1
	[ -z "${AIRLAB_IT_KEEP:-}" ] || cp "$png" "$AIRLAB_IT_KEEP/"
}

f=$(suite_file rrul --station "$STA,sta1")
check "rrul run wrote a file" [ -n "$f" ]
[ -n "$f" ] && check "flent opens rrul: summary + all_scaled" flent_opens "$f" all_scaled
[ -n "$f" ] && check "rrul has the 18 series Flent's rrul plots" bash -c \
	"flent -i '$f' -f summary 2>/dev/null | grep -cE '^ (TCP (up|down)load (BE|BK|CS5|EF|avg|sum)|TCP totals|Ping \(ms\) (UDP (EF|BK|BE)|ICMP|avg)) ' | grep -qx 18"

# What a LAVA job hands back: the record (run.json's suite part) and one
# test case per headline figure, matching the run's own summary.
f=$(suite_file rrul --station "$STA,sta1" --record "$D/rrul.record.json" \
	--cases "$D/rrul.cases")
check "rrul --record: status complete, the Flent file named" \
	test "$(json_eval "$D/rrul.record.json" "d['status'] + ' ' + str(d['flent_file'] in '$f')")" = "complete True"
check "rrul --record: the summary's download and latency are numbers" \
	test "$(json_eval "$D/rrul.record.json" "d['summary']['down_mbps'] > 0 and d['summary']['latency_median_ms'] > 0")" = True
check "rrul --record: 8 flows, one station's goodput" \
	test "$(json_eval "$D/rrul.record.json" "len(d['flows']), len(d['station_goodput'])")" = "(8, 1)"
check "rrul --cases: the run and four figures, all pass" \
	test "$(grep -cE '^rrul-(run pass|(latency_median|latency_p90) pass [0-9.e+-]+ ms|goodput_(up|down) pass [0-9.e+-]+ Mbit/s)$' "$D/rrul.cases")" -eq 5
check "rrul --cases: the median latency is the record's" \
	test "$(awk '$1=="rrul-latency_median"{print $3}' "$D/rrul.cases")" = \
	"$(json_eval "$D/rrul.record.json" "'%.6g' % d['summary']['latency_median_ms']")"

f=$(suite_file tcp_nup --streams 4 --station "$STA,sta1")
check "tcp_nup run wrote a file" [ -n "$f" ]
[ -n "$f" ] && check "flent opens tcp_nup: summary + totals" flent_opens "$f" totals

f=$(suite_file rtt_fair --station "$STA,sta1" --station "$STA,sta2" \
	--station "$STA,sta3" --station "$STA,sta4")
check "rtt_fair run wrote a file" [ -n "$f" ]
[ -n "$f" ] && check "flent opens rtt_fair: summary + all_scaled" flent_opens "$f" all_scaled

# Flows the server never answers (the station is sent to its own address,
# where nothing listens) make a partial result, not a crash.
"$RUNNER" --suite tcp_1up --length 2 --agent "$AGENT" --server "$SRV,$STA_IP" \
	--tcp-port 5321 --udp-port 5322 --station "$STA,sta1" --out "$D/res2" >"$D/bad.log" 2>&1
rc=$?
check "flow to a closed port: run is partial (rc 3) with the reason" \
	bash -c "[ $rc -eq 3 ] && grep -q 'reasons:.*TCP upload.*error connect' '$D/bad.log'"

finish
