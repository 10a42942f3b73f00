# Idle waits apart from contention (issue #41 item 4;
# analysis/model/futex_locks.h): refosd bare under load, recorded with
# kernel events for 4 s, then stat --kernel on it; not a throughput
# measurement.
corecap_e2e_test(diagnosis_idle_waits diagnosis_idle_waits.sh TIMEOUT 150 LABELS "analysis;kernel;idle")
