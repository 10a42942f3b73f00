# Helpers of the scripts that start and stop daemons by hand under one
# directory (scripts/ceph-minicluster, scripts/xrootd-server), sourced
# after the script sets $prog. Messages go to stderr, prefixed "$prog: ".
# shellcheck shell=bash

die() {
	echo "$prog: $*" >&2
	exit 1
}
say() { echo "$prog: $*" >&2; }

# The directory as an absolute path, without resolving it into something else.
absdir() {
	case $1 in
	/*) printf '%s\n' "${1%/}" ;;
	*) printf '%s\n' "$PWD/${1%/}" ;;
	esac
}

# Does a socket use local TCP port $1 (IPv4 or IPv6, any address)? With
# a second argument "listen", only a listening socket counts.
port_used() {
	local hex state=
	hex=$(printf '%04X' "$1")
	[ "${2-}" = listen ] && state=0A
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$hex" -v st="$state" 'NR > 1 && (st == "" || $4 == st) {
			split($2, a, ":"); if (a[2] == p) f = 1 } END { exit !f }'
}
port_busy() { port_used "$1" listen; }

log_tail() { # file: the last lines of a daemon log, indented, to stderr
	[ -s "$1" ] || return 0
	echo "--- last lines of $1:" >&2
	tail -n 15 "$1" | sed 's/^/    /' >&2
}

# Does process $1 exist (a zombie counts as gone)?
running() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# Sends SIGTERM to daemon $1 (pid $2), waits up to 20 s, then SIGKILL.
stop_one() {
	local name=$1 pid=$2 end
	say "stopping $name (pid $pid)"
	kill -TERM "$pid" 2>/dev/null || return 0
	end=$((SECONDS + 20))
	while running "$pid" && [ "$SECONDS" -lt "$end" ]; do sleep 0.2; done
	if running "$pid"; then
		say "$name (pid $pid) still runs after 20 s: SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		end=$((SECONDS + 5))
		while running "$pid" && [ "$SECONDS" -lt "$end" ]; do sleep 0.1; done
		! running "$pid" || { say "$name (pid $pid) survives SIGKILL"; return 1; }
	fi
}
