#!/usr/bin/env bash
# corecap record, run as root, never acts with root's rights on the paths
# under a daemon's CPUPROFILE (issue 42, item 1): a daemon running as
# nobody that names a root-owned directory, or plants a symlink to a root
# file, gets its profile refused and the files stay byte for byte as they
# were; the record completes without the profile and says why. The same
# daemon with a CPUPROFILE of its own gets its profile, created, read and
# removed as nobody.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (the record must run as root beside a daemon of nobody)"
command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
PROFILER=/usr/lib/x86_64-linux-gnu/libprofiler.so.0
[ -r "$PROFILER" ] || skip "gperftools' libprofiler is not installed"
need_nobody "the daemon of nobody"
as_nobody=("${AS_NOBODY[@]}")
status() { "$@" >"$WORK/out" 2>"$WORK/err"; echo $?; }
# sums DIR: one hash of every entry's name, owner, mode, type, link target and content.
sums() { (cd "$1" && find . -maxdepth 1 -printf '%P %U %m %y %l\n' | sort && sha256sum -- * 2>/dev/null | sort) | sha256sum; }
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*[tT] (' /proc/"$1"/status; }
cpu_bytes() { json "$1/manifest.json" "d['cpu_prof']['bytes'] if 'cpu_prof' in d else 0"; }

# A root-owned directory with root's files where the daemon's profiler
# would create BASE.owner and BASE.N.
rootdir="$WORK/rootdir"
mkdir -m 755 "$rootdir"
for f in victim.owner victim.0 victim.1 other; do
	head -c 8192 /dev/urandom >"$rootdir/$f"
	chmod 600 "$rootdir/$f"
done
chmod 644 "$rootdir/victim.1"
before=$(sums "$rootdir")

launch_refosd osd "${as_nobody[@]}" env CPUPROFILE="$rootdir/victim" CPUPROFILESIGNAL=12 \
	LD_PRELOAD="$PROFILER" "$REFOSD" --port 0
expect_eq "the daemon runs as nobody" "$(id -u nobody)" "$(awk '/^Uid:/ { print $2 }' /proc/"$OSD_PID"/status)"
rc=$(status "$CORECAP" record -p "$OSD_PID" --no-trace -d 0.5 -o "$WORK/run1")
expect_eq "a record as root of that daemon" 0 "$rc"
expect_true "... refuses the owner file, opened as the daemon's uid" \
	grep -q "cannot open '$rootdir/victim.owner' (the owner of PID $OSD_PID's CPU profiler) as its uid $(id -u nobody): Permission denied; no CPU profile" "$WORK/err"
expect_eq "... records no CPU profile" False "$(json "$WORK/run1/manifest.json" "d['sources']['cpu_prof']")"
expect_eq "... the root-owned files are unchanged byte for byte" "$before" "$(sums "$rootdir")"
expect_true "... the daemon is alive and running" alive "$OSD_PID"
# The same with the owner file absent: nothing is created as root.
rm "$rootdir/victim.owner"
before=$(sums "$rootdir")
expect_eq "with no owner file, a record" 0 "$(status "$CORECAP" record -p "$OSD_PID" --no-trace -d 0.5 -o "$WORK/run2")"
expect_eq "... creates nothing in the root-owned directory" "$before" "$(sums "$rootdir")"
kill -KILL "$OSD_PID"
wait "$OSD_PID" 2>/dev/null

# A directory of nobody's, where nobody planted a symlink to a root file
# at the owner file's name and at a profile's name.
nbdir="$WORK/nobodydir"
mkdir -m 755 "$nbdir"
chown nobody:nogroup "$nbdir"
head -c 8192 /dev/urandom >"$WORK/rootfile"
chmod 600 "$WORK/rootfile"
rootsum=$(sha256sum <"$WORK/rootfile")
"${as_nobody[@]}" ln -s "$WORK/rootfile" "$nbdir/prof.owner"
"${as_nobody[@]}" ln -s "$WORK/rootfile" "$nbdir/prof.0"
launch_refosd osd2 "${as_nobody[@]}" env CPUPROFILE="$nbdir/prof" CPUPROFILESIGNAL=12 \
	LD_PRELOAD="$PROFILER" "$REFOSD" --port 0
expect_eq "a planted symlink at the owner file: the record" 0 \
	"$(status "$CORECAP" record -p "$OSD_PID" --no-trace -d 0.5 -o "$WORK/run3")"
expect_true "... refuses to follow it" grep -q "cannot open '$nbdir/prof.owner' .*: Too many levels of symbolic links; no CPU profile" "$WORK/err"
expect_eq "... the root file is unchanged" "$rootsum" "$(sha256sum <"$WORK/rootfile")"
expect_eq "... still root's 0600" "root 600" "$(stat -c '%U %a' "$WORK/rootfile")"

# Without the links, the profile is made, read and removed as nobody.
rm "$nbdir/prof.owner" "$nbdir/prof.0"
"$REFBENCH" -p "$OSD_PORT" -t 2 -b 1 -d 30 write >/dev/null 2>&1 &
load=$!
track "$load"
expect_eq "the daemon's own directory: the record" 0 \
	"$(status "$CORECAP" record -p "$OSD_PID" --no-trace -d 1 -o "$WORK/run4")"
expect_calc "... got the CPU profile" "$(cpu_bytes "$WORK/run4") > 0" || sed 's/^/    /' "$WORK/err"
expect_eq "... and left nothing behind in it" "" "$(ls -A "$nbdir")"
expect_eq "... the root file is unchanged" "$rootsum" "$(sha256sum <"$WORK/rootfile")"
expect_true "... the daemon is alive and running" alive "$OSD_PID"
kill "$load" 2>/dev/null
finish
