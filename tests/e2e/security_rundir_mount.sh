#!/usr/bin/env bash
# `record --force` never crosses a mount point (issue 42, item 3): a tmpfs
# mounted inside an old run, or a directory bind-mounted into it from the
# same file system, makes --force refuse the whole run before anything is
# made or removed; the mounted files and the run stay byte for byte.
set -u
. "${CORECAP_SRC:?}/tests/e2e/collector_lib.sh"
need_sessiond
[ "$(id -u)" -eq 0 ] || skip "mounting a tmpfs inside a run needs root"

mounts=()
e2e_cleanup_hook() {
	local m
	for m in "${mounts[@]}"; do
		umount "$m" 2>/dev/null
	done
}

start_daemon osd
old="$WORK/run"
"$CORECAP" record -q -p "$OSD_PID" -d 0.5 -o "$old" >/dev/null 2>"$WORK/old.err"
expect_eq "the old run is recorded" 0 "$?"

# A tmpfs inside the run's trace.
mkdir "$old/trace/mnt"
mount -t tmpfs -o size=1m corecap-test "$old/trace/mnt" 2>"$WORK/mount.err" ||
	skip "cannot mount a tmpfs here: $(cat "$WORK/mount.err")"
mounts+=("$old/trace/mnt")
echo "on the tmpfs" >"$old/trace/mnt/victim"
before=$(tree_snap "$old")
expect_exit_naming "--force onto a run with a tmpfs mounted inside" 1 \
	"'$old/trace/mnt' is a mount point" \
	"$CORECAP" record -p "$OSD_PID" --no-trace --force -d 0.3 -o "$old"
expect_eq "the file on the tmpfs is intact" "on the tmpfs" "$(cat "$old/trace/mnt/victim")"
expect_eq "the run and the tmpfs are byte for byte intact" "$before" "$(tree_snap "$old")"
expect_eq "nothing was made beside it" "run " "$(names_beside "$old")"
umount "$old/trace/mnt"
mounts=()
rmdir "$old/trace/mnt"

# A bind mount of a directory on the same file system (the same st_dev).
mkdir "$WORK/outside" "$old/trace/bound"
echo "outside the run" >"$WORK/outside/victim"
mount --bind "$WORK/outside" "$old/trace/bound" 2>"$WORK/mount.err" ||
	skip "cannot bind-mount here: $(cat "$WORK/mount.err")"
mounts+=("$old/trace/bound")
before=$(tree_snap "$old")
expect_exit_naming "--force onto a run with a bind mount inside" 1 \
	"'$old/trace/bound' is a mount point" \
	"$CORECAP" record -p "$OSD_PID" --no-trace --force -d 0.3 -o "$old"
expect_eq "the bind-mounted file is intact" "outside the run" "$(cat "$WORK/outside/victim")"
expect_eq "the run is byte for byte intact" "$before" "$(tree_snap "$old")"
umount "$old/trace/bound"
mounts=()
rmdir "$old/trace/bound"

# Unmounted, the same run is replaced.
"$CORECAP" record -q -p "$OSD_PID" --no-trace --force -d 0.3 -o "$old" >/dev/null 2>"$WORK/new.err"
expect_eq "once unmounted, --force replaces it" 0 "$?"
expect_eq "nothing is left beside the run" "run " "$(names_beside "$old")"
expect_true "the file outside is still there" test -f "$WORK/outside/victim"
finish
