# `corecap stat`'s kernel view (analysis/stat_kernel.c over the collector's
# kernel_capture.c) on refosd started without the shim. Root and tracefs,
# else skipped. About 15 s; it loads refosd for 5 s.
corecap_e2e_test(stat_kernel stat_kernel.sh TIMEOUT 90 LABELS "kernel;stat")
# The big lock's rank among the futex words is a measurement on a shared
# 2-core machine: three attempts in scripts/check.
set_property(TEST e2e.stat_kernel APPEND PROPERTY LABELS measured)
