#!/usr/bin/env bash
# The vDSO saved in the run: `corecap record` keeps the target's [vdso]
# image (RUN/vdso.so, read from /proc/PID/mem at its maps range), and the
# analysis names vDSO frames from it. A thread spinning on clock_gettime
# and gettimeofday (tests/e2e/format/vdso_spin) is sampled with
# --wallclock; its leaf frames are named under an empty --symfs, where the
# analysing machine's own vDSO is not used, and are not once vdso.so is
# removed from a copy of the run.
set -u
. "${CORECAP_SRC:?}/tests/e2e/lib.sh"
CORECAP="${CORECAP_BUILD:?}/cli/corecap"
SPIN="$CORECAP_BUILD/tests/e2e/vdso_spin"
for b in "$CORECAP" "$SPIN"; do
	[ -x "$b" ] || { echo "FAIL: $b is not built"; exit 1; }
done
e2e_workdir format-vdso
grep -q '\[vdso\]' /proc/self/maps || skip "this kernel maps no vDSO (vdso=0)"

"$SPIN" >"$WORK/spin.out" 2>"$WORK/spin.err" &
pid=$!
track "$pid"
for _ in $(seq 1 100); do
	grep -q '^ready$' "$WORK/spin.out" && break
	sleep 0.05
done
RUN="$WORK/run"
"$CORECAP" record -p "$pid" -o "$RUN" --wallclock --no-trace --no-kernel -d 2 -q \
	>"$WORK/rec.out" 2>"$WORK/rec.err"
expect_eq "record exits" 0 "$?"
expect_file "$RUN/vdso.so"

# The saved image is the process's own, byte for byte, and as large as its mapping.
range=$(awk '$NF == "[vdso]" { print $1 }' "$RUN/maps")
expect_true "the run's maps has a [vdso] line" test -n "$range"
python3 - "$pid" "$range" "$RUN/vdso.so" >"$WORK/same" <<'PY'
import sys
pid, rng, path = sys.argv[1], sys.argv[2], sys.argv[3]
lo, hi = (int(x, 16) for x in rng.split("-"))
with open("/proc/%s/mem" % pid, "rb") as m:
    m.seek(lo)
    live = m.read(hi - lo)
saved = open(path, "rb").read()
print("same" if live == saved else "differ %d %d" % (len(live), len(saved)))
PY
expect_eq "vdso.so is the live process's [vdso] image" same "$(cat "$WORK/same")"
expect_eq "the manifest gives its size" "$(stat -c %s "$RUN/vdso.so")" \
	"$(json "$RUN/manifest.json" 'd["maps"]["vdso_bytes"]')"

# vDSO samples: those whose leaf is a vDSO frame, named or not ([vdso]+0x...);
# named ones: whose leaf is a vDSO function, or an unnamed stretch of the
# vDSO called from one (Linux 6.18's clock read out of line, which has no
# symbol of its own: the sampler must unwind through the vDSO to its caller).
vdso_fn='^(__vdso_)?(clock_gettime|gettimeofday)$'
vdso_samples() {
	awk -v fn="$vdso_fn" '{ n = split($1, f, ";"); if (f[n] ~ fn || f[n] ~ /^\[vdso\]\+0x/) s += $2 }
		END { print s + 0 }' "$1"
}
vdso_named() {
	awk -v fn="$vdso_fn" '{ n = split($1, f, ";")
		if (f[n] ~ fn || (f[n] ~ /^\[vdso\]\+0x/ && n > 1 && f[n - 1] ~ fn)) s += $2 }
		END { print s + 0 }' "$1"
}
mkdir "$WORK/empty-symfs"
"$CORECAP" flame --kind wall --symfs "$WORK/empty-symfs" "$RUN" >"$WORK/saved.folded" 2>"$WORK/saved.err"
expect_eq "flame exits" 0 "$?"
total=$(awk '{ s += $NF } END { print s + 0 }' "$WORK/saved.folded")
in_vdso=$(vdso_samples "$WORK/saved.folded")
named=$(vdso_named "$WORK/saved.folded")
echo "wall samples: $total, in the vDSO: $in_vdso, with a vDSO function named: $named"
# Two threads sampled alike: the spinner's half of the samples is in the vDSO
# nearly always (a few land in libc's wrapper or the loop).
expect_calc "a third of the samples or more end in the vDSO" "$in_vdso * 3 > $total && $total >= 20"
expect_calc "nine in ten of them or more name their vDSO function from the run's image" \
	"$named * 10 >= $in_vdso * 9"

cp -r "$RUN" "$WORK/run-novdso"
rm "$WORK/run-novdso/vdso.so"
"$CORECAP" flame --kind wall --symfs "$WORK/empty-symfs" "$WORK/run-novdso" \
	>"$WORK/none.folded" 2>"$WORK/none.err"
expect_eq "without vdso.so under --symfs, no vDSO frame is named" 0 \
	"$(awk -v fn="$vdso_fn" '{ n = split($1, f, ";"); for (i = 1; i <= n; i++) if (f[i] ~ fn) { s += $2; break } }
		END { print s + 0 }' "$WORK/none.folded")"
unnamed=$(awk '{ n = split($1, f, ";"); if (f[n] ~ /^\[vdso\]\+0x/) s += $2 } END { print s + 0 }' "$WORK/none.folded")
expect_eq "the same samples are then unnamed [vdso] leaves" "$in_vdso" "$unnamed"
expect_true "and the analysis says why" grep -q "'\[vdso\]': the run has no vdso.so" "$WORK/none.err"

finish
