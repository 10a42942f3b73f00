# Helpers for the flame-graph and pictures tests (sourced). Every process
# started here is killed when the test exits, whatever happens.
# shellcheck shell=bash
. "${CORECAP_SRC:?CORECAP_SRC is not set}/tests/e2e/lib.sh"

CORECAP="${CORECAP_BUILD:?CORECAP_BUILD is not set}/cli/corecap"
REFOSD="$CORECAP_BUILD/tests/refosd/refosd"
REFBENCH="$CORECAP_BUILD/tests/refosd/refbench"
GOLDEN="$CORECAP_SRC/tests/data/analysis"
FLAME_DATA="$CORECAP_SRC/tests/data/flame"
CHECK_CHROME="$CORECAP_SRC/tests/e2e/flame_chrome_check.py"
# Built by this project: missing means broken, not skipped.
[ -x "$CORECAP" ] || { echo "FAIL: $CORECAP is not built"; exit 1; }
command -v python3 >/dev/null || skip "python3 is not installed (scripts/install-deps)"

e2e_workdir flame

# folded_total FILE: the sum of a folded file's weights (last column).
folded_total() {
	awk '{ s += $NF } END { printf "%.0f", s }' "$1"
}

# check_svg WHAT FILE: well-formed XML (python's parser, and xmllint when
# installed), an <svg> root, a tooltip and a rectangle in every frame
# group, no reference outside the document, and at most one script, inline
# (no src, no href), with no network call in it.
check_svg() {
	local what=$1 file=$2 out
	if command -v xmllint >/dev/null; then
		expect_true "$what: xmllint finds it well-formed" xmllint --noout "$file"
	fi
	out=$(python3 - "$file" <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
try:
    root = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as e:
    print("not well-formed:", e)
    sys.exit(0)
if root.tag != ns + "svg":
    print("root is", root.tag)
    sys.exit(0)
groups = root.findall(ns + "g")
bad = [g for g in groups if g.find(ns + "title") is None or g.find(ns + "rect") is None]
refs = [el.tag for el in root.iter() for k in el.attrib
        if k.endswith("href") or el.attrib[k].startswith(("http:", "https:", "url("))]
scripts = root.findall(".//" + ns + "script")
images = root.findall(".//" + ns + "image")
net = [s.attrib for s in scripts if s.attrib.keys() - {"type"}
       or any(w in (s.text or "").replace("'http://www.w3.org/2000/svg'", "")
              for w in ("fetch(", "XMLHttpRequest", "import(", "http:", "https:"))]
if bad or refs or images or len(scripts) > 1 or net:
    print(f"{len(bad)} frames without tooltip or rect, refs {refs}, {len(images)} images, "
          f"{len(scripts)} scripts, {len(net)} of them with a source or a network call")
else:
    print(f"ok {len(groups)}")
EOF
)
	_checks=$((_checks + 1))
	case $out in
	"ok "*) echo "ok: $what: well-formed SVG, ${out#ok } frames, each with a tooltip, no external reference" ;;
	*) echo "FAIL: $what: $out"; _failures=$((_failures + 1)) ;;
	esac
}

# start_refosd NAME [corecap run options] -- [refosd options]: refosd under
# `corecap run`; sets OSD_PID and OSD_PORT.
start_refosd() {
	local name=$1 run_opts=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		run_opts+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	launch_refosd "$name" "$CORECAP" run "${run_opts[@]}" -- "$REFOSD" --port 0 "$@"
}

stop_refosd() {
	kill -TERM "$OSD_PID" 2>/dev/null || true
	wait "$OSD_PID" 2>/dev/null || true
}

# record RUN [record options] -- [refbench options]: records the running
# refosd while refbench runs against it (at most 90 s, so that a hung
# daemon fails the test rather than hanging it).
record() {
	local run=$1 rec_opts=() status=0
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		rec_opts+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	timeout 90 "$CORECAP" record -q -p "$OSD_PID" -o "$run" "${rec_opts[@]}" -- \
		"$REFBENCH" -p "$OSD_PORT" --no-progress "$@" >"$run.record.out" 2>&1 || status=$?
	if [ "$status" -ne 0 ]; then
		echo "FAIL: corecap record exited with $status:"
		tail -20 "$run.record.out"
		exit 1
	fi
}

need_refosd() {
	local b
	for b in "$REFOSD" "$REFBENCH" "$CORECAP_BUILD/preload/libcorecap-preload.so"; do
		[ -e "$b" ] || { echo "FAIL: $b is not built"; exit 1; }
	done
}

# libc_symbols FILE: nm's list of libc6-dbg's debug files for the libc and
# the dynamic loader that corecap runs with (by build-id); false without
# libc6-dbg. The loader's addresses get the prefix "ld.", so that no
# address of one file reads as an alias of the other's.
libc_symbols() {
	local lib id prefix
	: >"$1"
	for lib in $(ldd "$CORECAP" | sed -n -e 's|.*libc\.so\.6 => \([^ ]*\) .*|\1|p' \
		-e 's|^[[:space:]]*\(/[^ ]*ld-linux[^ ]*\) .*|\1|p'); do
		id=$(readelf -n "$(readlink -f "$lib")" | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')
		case $lib in *ld-linux*) prefix=ld. ;; *) prefix= ;; esac
		nm --defined-only "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" 2>/dev/null |
			sed "s/^/$prefix/" >>"$1"
		[ "${PIPESTATUS[0]}" = 0 ] || return 1
	done
	[ -s "$1" ]
}

# expect_pprof_equal WHAT PPROF_OUT CORECAP_OUT [LIBC_SYMBOLS]: corecap's folded
# stacks equal google-pprof --collapsed's, up to docs/flame.md's normalisations:
# of pprof's decorations only (CORECAP_OUT from --names pprof), or all of them
# (corecap's own names, with LIBC_SYMBOLS).
expect_pprof_equal() {
	local out
	_checks=$((_checks + 1))
	if out=$(python3 "$CORECAP_SRC/tests/e2e/flame_pprof_compare.py" "$2" "$3" ${4:+"$4"}); then
		echo "ok: $1: corecap flame = google-pprof --collapsed ($out)"
	else
		echo "FAIL: $1: corecap flame differs from google-pprof --collapsed:"
		echo "$out" | cut -c1-400 | head -40
		_failures=$((_failures + 1))
	fi
}
