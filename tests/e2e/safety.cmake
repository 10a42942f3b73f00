# Safety under faults and hostile input (issue 14): files never lost or
# removed, the profiled daemon never harmed, a killed collector's run
# readable. The whole set runs in about 2 min on two cores.
corecap_e2e_test(safety_out_file safety_out_file.sh TIMEOUT 120 LABELS "analysis;safety")
