#!/usr/bin/env bash
# Version 3 of kernel/events.bin (corecap/kernel_format.h, "Version 3":
# zstd frames of version 2's blocks, as the collector writes it) against
# version 1 on the committed golden kernel run: kernel_v2_golden.sh's
# checks (the same report, text and JSON, byte for byte; the same records
# to kernel_read; converted back, the original byte for byte) with the
# file at most 25% of version 1 (18% when measured: 14,008 of 76,768
# bytes). A frame cut short, and the hostile frames, are the reader's
# unit tests' (check_analysis_kernel_reader).
set -euo pipefail
KV_VERSION=3 KV_MAX_PCT=25 bash "$CORECAP_SRC/tests/e2e/kernel_v2_golden.sh"
