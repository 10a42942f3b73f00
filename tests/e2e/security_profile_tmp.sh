#!/usr/bin/env bash
# The CPU profile of `corecap run --cpuprofile` has no predictable name in
# /tmp (issue 42, item 2). A local user plants, for 2000 PIDs about to be used,
# symlinks to a root 0600 file at the old names (/tmp/corecap-cpu.PID.prof.0)
# and owner files it holds locked (.prof.owner): a root daemon under
# `corecap run --cpuprofile` and a root record of it touch none of them.
# The profile directory is 0700 (libprofiler's 0644 files stay private),
# and it is gone after the daemon exits, also after a record killed
# mid-window left a profile in it.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (the daemon and the record run as root beside a user)"
command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
[ -r /usr/lib/x86_64-linux-gnu/libprofiler.so.0 ] || skip "gperftools' libprofiler is not installed"
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
status() { "$@" >"$WORK/out" 2>"$WORK/err"; echo $?; }
cpu_bytes() { json "$1/manifest.json" "d['cpu_prof']['bytes'] if 'cpu_prof' in d else 0"; }
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*[tT] (' /proc/"$1"/status; }

victim="$WORK/victim"
head -c 8192 /dev/urandom >"$victim"
chmod 600 "$victim"
sum=$(sha256sum <"$victim")
first=$(($(cat /proc/sys/kernel/ns_last_pid) + 1))
e2e_cleanup_hook() {
	[ -n "${planter:-}" ] && kill "$planter" 2>/dev/null
	find /tmp -maxdepth 1 -user nobody -name 'corecap-cpu.*.prof.*' -delete 2>/dev/null
}
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no /usr/bin/python3 for the planting user"
N=2000
"${as_nobody[@]}" "$PY" -c '
import fcntl, os, resource, sys, time
first, n, victim = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
held = []
for pid in range(first, first + n):
	base = "/tmp/corecap-cpu.%d.prof" % pid
	try: os.symlink(victim, base + ".0")
	except FileExistsError: pass
	fd = os.open(base + ".owner", os.O_RDWR | os.O_CREAT, 0o644)
	os.write(fd, b"collector 1\n")
	fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
	if len(held) < hard - 64:
		held.append(fd)
	else:
		os.close(fd)
print("planted", flush=True)
time.sleep(600)' "$first" "$N" "$victim" >"$WORK/planter.out" &
planter=$!
track "$planter"
for i in $(seq 300); do grep -q planted "$WORK/planter.out" && break; sleep 0.1; done
# Creating 4000 files in /tmp takes seconds here while other tests use PIDs
# fast: the next PID is moved into the planted range (root may set it).
last=$(cat /proc/sys/kernel/ns_last_pid)
[ "$last" -lt $((first + N / 2)) ] && echo $((first + N / 2)) >/proc/sys/kernel/ns_last_pid 2>/dev/null
expect_true "a user planted links and locked owner files at the old names" grep -q planted "$WORK/planter.out"

start_daemon osd --cpuprofile
in_range=$((OSD_PID >= first && OSD_PID < first + N))
[ "$in_range" = 1 ] || echo "note: the daemon's PID $OSD_PID is outside the planted range $first..$((first + N - 1))"
prof=$(tr '\0' '\n' </proc/"$OSD_PID"/environ | sed -n 's/^CPUPROFILE=//p')
dir=${prof%/*}
expect_true "CPUPROFILE is not the old predictable name" test "$prof" != "/tmp/corecap-cpu.$OSD_PID.prof"
expect_eq "its directory is root's, 0700" "root 700 directory" "$(stat -c '%U %a %F' "$dir")"

"$REFBENCH" -p "$OSD_PORT" -t 2 -b 1 -d 60 write >/dev/null 2>&1 &
load=$!
track "$load"
expect_eq "a record as root" 0 "$(status "$CORECAP" record -p "$OSD_PID" --no-trace -d 1 -o "$WORK/run")"
expect_eq "... is not refused by the user's locked owner file" "" "$(grep 'in use by another' "$WORK/err")"
expect_calc "... and gets its CPU profile" "$(cpu_bytes "$WORK/run") > 0" || sed 's/^/    /' "$WORK/err"
expect_eq "the root file behind the planted links is unchanged" "$sum" "$(sha256sum <"$victim")"
expect_eq "... still root's 0600" "root 600" "$(stat -c '%U %a' "$victim")"
if [ "$in_range" = 1 ]; then
	expect_eq "the links at the daemon's PID are untouched" "$victim" "$(readlink "/tmp/corecap-cpu.$OSD_PID.prof.0")"
	expect_eq "... and its owner file is the user's" "nobody" "$(stat -c %U "/tmp/corecap-cpu.$OSD_PID.prof.owner")"
fi

# A record killed mid-window leaves the profiler writing into the directory:
# another user cannot read it, and it goes with the daemon.
"$CORECAP" record -p "$OSD_PID" --no-trace -d 20 -o "$WORK/killed" >/dev/null 2>"$WORK/killed.err" &
rec=$!
wait_window "$WORK/killed.err"
for i in $(seq 100); do ls "$dir" | grep -q '^prof\.[0-9]' && break; sleep 0.05; done
kill -KILL "$rec"
wait "$rec" 2>/dev/null
left=$(ls "$dir" | grep '^prof\.[0-9]' | head -n 1)
expect_true "the killed record left a profile in the directory" test -n "$left"
# libprofiler made it with the daemon's umask (0644 here): the directory keeps it private.
expect_true "... which another user cannot read" \
	sh -c "${as_nobody[*]} cat '$dir/$left' 2>&1 >/dev/null | grep -q 'Permission denied'"
kill "$load" 2>/dev/null
kill -TERM "$OSD_PID"
for i in $(seq 100); do [ -e "$dir" ] || break; sleep 0.05; done
expect_true "the profile directory is gone within 5 s of the daemon's exit" test ! -e "$dir"
expect_eq "the root file behind the planted links is unchanged at the end" "$sum" "$(sha256sum <"$victim")"
finish
