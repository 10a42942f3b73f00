#!/usr/bin/env bash
# run_fuzz.sh HARNESS SEEDS WORK SECONDS [MAX_LEN]: fuzzes for SECONDS from the
# committed SEEDS (read-only) and the inputs it found before (WORK/corpus),
# and fails on the first crash, leak, sanitizer report or input slower than
# 10 s, leaving the input in WORK/artifacts/ (commit it to SEEDS once the
# reader is fixed: it becomes a regression seed). MAX_LEN: the largest
# input tried (65536 unless given; larger for the readers that take a size
# or a length from the file, so that their bounds past 64 KiB are reached).
set -euo pipefail
harness=$1 seeds=$2 work=$3 seconds=$4 max_len=${5:-65536}
mkdir -p "$work/corpus" "$work/artifacts"
[ -d "$seeds" ] || { echo "FAIL: no seed corpus at $seeds"; exit 1; }
status=0
"$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
	-error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" >"$work/log" 2>&1 || status=$?
grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/log" || true
if [ "$status" -ne 0 ]; then
	echo "FAIL: $(basename "$harness") exited $status; the end of its log:"
	tail -n 60 "$work/log"
	ls -l "$work/artifacts" || true
	exit 1
fi
echo "ok: $(basename "$harness"): no crash in ${seconds} s, $(ls "$seeds" | wc -l) seeds"
