# xrootd under the shim against a bare xrootd (bench/xrootd_iops.sh: three
# servers, bare, shim and a bare control, in rotating blocks of xrdbench
# -t 1 -b 1 read rounds). The 97% target is read from the committed
# benchmark's output (docs/xrootd.md); on a shared 2-core machine this
# test gates only a gross regression: the geometric mean of 6 blocks'
# shim/bare ratios must stay >= 0.5.
. "$CORECAP_SRC/tests/e2e/xrootd_lib.sh"
xrd_need_tools
rc=0
"$CORECAP_SRC/bench/xrootd_iops.sh" -B "$CORECAP_BUILD" -n 6 -d 1 -g 0.5 >"$WORK/bench.out" 2>&1 || rc=$?
cat "$WORK/bench.out"
expect_eq "bench/xrootd_iops.sh -g 0.5 exits 0" 0 "$rc"
expect_true "it printed the geometric mean" grep -q "geometric mean" "$WORK/bench.out"
expect_true "it printed the median and its intervals" grep -q "median .* bootstrap 95%" "$WORK/bench.out"
expect_true "it printed the control's ratio" grep -q "^bare2 / bare IOPS: median" "$WORK/bench.out"
finish
