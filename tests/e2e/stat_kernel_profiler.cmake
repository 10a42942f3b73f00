# `corecap stat --kernel` leaves the profiler's threads and locks out of its
# tables unless --keep-profiler (issue #41 item 3); root and tracefs; ~15 s.
corecap_e2e_test(stat_kernel_profiler stat_kernel_profiler.sh TIMEOUT 90 LABELS "kernel;stat")
