#!/usr/bin/env bash
# The bad-input battery: every case is a mistake a user makes (a typo in a
# command, a flag, a lab, topology, variant or plan file, a run that is not
# there) and must exit with its documented status (README "Exit status":
# 2 for bad input) with exactly one line on stderr that says what is wrong,
# nothing on stdout, and nothing started or written. No lab is needed: all
# of it is refused before the lab is touched.
set -u
. "$(dirname "$0")/lib.sh"

w=$(mktemp -d /tmp/airlab-it-bad.XXXXXX)
trap 'rm -rf "$w"' EXIT
LAB=$ROOT/lab/virtual.yaml
TOPO=$ROOT/topology/cell-4sta.yaml
# Results: a run whose Flent file is cut short, a results dir with no index.
mkdir -p "$w/res/cut-run" "$w/nodb"
printf '{"id": "cut-run", "suite": "rrul", "status": "complete", "flent_file": "rrul-cut.flent.gz"}\n' \
	>"$w/res/cut-run/run.json"
printf '\037\213\010\000' >"$w/res/cut-run/rrul-cut.flent.gz"
"$AIRLAB" reindex --out "$w/res" >/dev/null 2>&1

# bad CODE [--] REGEX ARGS...: airlab ARGS exits CODE, says one line on
# stderr matching REGEX (grep -E) and nothing on stdout ("--" before a
# REGEX that starts with "-").
bad() {
	local code=$1 re=$2 out err rc
	shift 2
	if [ "$re" = "--" ]; then
		re=$1
		shift
	fi
	out=$("$AIRLAB" "$@" 2>"$w/stderr")
	rc=$?
	err=$(cat "$w/stderr")
	if [ "$rc" -eq "$code" ] && [ -z "$out" ] &&
		[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ -n "$err" ] &&
		grep -Eq -- "$re" <<<"$err"; then
		ok "airlab $* -> $code: $err"
	else
		not_ok "airlab $* -> want $code and one line /$re/; got $rc, stdout '${out:0:200}', stderr: ${err:0:600}"
	fi
}

# A lab file with one line changed (sed expression), relative paths kept.
lab_with() {
	local name=$1
	shift
	sed "$@" "$LAB" >"$ROOT/lab/.bad-$name.yaml"
	echo "$ROOT/lab/.bad-$name.yaml"
}
topo_with() {
	local name=$1
	shift
	sed "$@" "$TOPO" >"$w/topo-$name.yaml"
	echo "$w/topo-$name.yaml"
}
trap 'rm -rf "$w" "$ROOT"/lab/.bad-*.yaml' EXIT

# -- the command line -------------------------------------------------------
bad 2 "unknown command 'frob'" frob
bad 2 "help: unknown command 'frob'" help frob
bad 2 -- "--lab needs a value" --lab
bad 2 -- "--topology needs a value" status --topology
bad 2 "unknown command '-x'" -x
bad 2 "which suite" run
bad 2 "unknown suite 'nosuch'" run nosuch
bad 2 "unexpected '--frob'" run rrul --frob
bad 2 -- "--length needs a value" run rrul --length
bad 2 -- "--length" run rrul --length abc
bad 2 -- "--length" run rrul --length -5
bad 2 -- "--step" run rrul --step 0
bad 2 -- "--streams .0. is not a whole number of flows" run rrul --streams 0
bad 2 -- "--streams" run rrul --streams many
bad 2 -- "--wait" run rrul --wait 0
bad 2 -- "--cc" run rrul --cc 'no way'
bad 2 "'notacc' is not a Linux TCP congestion control" run rrul --cc notacc
bad 2 "cannot write results there" run rrul --out /proc/airlab-results
bad 2 "unexpected 'extra'" run rrul extra
bad 2 -- "--length '' is not a positive number" run rrul --length=
bad 2 -- "--wait 'x'" up --wait x
bad 2 -- "--wait '0'" up --wait 0
bad 2 "unexpected 'extra'" up extra
bad 2 -- "--wait" status --wait soon
bad 2 "unexpected '--frob'" down --frob
bad 2 "expected on, off, cycle or status" power
bad 2 "expected on, off, cycle or status" power frob dut1
bad 2 "expected on, off, cycle or status" power on
bad 2 "no host 'nohost' in this lab \(hosts: dut1\)" power on nohost
bad 2 -- "--off 'x'" power cycle dut1 --off x
bad 2 -- "--off '99999'" power cycle dut1 --off 99999
bad 2 "which host" console
bad 2 "no host 'nohost'" console nohost
bad 2 -- "--timeout 'x'" console dut1 --timeout x
bad 2 "which host and command" shell
bad 2 "which host and command" shell dut1
bad 2 "which station" reassociate
bad 2 "no station 'sta9'" reassociate sta9
bad 2 "expected set PATH DB or get" atten
bad 2 "expected set PATH DB or get" atten set path1
bad 2 "'abc' is not a number of dB" atten set path1 abc
bad 2 "'inf' is not a number of dB" atten set path1 inf
bad 2 "no attenuator has RF path 'path9'" atten set path9 3
bad 2 "no attenuator has RF path 'path9'" atten get path9
bad 2 "expected set PATH DB or get" atten frob
bad 2 "expected stats or predict" medium
bad 2 "expected stats or predict" medium frob
bad 2 "predict" medium predict
bad 2 "rate" medium predict fast
bad 2 "mcs" medium predict mcs:99
bad 2 -- "--mtu" medium predict mcs:7 --mtu 0
bad 2 -- "--ampdu" medium predict mcs:7 --ampdu 0
bad 2 -- "--band" medium predict mcs:7 --band 3

# -- stored results ---------------------------------------------------------
bad 2 "no results database" runs --out "$w/nodb"
bad 2 "no results database" runs --out "$w/missing"
bad 2 -- "--last" runs --out "$w/res" --last 0
bad 2 -- "--last" runs --out "$w/res" --last x
bad 2 "which runs" compare
bad 2 "which runs" compare only-one
bad 2 "no run 'run-a'" compare run-a run-b --out "$w/res"
bad 2 "no run 'run-b'" compare cut-run run-b --out "$w/res"
bad 2 "only 'last-good'" compare --baseline best cut-run
bad 2 "unknown metric 'jitter'" compare a b --metric jitter
bad 2 -- "--threshold" compare a b --threshold x
bad 2 -- "--threshold" compare a b --threshold 20
bad 2 "flent.gz: truncated or corrupt" compare cut-run cut-run --out "$w/res"
bad 2 "give 1 to" report
bad 2 "no run directory" report nosuch --out "$w/res"
bad 2 "no night 2020-01-01" report --nightly 2020-01-01 --out "$w/res"
bad 2 "no sweep nosuch" report --sweep nosuch --out "$w/res"
bad 2 "take no runs" report cut-run --nightly 2020-01-01 --out "$w/res"

# -- nightly plans ------------------------------------------------------------
printf 'name: p\nvariants: [mac80211-6.12]\nsuites: [{name: ping, length: 3}]\n' >"$w/plan-ok.yaml"
printf 'name: p\nvariants: [mac80211-6.12\nsuites: [ping]\n' >"$w/plan-yaml.yaml"
printf 'name: p\nvariants: [mac80211-6.12]\nsuites:\n  - {name: rrul2}\n' >"$w/plan-suite.yaml"
printf 'name: p\nvariants: [mac80211-6.12]\nsuites: [{name: ping}]\nfrob: 1\n' >"$w/plan-key.yaml"
printf 'name: p\nvariants: [mac80211-6.12]\nsuites: [{name: ping, length: -3}]\n' >"$w/plan-len.yaml"
printf 'name: p\nvariants: []\nsuites: [{name: ping}]\n' >"$w/plan-novar.yaml"
printf 'name: p\nvariants: [mac80211-6.12]\nsuites: [{name: ping}]\nrepeat: 0\n' >"$w/plan-rep.yaml"
printf 'name: p\nvariants: [mac80211-6.12, stock-6.1]\nsuites: [{name: ping}, {name: rrul}]\nrepeat: 100\n' >"$w/plan-many.yaml"
printf 'name: p\nvariants: [mac80211-6.12]\nsuites: [{name: ping}]\nlab: %s/nolab.yaml\n' "$w" >"$w/plan-lab.yaml"
bad 2 "which plan" nightly
bad 2 "takes no plan" nightly "$w/plan-ok.yaml" --resume 2026-01-01
bad 2 "takes a night's name" nightly --resume ../x
bad 2 "--resume 2026-01-01: unable to open" nightly --resume 2026-01-01 --out "$w/res"
mkdir -p "$w/res/nightly/2026-01-02"
printf '{"status": "done", "runs": []}\n' >"$w/res/nightly/2026-01-02/progress.json"
bad 2 "the night has ended" nightly --resume 2026-01-02 --out "$w/res"
bad 2 "nope.yaml" nightly "$w/nope.yaml" --out "$w/nres"
bad 2 "plan-yaml.yaml:[0-9]+" nightly "$w/plan-yaml.yaml" --out "$w/nres"
bad 2 "plan-suite.yaml:4: .*unknown suite 'rrul2'" nightly "$w/plan-suite.yaml" --out "$w/nres"
bad 2 "plan-key.yaml:4: .*frob" nightly "$w/plan-key.yaml" --out "$w/nres"
bad 2 "plan-len.yaml:3: .*length" nightly "$w/plan-len.yaml" --out "$w/nres"
bad 2 "plan-novar.yaml:[0-9]+: .*variant" nightly "$w/plan-novar.yaml" --out "$w/nres"
bad 2 "plan-rep.yaml:4: .*repeat" nightly "$w/plan-rep.yaml" --out "$w/nres"
bad 2 "400 runs, at most" nightly "$w/plan-many.yaml" --out "$w/nres"
bad 2 "nolab.yaml" nightly "$w/plan-lab.yaml" --out "$w/nres"
check "no night directory was made by any refused plan" test ! -e "$w/nres"

# -- sweeps and bisect ------------------------------------------------------
bad 2 "give --path P --from DB --to DB --step DB, or --rates" sweep
bad 2 -- "--step" sweep --path path1 --from 0 --to 10
bad 2 "above 0 dB" sweep --path path1 --from 0 --to 10 --step 0
bad 2 -- "--from" sweep --path path1 --from x --to 10 --step 5
bad 2 "path9" sweep --path path9 --from 0 --to 10 --step 5
bad 2 "rates" sweep --rates bogus
bad 2 "'99' is not an HT MCS index" sweep --rates mcs:99
bad 2 -- "--dwell" sweep --path path1 --from 0 --to 10 --step 5 --dwell 0
bad 2 "unknown suite 'nosuch'" sweep --path path1 --from 0 --to 10 --step 5 --suite nosuch
bad 2 "unknown variant 'nosuch'" sweep --path path1 --from 0 --to 10 --step 5 --variant nosuch
bad 2 "sta9" sweep --rates mcs:7 --station sta9
t=$(topo_with one 's/path: path2/path: path1/')
bad 2 "no station of .* is on path path2: the sweep would move what it does not measure" \
	--topology "$t" sweep --path path1,path2 --from 0 --to 10 --step 5
check "no sweep directory was made by any refused sweep" test ! -e "$ROOT/results/sweeps/.bad"
git init -q "$w/repo" && git -C "$w/repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
bad 2 "give --repo, --good, --bad, --build and --metric" bisect
bad 2 "nowhere" bisect --repo "$w/nowhere" --good a --bad b --build true --metric latency
bad 2 "unknown metric 'jitter'" bisect --repo "$w/repo" --good HEAD --bad HEAD --build true --metric jitter
bad 2 -- "--runs .0. is not a whole number of runs" bisect --repo "$w/repo" --good HEAD --bad HEAD --build true --metric latency --runs 0
bad 2 -- "--max-runs" bisect --repo "$w/repo" --good HEAD --bad HEAD --build true --metric latency --runs 3 --max-runs 2
bad 2 "nosuchrev" bisect --repo "$w/repo" --good nosuchrev --bad HEAD --build true --metric latency --out "$w/bres"
bad 2 "unknown suite 'nosuch'" bisect --repo "$w/repo" --good HEAD --bad HEAD --build true --metric latency --suite nosuch

# -- LAVA ---------------------------------------------------------------------
bad 2 "unknown action 'frob'" lava frob
bad 2 "which plan" lava submit
bad 2 "which jobs" lava results
bad 2 "'abc' is not a LAVA job id" lava results abc --server http://127.0.0.1:9 --token-file /dev/null
bad 2 "server" lava results 1
bad 2 "not a plain name" lava export --worker 'a b'
bad 2 "nope.yaml" lava export --plan "$w/nope.yaml"
bad 2 "which plan, suite and variant" lava bench-run
bad 2 "token" lava submit "$w/plan-ok.yaml" --server http://127.0.0.1:9 --token-file "$w/no-token"
bad 2 -- "--timeout" lava submit "$w/plan-ok.yaml" --timeout 0

# -- lab files: refused with file:line before anything starts ----------------
printf 'lab: x\nhosts:\n  dut1:\n    power: [1, 2\n' >"$w/lab-yaml.yaml"
bad 2 "nolab.yaml" --lab "$w/nolab.yaml" status
bad 2 "lab-yaml.yaml:[0-9]+" --lab "$w/lab-yaml.yaml" status
l=$(lab_with key 's/^lab: virtual$/lab: virtual\nfrob: 1/')
bad 2 "\.bad-key\.yaml:[0-9]+: .*frob" --lab "$l" status
l=$(lab_with pdrv 's/driver: qemu$/driver: qemu-nope/')
bad 2 "\.bad-pdrv\.yaml:[0-9]+: .*qemu-nope" --lab "$l" status
l=$(lab_with pset 's/memory_mb: 1024/memory_mbb: 1024/')
bad 2 "\.bad-pset\.yaml:[0-9]+: .*unknown setting 'memory_mbb'" --lab "$l" power status dut1
l=$(lab_with baud 's/baud: 115200/baud: fast/')
bad 2 "\.bad-baud\.yaml:[0-9]+: .*baud 'fast'" --lab "$l" console dut1 --timeout 1
l=$(lab_with sport 's/port: 10022/port: many/')
# shell passes the remote status on: its own failures are 255, as ssh's
bad 255 "\.bad-sport\.yaml:[0-9]+: .*port 'many'" --lab "$l" shell dut1 -- true
l=$(lab_with place 's#port: "{state}/console"#port: "{nope}/console"#')
bad 2 "\.bad-place\.yaml:[0-9]+: dut1 console port: .*unknown placeholder '\{nope\}'" --lab "$l" console dut1 --timeout 1
l=$(lab_with paths 's/paths: path1 path2 path3 path4/paths: path1 path1/')
bad 2 "\.bad-paths\.yaml:[0-9]+: .*path 'path1' is both channel 1 and channel 2" --lab "$l" atten get
l=$(lab_with adrv 's/driver: virtual$/driver: nosuch-ap/')
bad 2 "\.bad-adrv\.yaml:[0-9]+: .*nosuch-ap" --lab "$l" status
l=$(lab_with atdrv 's/driver: medium$/driver: nosuch-atten/')
bad 2 "\.bad-atdrv\.yaml:[0-9]+: .*nosuch-atten" --lab "$l" atten get

# -- topologies and variants ---------------------------------------------------
bad 2 "notopo.yaml" --topology "$w/notopo.yaml" status
t=$(topo_with dup 's/name: sta2/name: sta1/')
bad 2 "topo-dup\.yaml:[0-9]+: .*sta1" --topology "$t" status
t=$(topo_with host 's/{name: sta3, host: dut1/{name: sta3, host: dut9/')
bad 2 "topo-host\.yaml:[0-9]+: .*dut9" --topology "$t" status
t=$(topo_with chan 's/channel: 6/channel: 0/')
bad 2 "topo-chan\.yaml:[0-9]+: .*channel" --topology "$t" status
t=$(topo_with psk 's/passphrase: airlab-virtual-psk/passphrase: short/')
bad 2 "topo-psk\.yaml:[0-9]+: .*passphrase" --topology "$t" status
t=$(topo_with key 's/^cell: cell-4sta$/cell: cell-4sta\nfrob: 1/')
bad 2 "topo-key\.yaml:[0-9]+: .*frob" --topology "$t" status
t=$(topo_with loss 's/base_loss_db: 65/base_loss_db: lots/')
bad 2 "topo-loss\.yaml:[0-9]+: .*lots" --topology "$t" status
bad 2 "unknown variant 'nosuch'" --variant nosuch status
printf 'variant: v-yaml\nkernel: "6.1"\nroot_qdisc: [pfifo\n' >"$w/v-yaml.yaml"
printf 'variant: v-key\nkernel: "6.1"\nfrob: 1\n' >"$w/v-key.yaml"
printf 'variant: v-ring\nkernel: "6.1"\ntxring: lots\n' >"$w/v-ring.yaml"
printf 'variant: v\nkernel: "6.1"\n' >"$w/v-name.yaml"
bad 2 "v-yaml.yaml:[0-9]+" --variant "$w/v-yaml.yaml" status
bad 2 "v-key.yaml:3: .*frob" --variant "$w/v-key.yaml" status
bad 2 "v-ring.yaml:3: txring 'lots'" --variant "$w/v-ring.yaml" status
bad 2 "v-name.yaml:1: variant 'v' does not match the file name" --variant "$w/v-name.yaml" status

# -- suite files: a user's ($AIRLAB_SUITES) that does not load is refused ----
# user_suite NAME FILE TEXT: $w/us-NAME/FILE.suite holds TEXT.
user_suite() {
	mkdir -p "$w/us-$1"
	printf '%b' "$3" >"$w/us-$1/$2.suite"
	echo "$w/us-$1"
}
head='description: mine\nflent: rrul\nplot: all_scaled\nlength: 60\n'
u=$(user_suite key rrul "${head}lenght: 30\nflows:\n  - {kind: icmp, series: Ping (ms) ICMP}\n")
AIRLAB_SUITES=$u bad 2 "us-key/rrul.suite:5: suite: unknown key 'lenght' \(known: description" run rrul
u=$(user_suite kind mine "${head}flows:\n  - {kind: icmp, series: Ping (ms) ICMP}\n  - {kind: tcp, series: TCP}\n")
AIRLAB_SUITES=$u bad 2 "us-kind/mine.suite:7: flows item: kind 'tcp' is not one of tcp-up, tcp-down, udp, icmp$" suites
u=$(user_suite series mine "${head}flows:\n  - kind: tcp-up\n    bulk: true\n")
AIRLAB_SUITES=$u bad 2 "us-series/mine.suite:6: flows item: 'series' is missing$" run ping
u=$(user_suite flows mine "$head")
AIRLAB_SUITES=$u bad 2 "us-flows/mine.suite:1: suite: 'flows' must be a list" nightly "$w/plan-ok.yaml" --out "$w/nres"
u=$(user_suite alike mine "${head}flows:\n  - {kind: icmp, scope: each, series: Ping (ms) ICMP}\n")
AIRLAB_SUITES=$u bad 2 "us-alike/mine.suite:6: .*scope each needs %h or %i" sweep --path path1 --from 0 --to 10 --step 5
AIRLAB_SUITES=$w/no-suites bad 2 "^airlab suites: AIRLAB_SUITES=.*/no-suites: No such file or directory$" suites

check "nothing was written under the results directory" test ! -e "$ROOT/results/.bad"
finish
