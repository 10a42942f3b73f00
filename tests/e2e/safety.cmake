# Safety under faults and hostile input (issue 14): files never lost or
# removed, the profiled daemon never harmed, a killed collector's run
# readable. The whole set runs in about 1 min on two cores.
corecap_e2e_test(safety_out_file safety_out_file.sh TIMEOUT 120 LABELS "analysis;safety")
# Under a heavy load (load average ~10 on 2 cores) gperftools' profiler in
# the test daemon stopped answering its toggle signal for over a minute in
# two of the runs here (no abort, the daemon alive): three attempts, as for
# the measured tests, and a bound that leaves room for its 3 s waits.
corecap_e2e_test(safety_cpuprofile safety_cpuprofile.sh TIMEOUT 240 LABELS "collector;safety;measured")
corecap_e2e_test(safety_signals safety_signals.sh TIMEOUT 180 LABELS "collector;safety")
corecap_e2e_test(safety_partial safety_partial.sh TIMEOUT 180 LABELS "collector;safety")
