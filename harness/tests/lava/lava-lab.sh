#!/bin/bash
# lava-lab.sh: brings a real LAVA server + one worker up and down on this
# machine (Debian 12, root, no systemd needed), for tests.
#
#   lava-lab.sh up STATE_DIR                      install if needed, start, provision
#   lava-lab.sh add-device STATE_DIR NAME JINJA2  install a device dictionary, add/update the device
#   lava-lab.sh down STATE_DIR                    stop what `up` started
#
# Environment: LAVA_PORT (default 8000) for gunicorn on 127.0.0.1.
# STATE_DIR receives *.pid, *.log, token (REST token secret, mode 600),
# port and postgres.started (present when `up` started PostgreSQL).
set -euo pipefail

PKGS=(postgresql lava-server lava-dispatcher lavacli qemu-system-x86 cpio curl
	busybox-static zstd)
PY=/usr/bin/python3
WORKER=worker1
DEVTYPE=qemu
DEVDIR=/etc/lava-server/dispatcher-config/devices
# Debian's python3 (with django) first: another python3 on PATH may lack it.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

say() { echo "lava-lab: $*"; }
die() {
	echo "lava-lab: error: $*" >&2
	exit 1
}
usage() {
	echo "usage: $0 up STATE_DIR | add-device STATE_DIR NAME JINJA2_FILE | down STATE_DIR" >&2
	exit 2
}

need_root() { [ "$(id -u)" = 0 ] || die "must run as root"; }

manage() { /usr/bin/lava-server manage "$@"; }

# The PostgreSQL cluster as "VERSION NAME" (the first one pg_lsclusters lists).
pg_cluster() { pg_lsclusters -h 2>/dev/null | awk 'NR==1{print $1, $2}'; }
pg_online() { pg_lsclusters -h 2>/dev/null | awk 'NR==1{print $4}' | grep -q '^online'; }

pkgs_missing() {
	local p missing=()
	for p in "${PKGS[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
	echo "${missing[*]}"
}

apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y --no-install-recommends "$@"; then
		say "apt-get install failed; apt-get update and retry"
		apt-get update
		apt-get install -y --no-install-recommends "$@"
	fi
}

start_postgres() {
	local st=$1
	if pg_online; then
		say "postgresql already running"
		return
	fi
	local c
	c=$(pg_cluster)
	[ -n "$c" ] || die "no PostgreSQL cluster (pg_lsclusters is empty)"
	say "starting postgresql $c"
	# shellcheck disable=SC2086 # "VERSION NAME"
	pg_ctlcluster $c start
	echo "$c" >"$st/postgres.started"
	local n=0
	until pg_online; do
		n=$((n + 1))
		[ $n -lt 60 ] || die "postgresql did not come online"
		sleep 0.5
	done
}

have_lava_db() {
	su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname='lavaserver'\"" 2>/dev/null |
		grep -q 1
}

# Is process $1 alive (a zombie is not)?
alive() {
	local s
	s=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	case "$s" in Z*) return 1 ;; esac
}

# Is the process whose pid is in file $1 alive?
pid_alive() {
	[ -s "$1" ] && alive "$(cat "$1")"
}

# start NAME STATE_DIR CMD...: runs CMD in its own session (so `down` can
# stop its whole process group), pid in NAME.pid, output in NAME.log.
# wait_for ST NAME WHAT CMD...: polls CMD (quiet) every 0.5 s for 60 s
# while NAME's process lives; dies naming WHAT and NAME's log otherwise.
wait_for() {
	local st=$1 name=$2 what=$3 n=0
	shift 3
	until "$@" >/dev/null 2>&1; do
		n=$((n + 1))
		[ $n -lt 120 ] || die "$what: not after 60 s (see $st/$name.log)"
		pid_alive "$st/$name.pid" || die "$name died (see $st/$name.log)"
		sleep 0.5
	done
}

worker_online() { api "$1" "/api/v0.2/workers/$WORKER/" | grep -q '"state": *"Online"'; }

start_bg() {
	local name=$1 st=$2
	shift 2
	if pid_alive "$st/$name.pid"; then
		say "$name already running (pid $(cat "$st/$name.pid"))"
		return
	fi
	setsid "$@" >>"$st/$name.log" 2>&1 </dev/null &
	echo $! >"$st/$name.pid"
	say "$name started (pid $!, log $st/$name.log)"
}

api() {
	local st=$1 path=$2
	shift 2
	curl -fsS -H "Authorization: Token $(cat "$st/token")" "$@" \
		"http://127.0.0.1:$(cat "$st/port")$path"
}

cmd_up() {
	local st=$1
	need_root
	mkdir -p "$st"
	st=$(cd "$st" && pwd)
	chmod 700 "$st"
	local port=${LAVA_PORT:-8000}
	echo "$port" >"$st/port"
	local t0=$SECONDS

	# PostgreSQL must be running when lava-server's postinst runs, or the
	# database is silently not created.
	if ! dpkg-query -W -f='${Status}' postgresql 2>/dev/null | grep -q 'install ok installed'; then
		say "installing postgresql"
		apt_install postgresql
	fi
	start_postgres "$st"

	local missing
	missing=$(pkgs_missing)
	if [ -n "$missing" ]; then
		say "installing: $missing"
		# shellcheck disable=SC2086 # word list
		apt_install $missing
	else
		say "packages already installed"
	fi
	if ! have_lava_db; then
		say "database lavaserver missing: running lava-server's postinst.py"
		$PY /usr/share/lava-server/postinst.py
		have_lava_db || die "database lavaserver still missing after postinst.py"
	fi
	say "installed and database ready after $((SECONDS - t0)) s"

	# ---- provisioning (idempotent) ----
	if ! manage users list 2>/dev/null | grep -qw admin; then
		manage users add admin --superuser --staff \
			--passwd "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" >/dev/null
		say "user admin added"
	fi
	if [ ! -s "$st/token" ] || ! manage tokens list --user admin 2>/dev/null | grep -qF "$(cat "$st/token")"; then
		(
			umask 077
			head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$st/token"
		)
		manage tokens add --user admin --secret "$(cat "$st/token")" >/dev/null
		say "REST token created ($st/token)"
	fi
	chmod 600 "$st/token"
	if ! manage workers list 2>/dev/null | grep -qw "$WORKER"; then
		manage workers add "$WORKER" >/dev/null
		say "worker $WORKER added"
	fi
	local wtoken
	wtoken=$(manage workers details "$WORKER" | awk '$1 == "token"{print $3}')
	[ -n "$wtoken" ] || die "no token for worker $WORKER"
	if ! manage device-types list 2>/dev/null | grep -qw "$DEVTYPE"; then
		manage device-types add "$DEVTYPE" >/dev/null
		say "device type $DEVTYPE added"
	fi

	# ---- services ----
	start_bg gunicorn "$st" /usr/bin/gunicorn3 lava_server.wsgi --log-level INFO \
		--log-file - -u lavaserver -g lavaserver --worker-class eventlet \
		--workers 2 --bind "127.0.0.1:$port"
	# The scheduler drops to user lavaserver before it opens a log file:
	# it logs to stdout (our root-owned log) instead.
	start_bg scheduler "$st" /usr/bin/lava-server manage lava-scheduler --level INFO \
		--log-file -
	say "waiting for the REST API on http://127.0.0.1:$port"
	wait_for "$st" gunicorn "the REST API" api "$st" /api/v0.2/system/version/
	say "REST API answers: $(api "$st" /api/v0.2/system/version/)"
	# The token in a file, not on the command line (ps).
	(
		umask 077
		printf '%s\n' "$wtoken" >"$st/worker.token"
	)
	start_bg worker "$st" /usr/bin/lava-worker --level INFO \
		--url "http://127.0.0.1:$port/" --token-file "$st/worker.token" \
		--name "$WORKER" --log-file -
	say "waiting for $WORKER to be online"
	wait_for "$st" worker "$WORKER online" worker_online "$st"
	say "$WORKER online ($((SECONDS - t0)) s)"
	say "up at http://127.0.0.1:$port (token in $st/token)"
}

cmd_add_device() {
	local st=$1 name=$2 file=$3
	need_root
	[ -r "$file" ] || die "cannot read $file"
	install -D -m 0644 -o lavaserver -g lavaserver "$file" "$DEVDIR/$name.jinja2"
	if manage devices list --all 2>/dev/null | grep -qw "$name"; then
		manage devices update --worker "$WORKER" --health GOOD "$name"
		say "device $name updated"
	else
		manage devices add --device-type "$DEVTYPE" --worker "$WORKER" "$name"
		say "device $name added"
	fi
}

# stop NAME STATE_DIR: TERM to the process group, KILL after 20 s.
stop_bg() {
	local name=$1 st=$2 pid n=0
	[ -s "$st/$name.pid" ] || return 0
	pid=$(cat "$st/$name.pid")
	if alive "$pid"; then
		say "stopping $name (pid $pid)"
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
		# Until the leader and all of its process group are gone.
		while alive "$pid" || [ -n "$(ps -o pid= -o stat= -g "$pid" 2>/dev/null | awk '$2 !~ /^Z/')" ]; do
			n=$((n + 1))
			if [ $n -eq 40 ]; then
				say "$name still alive after 20 s: SIGKILL"
				kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
			fi
			[ $n -lt 60 ] || die "$name (pid $pid) did not stop"
			sleep 0.5
		done
	fi
	rm -f "$st/$name.pid"
}

cmd_down() {
	local st=$1
	need_root
	[ -d "$st" ] || die "no state directory $st"
	stop_bg worker "$st"
	stop_bg scheduler "$st"
	stop_bg gunicorn "$st"
	if [ -s "$st/postgres.started" ]; then
		local c
		c=$(cat "$st/postgres.started")
		say "stopping postgresql $c"
		# shellcheck disable=SC2086
		pg_ctlcluster $c stop || true
		rm -f "$st/postgres.started"
	fi
	say "down"
}

[ $# -ge 1 ] || usage
case "$1" in
up)
	[ $# -eq 2 ] || usage
	cmd_up "$2"
	;;
add-device)
	[ $# -eq 4 ] || usage
	cmd_add_device "$2" "$3" "$4"
	;;
down)
	[ $# -eq 2 ] || usage
	cmd_down "$2"
	;;
*) usage ;;
esac
