#!/usr/bin/env bash
# Bounded input and symbolic links (issue #42, items 7 and 9), on hostile
# copies of the golden run: sparse 10 GB run files (threads.tsv, maps,
# buildids.tsv, wall.samples, manifest.json), NUL-filled ones within
# their size bound, a FIFO in place of a stream index (trace/.../index/),
# `-o` naming a FIFO that nobody reads, and links to another user's files
# (nobody's) outside the run. Every analysis command (report, flame,
# export --chrome, html, compare) must end within T seconds (`timeout`:
# 124 is a hang), with the exit status and the message each case calls
# for, and a peak memory (GNU time's %M) under RSS_MAX_KB: what a run file
# holds never decides how much memory is taken (docs/robustness.md).
set -uo pipefail
. "$CORECAP_SRC/tests/e2e/analysis_lib.sh"

[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time) is absent: scripts/install-deps installs it"
id nobody >/dev/null 2>&1 || skip "no user 'nobody' to own the files linked in"

T=10                         # seconds any one command may take
RSS_MAX_KB=$((256 * 1024))   # the stated bound: 256 MiB (the golden run takes ~10 MiB)
GOOD="$WORK/good"
cp -r "$DATA/golden-run" "$GOOD"
chmod -R u+w "$GOOD"

# copy_run NAME: a fresh copy of the golden run, its path on stdout.
copy_run() {
	rm -rf "${WORK:?}/$1"
	cp -r "$GOOD" "$WORK/$1"
	echo "$WORK/$1"
}

# bounded WHAT WANT NEEDLE CMD...: CMD ends within T s with status WANT,
# its output names NEEDLE (unless empty), its peak memory is under the bound.
bounded() {
	local what=$1 want=$2 needle=$3 status=0 rss
	shift 3
	rm -f "$WORK/rss"
	timeout -k 2 "$T" /usr/bin/time -f %M -o "$WORK/rss" "$@" >"$WORK/out" 2>"$WORK/err" ||
		status=$?
	expect_eq "$what: exit status (124: longer than $T s)" "$want" "$status"
	if [ -n "$needle" ]; then
		expect_true "$what: the output names '$needle'" grep -qF -- "$needle" "$WORK/err" "$WORK/out"
		grep -qF -- "$needle" "$WORK/err" "$WORK/out" || sed 's/^/    /' "$WORK/err" | head -5
	fi
	rss=$(tail -n 1 "$WORK/rss" 2>/dev/null)
	[[ $rss =~ ^[0-9]+$ ]] || rss=999999999
	echo "  $what: peak memory $rss KiB"
	expect_calc "$what: peak memory $rss KiB under $RSS_MAX_KB KiB" "$rss < $RSS_MAX_KB"
}

# every_command CASE RUN NEEDLE WANTS: the five commands on RUN; WANTS gives
# each one's exit status as "report flame export html compare" (flame with
# FLAME_KIND, op unless set; compare: the good run against RUN); a status
# followed by '-' is of a command that does not read the file (no NEEDLE).
every_command() {
	local c=$1 run=$2 needle=$3 w n i
	local names=(report flame "export --chrome" html compare)
	read -r -a w <<<"$4"
	for i in 0 1 2 3 4; do
		n=$needle
		[[ ${w[$i]} == *- ]] && n=""
		case $i in
		0) set -- "$CORECAP" report "$run" ;;
		1) set -- "$CORECAP" flame --kind "${FLAME_KIND:-op}" "$run" ;;
		2) set -- "$CORECAP" export --chrome -o "$WORK/x.json" "$run" ;;
		3) set -- "$CORECAP" html -o "$WORK/x.html" "$run" ;;
		4) set -- "$CORECAP" compare "$GOOD" "$run" ;;
		esac
		bounded "$c: ${names[$i]}" "${w[$i]%-}" "$n" "$@"
	done
}

TOO_BIG="bytes, more than the"
NUL="a NUL byte at byte 0"

# The good run itself: every command passes, and sets the scale of memory.
every_command "the golden run" "$GOOD" "" "0 0 0 0 0"

# Sparse 10 GB files: refused by their size (one fstat), not read.
r=$(copy_run threads10g) && truncate -s 10G "$r/threads.tsv"
every_command "threads.tsv of 10 GB" "$r" "'$r/threads.tsv': 10737418240 $TOO_BIG 1073741824" "1 1 0 1 1"
r=$(copy_run maps10g) && truncate -s 10G "$r/maps"
every_command "maps of 10 GB" "$r" "'$r/maps': 10737418240 $TOO_BIG 16777216" "1 1 0- 1 1"
r=$(copy_run buildids10g) && truncate -s 10G "$r/buildids.tsv"
every_command "buildids.tsv of 10 GB" "$r" "'$r/buildids.tsv': 10737418240 $TOO_BIG 4194304" "1 1 0- 1 1"
r=$(copy_run manifest10g) && truncate -s 10G "$r/manifest.json"
every_command "manifest.json of 10 GB" "$r" "'$r/manifest.json': cannot open: 10737418240 $TOO_BIG 16777216" "1 1 1 1 1"
r=$(copy_run wall10g) && truncate -s 10G "$r/wall.samples"
FLAME_KIND=wall every_command "wall.samples of 10 GB" "$r" "'$r/wall.samples': 10737418240 $TOO_BIG 4294967296" "0- 1 0- 1 0-"

# NUL-filled files within their bound: refused at the first NUL byte, not
# gathered into one endless line.
r=$(copy_run threads_nul) && rm "$r/threads.tsv" && truncate -s 512M "$r/threads.tsv"
every_command "threads.tsv of 512 MiB of NULs" "$r" "'$r/threads.tsv': $NUL" "1 1 0 1 1"
r=$(copy_run maps_nul) && rm "$r/maps" && truncate -s 8M "$r/maps"
every_command "maps of 8 MiB of NULs" "$r" "'$r/maps': $NUL" "1 1 0- 1 1"
r=$(copy_run buildids_nul) && rm "$r/buildids.tsv" && truncate -s 2M "$r/buildids.tsv"
every_command "buildids.tsv of 2 MiB of NULs" "$r" "'$r/buildids.tsv': $NUL" "1 1 0- 1 1"
r=$(copy_run wall_nul) && truncate -s 1G "$r/wall.samples"
bounded "wall.samples of 1 GiB of NULs: flame --kind wall" 1 "'$r/wall.samples': $NUL" \
	"$CORECAP" flame --kind wall "$r"
bounded "wall.samples of 1 GiB of NULs: html" 1 "'$r/wall.samples': $NUL" \
	"$CORECAP" html -o "$WORK/x.html" "$r"
# A line longer than a recording writes, without a NUL: refused at its bound.
r=$(copy_run threads_long) && { head -n 1 "$GOOD/threads.tsv"; head -c 100000000 /dev/zero | tr '\0' 7; } >"$r/threads.tsv"
bounded "threads.tsv with a line of 100 MB: report" 1 "'$r/threads.tsv': line 2 (at byte" \
	"$CORECAP" report "$r"

# A FIFO in place of a stream's index: refused before libbabeltrace2 opens it.
r=$(copy_run fifo_idx)
idx=$(find "$r/trace" -path '*/index/*.idx' | head -n 1)
expect_true "the golden run has a stream index" test -n "$idx"
rm -f "$idx" && mkfifo "$idx"
every_command "a FIFO as the stream index" "$r" "trace file '$idx': not a regular file" "1 1 1 1 1"

# -o naming a FIFO that nobody reads: refused when the arguments are read,
# whether the input is good or not (a bad run: nothing is read at all).
mkfifo "$WORK/out.fifo"
bad=$(copy_run bad) && echo '{"format": "corecap-run", "version": 1, "window": {' >"$bad/manifest.json"
for run in "$GOOD" "$bad"; do
	n=$(basename "$run")
	for cmd in "flame --kind op -o" "export --chrome -o" "html -o" "report --dump-ops"; do
		# shellcheck disable=SC2086
		bounded "$n run, $cmd a FIFO without a reader" 1 "'$WORK/out.fifo': a FIFO that no process reads" \
			"$CORECAP" $cmd "$WORK/out.fifo" "$run"
	done
done
expect_true "the FIFO is still a FIFO" test -p "$WORK/out.fifo"

# Links to another user's files, outside the run: refused by name, and
# nothing of them in any output.
other="$WORK/other"
mkdir "$other"
cp -r "$GOOD/threads.tsv" "$GOOD/maps" "$GOOD/trace" "$other/"
echo "secret-of-nobody" >>"$other/maps"
chown -R nobody "$other"
for link in absolute relative; do
	r=$(copy_run "link_$link")
	rm "$r/threads.tsv"
	if [ "$link" = absolute ]; then ln -s "$other/threads.tsv" "$r/threads.tsv"; else ln -s ../other/threads.tsv "$r/threads.tsv"; fi
	every_command "threads.tsv an $link link out of the run" "$r" \
		"'$r/threads.tsv': a symbolic link that leads out of the run directory" "1 1 0 1 1"
done
r=$(copy_run link_maps) && rm "$r/maps" && ln -s "$other/maps" "$r/maps"
every_command "maps a link out of the run" "$r" "'$r/maps': a symbolic link that leads out of the run directory" "1 1 0- 1 1"
expect_eq "nothing of nobody's maps in any output" "" "$(grep -l secret-of-nobody "$WORK"/x.* "$WORK/out" 2>/dev/null)"
r=$(copy_run link_trace) && rm -rf "$r/trace" && ln -s "$other/trace" "$r/trace"
every_command "trace/ a link out of the run" "$r" "a symbolic link that leads out of the run directory" "1 1 1 1 1"
s=$(find "$GOOD/trace" -type f -path '*64-bit/*' ! -name metadata ! -path '*/index/*' | head -n 1)
s=${s#"$GOOD/"}
r=$(copy_run link_stream) && rm "$r/$s" && ln -s "$other/${s#trace/}" "$r/$s"
every_command "a stream file a link out of the run" "$r" "'$r/$s': a symbolic link that leads out of the run directory" "1 1 1 1 1"
# A link that stays inside the run is the run's own file: read.
r=$(copy_run link_inside) && mkdir "$r/sub" && mv "$r/threads.tsv" "$r/sub/" && ln -s sub/threads.tsv "$r/threads.tsv"
every_command "threads.tsv a link inside the run" "$r" "" "0 0 0 0 0"
expect_eq "read through the inner link: the same report as the golden run's" \
	"$("$CORECAP" report "$GOOD" 2>/dev/null | sed 1d)" "$("$CORECAP" report "$r" 2>/dev/null | sed 1d)"

finish
