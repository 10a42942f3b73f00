# `corecap stat`'s kernel view (analysis/stat_kernel.c over the collector's
# kernel_capture.c) on refosd started without the shim. Root and tracefs,
# else skipped. About 15 s; it loads refosd for 5 s.
corecap_e2e_test(stat_kernel stat_kernel.sh TIMEOUT 90 LABELS "kernel;stat")
