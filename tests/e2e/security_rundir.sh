#!/usr/bin/env bash
# `record --force` replaces only a run corecap wrote (issue 42, item 3):
# a project directory holding a trace/ is refused and left byte for byte;
# so is a run of another format's names without corecap's mark, and a run
# holding another user's file. A replacing record that fails before its
# window (a bad --ceph-asok) leaves the old run whole and nothing beside
# it; one that succeeds leaves the new run in place, the old gone, and
# nothing beside it.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
need_sessiond


start_daemon osd

# (a) A project directory with a trace/ in it: refused, untouched.
proj="$WORK/proj"
mkdir -p "$proj/src" "$proj/trace"
echo "my notes" >"$proj/notes.txt"
printf 'int main(void) { return 0; }\n' >"$proj/src/main.c"
echo "a trace of mine" >"$proj/trace/data"
before=$(tree_snap "$proj")
expect_exit_naming "--force onto a project directory" 1 \
	"--force replaces only a run corecap wrote; not replacing '$proj'" \
	"$CORECAP" record -p "$OSD_PID" --no-trace --force -d 0.3 -o "$proj"
expect_true "... it says the mark is missing" grep -qF "holds no .corecap-run" "$WORK/err"
expect_eq "the project directory is byte for byte intact" "$before" "$(tree_snap "$proj")"
expect_eq "nothing was made beside it" "proj " "$(names_beside "$proj")"

# The run format's own names without the mark (a run of an older corecap, or not ours).
legacy="$WORK/legacy"
mkdir -p "$legacy/trace"
echo '{"format": "corecap-run", "version": 2}' >"$legacy/manifest.json"
printf 'tid\tcomm\n' >"$legacy/threads.tsv"
before=$(tree_snap "$legacy")
expect_exit_naming "--force onto an unmarked run" 1 "rm -r -- '$legacy'" \
	"$CORECAP" record -p "$OSD_PID" --no-trace --force -d 0.3 -o "$legacy"
expect_eq "the unmarked run is intact" "$before" "$(tree_snap "$legacy")"

# An old real run, traced (LTTng's tree in it).
old="$WORK/run"
"$CORECAP" record -q -p "$OSD_PID" -d 0.5 -o "$old" >/dev/null 2>"$WORK/old.err"
expect_eq "the old run is recorded" 0 "$?"
expect_true "it carries corecap's mark" grep -q '^corecap run directory 1$' "$old/.corecap-run"
expect_true "it has a trace" test -d "$old/trace"

# A file of another user in it: refused, the run whole.
echo "theirs" >"$old/trace/theirs"
chown nobody:nogroup "$old/trace/theirs" 2>/dev/null || chown 65534:65534 "$old/trace/theirs"
before=$(tree_snap "$old")
expect_exit_naming "--force onto a run holding another user's file" 1 "belongs to user 65534" \
	"$CORECAP" record -p "$OSD_PID" --no-trace --force -d 0.3 -o "$old"
expect_eq "that run is intact" "$before" "$(tree_snap "$old")"
rm -f "$old/trace/theirs"

# (c) A replacing record that fails before its window: the old run intact, nothing beside.
before=$(tree_snap "$old")
expect_exit_naming "--force with a bad --ceph-asok" 1 "/nonexistent/ceph-osd.0.asok" \
	"$CORECAP" record -p "$OSD_PID" --force -d 0.3 \
	--ceph-asok /nonexistent/ceph-osd.0.asok -o "$old"
expect_true "... after it had made its new run beside" grep -qF "writing the new run beside" "$WORK/err"
expect_eq "the old run is intact after the failed record" "$before" "$(tree_snap "$old")"
expect_eq "the failed record left nothing beside it" "run " "$(names_beside "$old")"

# (d) A replacing record that succeeds: the new run in place, the old gone, nothing beside.
old_ino=$(stat -c %i "$old")
old_start=$(json "$old/manifest.json" 'd["window"]["start_ns"]')
"$CORECAP" record -p "$OSD_PID" --no-trace --force -d 0.3 -o "$old" >"$WORK/new.out" 2>"$WORK/new.err"
expect_eq "--force onto a run of ours" 0 "$?"
expect_eq "it prints the run's path" "$old" "$(cat "$WORK/new.out")"
expect_true "it said it wrote aside" grep -qF "writing the new run beside '$old'" "$WORK/new.err"
expect_eq "nothing is left beside the run" "run " "$(names_beside "$old")"
expect_true "the run is another directory" test "$(stat -c %i "$old")" != "$old_ino"
expect_true "the old run's trace is gone (the new one has none)" test ! -e "$old/trace"
expect_eq "the new run is complete" complete "$(json "$old/manifest.json" 'd["status"]')"
new_start=$(json "$old/manifest.json" 'd["window"]["start_ns"]')
expect_true "its manifest is the new record's" test "$new_start" != "$old_start"
expect_eq "it is private" 700 "$(stat -c %a "$old")"
expect_true "it carries the mark" grep -q "^collector [0-9]* [0-9]*$" "$old/.corecap-run"
expect_true "the daemon is alive" kill -0 "$OSD_PID"
finish
