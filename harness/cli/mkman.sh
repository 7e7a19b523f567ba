#!/bin/sh
# mkman.sh AIRLAB > airlab.1: the manual page, made from the binary's own
# help (`airlab --help`, `airlab help COMMAND`), so the page, --help and
# the exit statuses cannot drift apart.
set -eu
airlab=$1

# troff: a backslash is \e, a minus is \-, a line may not start with . or '
esc() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

version=$("$airlab" --version | sed -n 's/^airlab \([^ ]*\) .*/\1/p')
commands=$("$airlab" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')

cat <<EOF
.TH AIRLAB 1 "" "airlab $version" "User Commands"
.SH NAME
airlab \\- drive a WiFi test lab, real or virtual: bring up, run, compare, sweep, bisect
.SH SYNOPSIS
.B airlab
[\\fICOMMON OPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]
.br
.B airlab help
[\\fICOMMAND\\fR] | \\fB\\-\\-version\\fR
.SH DESCRIPTION
airlab power-cycles and flashes the access points under test, associates
the stations, moves the RF attenuators, runs Flent-style suites, stores
their time series, compares runs and finds the commit that made a metric
worse. Without radios it drives the virtual lab (QEMU guests with
mac80211_hwsim and airlab's medium). Every option takes
\\fB\\-\\-opt value\\fR and \\fB\\-\\-opt=value\\fR alike.
.SH COMMON OPTIONS
EOF
"$airlab" help run | awk '/^Common options:/ { on = 1; next } /^[A-Z]/ { on = 0 } on' |
	while read -r flag arg rest; do
		printf '.TP\n.BR %s " %s"\n%s\n' "$(printf '%s' "$flag" | esc)" "$arg" "$(printf '%s' "$rest" | esc)"
	done
echo '.SH COMMANDS'
for c in $commands; do
	help=$("$airlab" help "$c" 2>/dev/null || true)
	usage=$(printf '%s\n' "$help" | sed -n 's/^Usage: airlab //p' | head -n 1)
	summary=$("$airlab" --help | awk -v c="$c" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
	printf '.SS "%s"\n' "$(printf '%s' "${usage:-$c}" | esc | sed 's/"/\\(dq/g')"
	printf '%s\n' "$summary" | esc
	opts=$(printf '%s\n' "$help" | awk '/^Options:/ { on = 1; next } /^[A-Z]/ { on = 0 } on')
	[ -n "$opts" ] || continue
	printf '%s\n' "$opts" | while IFS= read -r line; do
		# "  --flag ARG           what (default)": the flag part is
		# up to the first run of two spaces
		left=$(printf '%s' "$line" | sed -e 's/^  //' -e 's/   *.*//')
		right=$(printf '%s' "$line" | sed -e 's/^  [^ ]*\( [^ ][^ ]*\)\{0,1\}  *//')
		printf '.TP\n.B %s\n%s\n' "$(printf '%s' "$left" | esc)" "$(printf '%s' "$right" | esc)"
	done
done
echo '.SH EXIT STATUS'
"$airlab" --help | awk '/^Exit status:/ { on = 1; sub(/^Exit status: /, "") } on { sub(/^  /, ""); print }' |
	tr '\n' ' ' | sed 's/; */\n/g' | esc | sed -e 's/^ *//' -e 's/ *$//' -e '/^$/d' -e 's/^\([0-9]\) /.TP\n.B \1\n/'
echo
cat <<EOF
.PP
\\fBshell\\fR exits with the remote command's own status, 255 when airlab
could not run it; \\fBbisect\\-step\\fR speaks \\fBgit bisect run\\fR's
protocol (0 good, 1 bad, 125 skip).
.SH ENVIRONMENT
.TP
.B AIRLAB_ROOT
the airlab tree (lab/, topology/, kernel/, results/); default: the
directory above the binary's own (a symlink to it is followed).
.SH FILES
.TP
.I ROOT/results/
one directory per run (run.json, the Flent file, console.log), airlab.db
(the index), sweeps/, bisect/, nightly/, reports/
.TP
.I ROOT/lab/*.yaml
lab inventories: hosts and their power, flash, console, shell, AP and
attenuator drivers
.TP
.I ROOT/topology/*.yaml
test cells: the AP, the stations, their RF paths
.TP
.I ROOT/kernel/*.yaml
stack variants
.SH EXAMPLES
.nf
airlab up
airlab run rrul \\-\\-length 60
airlab compare \\-\\-baseline last\\-good RUN
airlab sweep \\-\\-path path1 \\-\\-from 0 \\-\\-to 60 \\-\\-step 10
.fi
EOF
