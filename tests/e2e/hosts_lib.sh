# Test hosts for the several-hosts tests (issue 46, docs/hosts.md): each
# "host" is a Linux network namespace, joined to the others by a veth pair
# on a bridge that lives in a namespace of its own (nothing outside the
# machine, nothing in the machine's own network), and a time namespace
# whose CLOCK_MONOTONIC is offset from the machine's by a known, possibly
# fractional, number of seconds. Each namespace pair is kept alive by a
# holder process, which also ends within a second of the test's shell (a
# test killed outright leaves no namespace behind); commands reach a host through tests/e2e/hosts_rsh
# (nsenter into the holder's network and time namespaces), which is what
# the tests give corecap as --rsh. Everything goes when the test exits
# (hosts_teardown, called from e2e_cleanup_hook).
#
# Usage, after lib.sh and e2e_workdir (or analysis_lib.sh):
#   need_hosts                  # exits 77, saying why, when the kernel cannot
#   hosts_add NAME OFFSET_S     # e.g. hosts_add b 37.5; sets HOST_ADDR
#   hosts_abc                   # need_hosts, then a (0), b (+37.5 s), c (-12.25 s)
#   hosts_rsh NAME CMD...       # runs CMD in host NAME
#   HOSTS_RSH                   # the --rsh command: "hosts_rsh DIR"
#
# The offsets are written to /proc/self/timens_offsets by a tiny helper
# (perl's syscall(2): unshare(CLONE_NEWNET|CLONE_NEWTIME), write, exec)
# before any process enters the new time namespace: unshare(1)'s
# --monotonic takes whole seconds only, and the kernel freezes a time
# namespace's offsets once a process is in it.

HOSTS_DIR=""
HOSTS_RSH=""
HOST_ADDR=""
_hosts_n=0
_hosts_holders=()

# The x86_64 and aarch64 numbers of unshare(2); CLONE_NEWNET|CLONE_NEWTIME.
_hosts_unshare_nr() {
	case $(uname -m) in
	x86_64) echo 272 ;;
	aarch64) echo 97 ;;
	*) echo "" ;;
	esac
}

need_hosts() {
	[ "$(id -u)" -eq 0 ] || skip "the test hosts need root (network and time namespaces)"
	[ -e /proc/self/timens_offsets ] ||
		skip "this kernel has no time namespaces (CONFIG_TIME_NS: no /proc/self/timens_offsets)"
	[ -n "$(_hosts_unshare_nr)" ] || skip "no unshare(2) number known for $(uname -m)"
	local t
	for t in ip nsenter perl; do
		command -v "$t" >/dev/null || skip "$t is not installed (the test hosts need it)"
	done
	HOSTS_DIR=$(mktemp -d "/tmp/hosts-e2e.XXXXXX")
	chmod 700 "$HOSTS_DIR"
	HOSTS_RSH="$CORECAP_SRC/tests/e2e/hosts_rsh $HOSTS_DIR"
	_hosts_spawn switch 0 || skip "cannot make a network namespace here: $(cat "$HOSTS_DIR/switch.err")"
	_hosts_in switch ip link add br0 type bridge 2>"$HOSTS_DIR/br.err" ||
		skip "cannot make a bridge in a network namespace: $(cat "$HOSTS_DIR/br.err")"
	_hosts_in switch ip link set br0 up
}

# _hosts_spawn NAME OFFSET_S: a holder in new network and time namespaces,
# its monotonic clock OFFSET_S seconds (decimal, signed) from the machine's.
# Its PID goes to $HOSTS_DIR/NAME.pid once the offset is written.
_hosts_spawn() {
	local name=$1 off=$2 sec nsec i
	# The kernel wants whole seconds and nanoseconds in [0, 1e9): -12.25 s is -13 s + 0.75e9 ns.
	read -r sec nsec < <(awk -v o="$off" 'BEGIN {
		ns = o * 1e9; s = int(ns / 1e9); r = ns - s * 1e9
		if (r < 0) { s -= 1; r += 1e9 }
		printf "%d %d\n", s, int(r + 0.5) }')
	perl -e '
		my ($nr, $pidf, $off) = (shift, shift, shift);
		syscall($nr, 0x40000080) == 0 or die "unshare(CLONE_NEWNET|CLONE_NEWTIME): $!\n";
		open(my $f, ">", "/proc/self/timens_offsets") or die "cannot open timens_offsets: $!\n";
		print $f "monotonic $off\n";
		close($f) or die "cannot write timens_offsets \"monotonic $off\": $!\n";
		open(my $p, ">", "$pidf.tmp") or die "$pidf.tmp: $!\n";
		print $p "$$\n";
		close($p);
		rename("$pidf.tmp", $pidf) or die "$pidf: $!\n";
		exec @ARGV or die "exec: $!\n";' \
		"$(_hosts_unshare_nr)" "$HOSTS_DIR/$name.pid" "$sec $nsec" \
		sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done' holder "$$" \
		</dev/null >/dev/null 2>"$HOSTS_DIR/$name.err" &
	disown
	for i in $(seq 1 100); do
		if [ -s "$HOSTS_DIR/$name.pid" ]; then
			_hosts_holders+=("$(cat "$HOSTS_DIR/$name.pid")")
			return 0
		fi
		[ -s "$HOSTS_DIR/$name.err" ] && return 1
		sleep 0.02
	done
	echo "holder of $name did not start in 2 s" >>"$HOSTS_DIR/$name.err"
	return 1
}

_hosts_in() {
	local name=$1
	shift
	nsenter -t "$(cat "$HOSTS_DIR/$name.pid")" --net -- "$@"
}

# hosts_add NAME OFFSET_S: host NAME at 10.246.0.(N+1)/24 on the bridge (its
# address in HOST_ADDR and $HOSTS_DIR/NAME.addr), its monotonic clock
# OFFSET_S seconds from the machine's.
hosts_add() {
	local name=$1 off=$2 pid
	_hosts_n=$((_hosts_n + 1))
	_hosts_spawn "$name" "$off" || {
		echo "FAIL: cannot make host $name: $(cat "$HOSTS_DIR/$name.err")"
		exit 1
	}
	pid=$(cat "$HOSTS_DIR/$name.pid")
	HOST_ADDR=10.246.0.$((_hosts_n + 1))
	_hosts_in switch ip link add "v$_hosts_n" type veth peer name eth0 netns "$pid" &&
		_hosts_in switch ip link set "v$_hosts_n" master br0 up &&
		_hosts_in "$name" ip link set lo up &&
		_hosts_in "$name" ip addr add "$HOST_ADDR/24" dev eth0 &&
		_hosts_in "$name" ip link set eth0 up || {
		echo "FAIL: cannot wire host $name to the bridge"
		exit 1
	}
	echo "$HOST_ADDR" >"$HOSTS_DIR/$name.addr"
	echo "$off" >"$HOSTS_DIR/$name.offset"
}

# hosts_abc: the tests' three hosts, after need_hosts: a (the client,
# offset 0), b (+37.5 s) and c (-12.25 s); b's and c's addresses in
# b_addr and c_addr.
hosts_abc() {
	need_hosts
	hosts_add a 0
	hosts_add b 37.5
	b_addr=$HOST_ADDR
	hosts_add c -12.25
	c_addr=$HOST_ADDR
}

# hosts_manifest_keys MANIFEST PATHS: every key path of MANIFEST (a.b,
# a[].c) into the file PATHS, and the check that each is one of
# corecap/manifest_keys.h's list (the build's manifest_keys tool).
hosts_manifest_keys() {
	local rc=0
	python3 -c '
import json, sys
out = set()
def walk(v, p):
    if isinstance(v, dict):
        for k, x in v.items():
            q = p + "." + k if p else k
            out.add(q)
            walk(x, q)
    elif isinstance(v, list):
        for x in v:
            walk(x, p + "[]")
walk(json.load(open(sys.argv[1])), "")
print("\n".join(sorted(out)))' "$1" >"$2"
	"$CORECAP_BUILD/tests/e2e/manifest_keys" check <"$2" >"$2.check" || rc=$?
	expect_eq "every key of '$1' is in manifest_keys.h" 0 "$rc"
	cat "$2.check"
}

hosts_rsh() {
	"$CORECAP_SRC/tests/e2e/hosts_rsh" "$HOSTS_DIR" "$@"
}

# hosts_start_refosd NAME ADDR [TAG]: refosd under `corecap run` in host
# NAME (launch_refosd: OSD_PID, OSD_PORT), and a forwarder in it from
# ADDR, the host's address, to refosd's port, tracked; exits when it
# cannot. TAG tells a host's second daemon's files from its first's.
hosts_start_refosd() {
	local h=$1 addr=$2 tag=${3:-} i
	launch_refosd "osd-$h$tag" "$CORECAP_SRC/tests/e2e/hosts_rsh" "$HOSTS_DIR" "$h" \
		"$CORECAP" run -- "$REFOSD" --port 0
	"$CORECAP_SRC/tests/e2e/hosts_rsh" "$HOSTS_DIR" "$h" \
		python3 "$CORECAP_SRC/tests/e2e/hosts_forward.py" "$addr" "$OSD_PORT" >"fwd-$h$tag.out" 2>&1 &
	track $!
	for i in $(seq 1 100); do
		grep -q forwarding "fwd-$h$tag.out" && return 0
		sleep 0.05
	done
	echo "FAIL: the forwarder in host $h did not start:"
	cat "fwd-$h$tag.out"
	exit 1
}

# hosts_bc_refosd: after hosts_abc, refosd in B and in C
# (hosts_start_refosd): their PIDs and ports in b_pid, b_port, c_pid, c_port.
hosts_bc_refosd() {
	hosts_start_refosd b "$b_addr"
	b_pid=$OSD_PID b_port=$OSD_PORT
	hosts_start_refosd c "$c_addr"
	c_pid=$OSD_PID c_port=$OSD_PORT
}

# hosts_teardown: the holders go, and with them the namespaces (a process
# a test started inside a host is the test's to kill: track it).
hosts_teardown() {
	local p
	for p in "${_hosts_holders[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	_hosts_holders=()
	[ -n "$HOSTS_DIR" ] && rm -rf "$HOSTS_DIR"
	HOSTS_DIR=""
}
