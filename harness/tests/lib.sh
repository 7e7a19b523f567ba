# Shared by the shell-level tests (it_*.sh) and the benchmark: a private
# copy of the virtual lab (own state dir, free SSH port) and TAP-like
# bookkeeping that ends with "N passed, N failed".
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
AIRLAB="$ROOT/build/airlab"
T_PASSED=0
T_FAILED=0

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# make_test_lab DIR [LAB]: writes DIR/lab.yaml, a copy of LAB (lab/virtual.yaml) with a
# state dir under DIR and a free port; prints the path.
make_test_lab() {
	local dir=$1 src=${2:-$ROOT/lab/virtual.yaml} port
	port=$(free_port)
	mkdir -p "$dir/state"
	sed -e "s#^state_dir:.*#state_dir: $dir/state#" \
		-e "s#^image_dir:.*#image_dir: $ROOT/build/dut-image#" \
		-e "s#127.0.0.1:100[0-9][0-9]#127.0.0.1:$port#" \
		-e "s#port: 100[0-9][0-9]\$#port: $port#" \
		"$src" >"$dir/lab.yaml"
	echo "$dir/lab.yaml"
}

# one_station_lab NAME: a private lab in $work (/tmp/airlab-it-NAME.*),
# $lab its file, $res its results dir, a one-station cell
# ($work/t1.yaml), al() to run airlab on both; on exit the DUT is powered
# down and $work removed (kept, and said so, when AIRLAB_KEEP is set).
one_station_lab() {
	work=$(mktemp -d "/tmp/airlab-it-$1.XXXXXX")
	lab=$(make_test_lab "$work")
	make_topology 1 "$work/t1.yaml"
	res=$work/results
	al() { "$AIRLAB" --lab "$lab" --topology "$work/t1.yaml" "$@"; }
	trap one_station_lab_cleanup EXIT
}
one_station_lab_cleanup() {
	al down >/dev/null 2>&1
	if [ -n "${AIRLAB_KEEP:-}" ]; then echo "# kept $work"; else rm -rf "$work"; fi
}

# make_topology N FILE: a cell with N stations on dut1 (one entry with
# count: N, sta1..staN).
make_topology() {
	local n=$1 f=$2
	{
		echo "cell: cell-${n}sta"
		echo "ap: {host: dut1, radio: radio0, ssid: airlab-cell, passphrase: airlab-virtual-psk, channel: 6}"
		echo "server: {host: dut1, link: veth}"
		echo "stations:"
		echo "  - {count: $n, name: sta\$n, host: dut1, radio: radio\$n, path: path\$n, base_loss_db: 60}"
	} >"$f"
}

# json_eval FILE EXPR: a Python expression over the JSON file (as d).
json_eval() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

ok() {
	T_PASSED=$((T_PASSED + 1))
	echo "ok - $*"
}

not_ok() {
	T_FAILED=$((T_FAILED + 1))
	echo "not ok - $*"
}

# check NAME CMD...: passes when CMD exits 0.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

finish() {
	echo "$T_PASSED passed, $T_FAILED failed"
	[ "$T_FAILED" -eq 0 ]
}
