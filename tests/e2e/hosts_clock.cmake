# Several hosts (issue 46): test hosts are network and time namespaces
# (tests/e2e/hosts_lib.sh), so the true clock offsets are known.
# corecap clock recovers +37.5 s and -12.25 s within 50 us (~5 s).
corecap_e2e_test(hosts_clock hosts_clock.sh TIMEOUT 90 LABELS "collector;hosts")
# refosd under corecap run in hosts B and C, refbench in A, one record
# --hosts: both sub-runs back and reportable, the clocks within 50 us; an
# unreachable host named, the run partial, the daemons serving (~25 s).
corecap_e2e_test(hosts_record hosts_record.sh TIMEOUT 90 LABELS "collector;hosts")
