#!/usr/bin/env bash
# `corecap scale`'s errors (issue #45): a bad --cores list, a PID that does
# not exist, more cores than the daemon may use, a fractional point where
# no cpu.max can be written, a missing benchmark, an empty --prepare, --report on what is not
# a scale directory, another user (nobody) who may not set the daemon's
# threads' affinity: one line naming the cause (and the usage line for a
# usage error), exit 2 for usage and 1 otherwise, and nothing created. The
# daemon's affinity is untouched.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/scale_lib.sh"
need_refosd

start_refosd err --debug 0
before=$(affinity "$OSD_PID")
cd "$WORK"
mkdir -p empty

# expect_refused NAME EXIT PATTERN ARGS...: corecap scale ARGS fails with EXIT,
# its first stderr line matches PATTERN, and $WORK/out is not created.
expect_refused() {
	local name=$1 want=$2 pat=$3 rc=0
	shift 3
	"$CORECAP" scale "$@" >"$WORK/$name.stdout" 2>"$WORK/$name.stderr" || rc=$?
	expect_eq "$name: exit $want" "$want" "$rc"
	expect_true "$name: '$pat' on stderr ($(head -1 "$WORK/$name.stderr"))" \
		grep -qE "^corecap scale: .*$pat" <(head -1 "$WORK/$name.stderr")
	expect_true "$name: nothing on stdout" test ! -s "$WORK/$name.stdout"
	expect_true "$name: nothing created" test ! -e "$WORK/out"
	expect_eq "$name: one line (two with the usage line)" 1 \
		"$(calc "$(wc -l <"$WORK/$name.stderr") <= $((want == 2 ? 2 : 1))")"
}

expect_refused bad-cores 2 "--cores: '1,x' is not a list" -p "$OSD_PID" --cores 1,x -o out -- true
expect_refused zero-cores 2 "--cores: '0' is not a list" -p "$OSD_PID" --cores 0 -o out -- true
expect_refused range-cores 2 "--cores: '2-1' is not a list" -p "$OSD_PID" --cores 2-1 -o out -- true
expect_refused no-pid 1 "cannot scale process 999999999: no such process" -p 999999999 -o out -- true
expect_refused bad-pid 2 "-p: 'abc' is not a process id" -p abc -o out -- true
expect_refused no-daemon 2 "no daemon: -p PID is required" -o out -- true
expect_refused no-window 2 "no window" -p "$OSD_PID" -o out
expect_refused too-many 1 "--cores: $(($(nproc) + 1)) is more than the $(nproc) CPUs process $OSD_PID may use" \
	-p "$OSD_PID" --cores "$(($(nproc) + 1))" -o out -- true
expect_refused client 2 "invalid --client-cpus" -p "$OSD_PID" --client-cpus 1-0 -o out -- true
expect_refused report 1 "cannot open 'empty/scale.json': No such file or directory \\(not a scale directory\\)" --report empty
expect_refused report-and-pid 2 "--report DIR prints a finished scale" --report empty -p "$OSD_PID"
expect_refused report-and-prepare 2 "--report DIR prints a finished scale" --report empty --prepare true
expect_refused empty-prepare 2 "--prepare: the command is empty" -p "$OSD_PID" --prepare "" -o out -- true
# A fractional point needs the daemon's cgroup's cpu.max: refused here when
# the daemon is in the root cgroup, on cgroup v1, or shares corecap's cgroup.
rc=0
"$CORECAP" scale -p "$OSD_PID" --cores 1.5 -o out -d 1 >/dev/null 2>"$WORK/frac.err" || rc=$?
if [ "$rc" -ne 0 ]; then
	expect_eq "fractional: exit 1" 1 "$rc"
	expect_true "fractional: one line naming why ($(cat "$WORK/frac.err"))" \
		grep -qE "^corecap scale: --cores: a fractional point needs a CPU quota on the daemon's cgroup, and (its|it is)" "$WORK/frac.err"
	expect_eq "fractional: one line" 1 "$(wc -l <"$WORK/frac.err")"
	expect_true "fractional: nothing created" test ! -e "$WORK/out"
else
	echo "note: the daemon's cgroup took a cpu.max quota here; the refusal is not exercised"
	rm -rf "$WORK/out"
fi
# Another user may not set the daemon's threads' affinity: said before anything is made.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && getent passwd nobody >/dev/null; then
	chmod 711 "$WORK"
	mkdir -m 777 "$WORK/nb"
	rc=0
	(cd "$WORK/nb" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$CORECAP" scale -p "$OSD_PID" -o out -d 1) >/dev/null 2>"$WORK/nobody.err" || rc=$?
	expect_eq "as nobody: exit 1" 1 "$rc"
	expect_true "as nobody: one line naming why ($(cat "$WORK/nobody.err"))" \
		grep -qx "corecap scale: cannot set the CPU affinity of thread [0-9]* of process $OSD_PID: Operation not permitted (it takes the daemon's user, or CAP_SYS_NICE)" "$WORK/nobody.err"
	expect_eq "as nobody: nothing created" "" "$(ls -A "$WORK/nb")"
else
	echo "SKIP (part): another user's refusal needs root, setpriv and the user nobody"
fi
expect_eq "the daemon's threads' affinity is untouched" "$before" "$(affinity "$OSD_PID")"
expect_alive "$OSD_PID"
stop_refosd
finish
