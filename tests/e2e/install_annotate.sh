#!/usr/bin/env bash
# `cmake --install` gives a daemon developer what they need: the header,
# the probe library, the binary and a pkg-config file with which an
# annotated program builds and runs outside the source tree.
set -euo pipefail
. "$CORECAP_SRC/tests/e2e/lib.sh"

prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$CORECAP_BUILD" --prefix "$prefix" >"$prefix/install.log"

libdir=$(find "$prefix" -name 'libcorecap-tp.so*' -printf '%h\n' | head -n 1)
expect_file "$prefix/include/corecap/annotate.h"
expect_file "$prefix/include/corecap/corecap_op_tp.h"
expect_file "$libdir/libcorecap-tp.so"
expect_file "$libdir/pkgconfig/corecap-annotate.pc"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc $(pkg-config --cflags corecap-annotate) -o "$prefix/annotated_ops" \
	"$CORECAP_SRC/tests/e2e/tracepoints/annotated_ops.c" $(pkg-config --libs corecap-annotate)
expect_eq "installed annotated program runs" "annotated_ops: 3 ops" \
	"$(LD_PRELOAD="$libdir/libcorecap-tp.so" "$prefix/annotated_ops" 3)"
expect_eq "no liblttng-ust dependency" 0 \
	"$(readelf -d "$prefix/annotated_ops" | grep -c 'lttng' || true)"
finish
