# Safety under faults and hostile input (issue 14): files never lost or
# removed, the profiled daemon never harmed, a killed collector's run
# readable. The whole set runs in about 1 min on two cores.
corecap_e2e_test(safety_out_file safety_out_file.sh TIMEOUT 120 LABELS "analysis;safety")
corecap_e2e_test(safety_cpuprofile safety_cpuprofile.sh TIMEOUT 120 LABELS "collector;safety")
corecap_e2e_test(safety_signals safety_signals.sh TIMEOUT 180 LABELS "collector;safety")
corecap_e2e_test(safety_partial safety_partial.sh TIMEOUT 180 LABELS "collector;safety")
