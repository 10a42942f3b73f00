# Helpers of the tests that run a real Ceph mini cluster
# (scripts/ceph-minicluster), sourced after lib.sh. They expect $work (a
# scratch directory) and set $mc (the cluster script) and $CORECAP.

mc="$CORECAP_SRC/scripts/ceph-minicluster"
CORECAP="${CORECAP_BUILD:?}/cli/corecap"

# Skips the test unless Ceph's daemons and tools are installed.
ceph_need_tools() {
	local t
	for t in ceph ceph-mon ceph-osd ceph-authtool monmaptool rados uuidgen python3; do
		command -v "$t" >/dev/null || skip "$t is not installed (scripts/install-deps-ceph)"
	done
	[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }
}

ceph_port_free() {
	local hex
	hex=$(printf '%04X' "$1")
	! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$hex" 'NR > 1 { split($2, a, ":"); if (a[2] == p) f = 1 } END { exit !f }'
}

# A port base whose 50 ports nobody listens on, from $1 up in steps of 100.
ceph_free_base() {
	local b=$1 p ok
	while [ "$b" -lt 60000 ]; do
		ok=1
		for p in $(seq "$b" $((b + 49))); do ceph_port_free "$p" || { ok=0; break; }; done
		[ "$ok" -eq 1 ] && { echo "$b"; return 0; }
		b=$((b + 100))
	done
	return 1
}

# ceph_start NAME PORT_BASE [start options]: a fresh cluster in $work/NAME;
# the test ends (failed) when it does not start.
ceph_start() {
	local name=$1 base=$2 rc=0
	shift 2
	"$mc" start "$work/$name" --port-base "$base" "$@" >"$work/$name.start" 2>&1 || rc=$?
	expect_eq "cluster '$name' starts" 0 "$rc"
	[ "$rc" -eq 0 ] || { cat "$work/$name.start"; finish; exit 1; }
}

# Average IOPS of a rados bench output file.
ceph_iops_of() { awk -F: '/^Average IOPS/ { gsub(/ /, "", $2); print $2 }' "$1"; }
