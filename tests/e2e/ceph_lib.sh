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

# A port base whose 50 ports nobody uses, from $1 up in steps of 100.
ceph_free_base() { "$mc" port-base "$1" 2>/dev/null; }

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

# The pids of processes whose command line mentions directory $1.
ceph_procs_of_dir() {
	local p
	for p in /proc/[0-9]*; do
		tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF -- "$1/" && echo "${p#/proc/}"
	done
	return 0
}

# Skips the test unless directory $1's file system takes O_DIRECT writes
# (BlueStore and FileStore's journal open their files with it; tmpfs
# before Linux 6.6 does not).
ceph_need_odirect() {
	dd if=/dev/zero of="$1/.odirect-probe" bs=4096 count=1 oflag=direct status=none 2>/dev/null ||
		skip "$1 does not take O_DIRECT writes (BlueStore and FileStore need them)"
	rm -f "$1/.odirect-probe"
}

# ceph_bluestore_under_shim PREFIX PORT_FROM: a scratch directory $work
# (and $WORK; readable by all, for the OSD) under /tmp, removed at exit
# with the cluster in it stopped, and a BlueStore cluster "blue" there
# (DB/WAL on a second file) whose OSD runs under the shim: sets $d and
# $pid. Skips when /tmp takes no O_DIRECT or no port base is free.
ceph_bluestore_under_shim() {
	local base
	work=$(mktemp -d "/tmp/$1.XXXXXX")
	chmod 755 "$work"
	WORK=$work
	trap '"$mc" stop "$work/blue" >/dev/null 2>&1 || true; ceph_check_runs; rm -rf "$work"' EXIT
	ceph_need_odirect "$work"
	base=$(ceph_free_base "$2") || skip "no free port base found from $2 up"
	ceph_start blue "$base" --objectstore bluestore --bluestore-db file --osd-wrapper "$CORECAP run --"
	d="$work/blue"
	pid=$(cat "$d/osd.0.pid")
}

# BlueStore's kv_sync and aio threads must be pools of report JSON $1.
ceph_expect_bstore_pools() {
	local pool
	for pool in bstore_kv_sync bstore_aio; do
		expect_eq "the report lists pool $pool" True "$(json "$1" \
			"any(p['name'] == '$pool' for p in d.get('pools', []))" 2>/dev/null || echo False)"
	done
}

# ceph_work NAME: a scratch directory $work (also $WORK) for a cluster at
# $work/osd, which is stopped, and the directory removed, at exit (kept
# with CORECAP_CEPH_KEEP=1).
ceph_work() {
	work=$(mktemp -d "/tmp/$1.XXXXXX")
	chmod 755 "$work"
	WORK=$work
	trap ceph_work_cleanup EXIT
}
ceph_work_cleanup() {
	"$mc" stop "$work/osd" >/dev/null 2>&1 || true
	ceph_check_runs
	[ -n "${CORECAP_CEPH_KEEP:-}" ] && { echo "kept $work"; return; }
	rm -rf "$work"
}

# ceph_check_runs: lib.sh's consistency check over every run recorded
# under $work, before it goes; a disagreement fails the test.
ceph_check_runs() {
	e2e_check_runs "$work" && return 0
	echo "FAIL: the runs' text, JSON and HTML disagree (above)"
	[ -n "${CORECAP_CEPH_KEEP:-}" ] || rm -rf "$work"
	exit 1
}

# ceph_record_kernel_bench RUN PID THREADS: `record --kernel` of the bare
# OSD PID of $work/osd during 3 s of `rados bench` 4 KiB writes at -t
# THREADS; the test ends there if record fails.
ceph_record_kernel_bench() {
	local run=$1 pid=$2 threads=$3 rc=0
	(
		eval "$("$mc" env "$work/osd")"
		"$CORECAP" record -q --kernel -p "$pid" -o "$run" -- \
			rados -p bench bench 3 write -b 4096 -t "$threads" --no-cleanup
	) >"$run.out" 2>"$run.err" || rc=$?
	expect_eq "record exits" 0 "$rc"
	[ "$rc" -eq 0 ] || { tail -n 5 "$run.err"; finish; exit 1; }
}

# ceph_set_debug ASOK OSD_LEVEL MS_LEVEL: the OSD's debug_osd and debug_ms,
# through its admin socket.
ceph_set_debug() {
	ceph --admin-daemon "$1" config set debug_osd "$2" >/dev/null &&
		ceph --admin-daemon "$1" config set debug_ms "$3" >/dev/null
}
