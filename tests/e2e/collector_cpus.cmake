# record --collector-cpus (issue 43, item 6): record's threads on the CPUs
# given, the benchmark not confined, CPUs it may not use refused; ~10 s.
corecap_e2e_test(collector_cpus collector_cpus.sh TIMEOUT 120 LABELS "collector")
