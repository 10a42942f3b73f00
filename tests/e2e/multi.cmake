# Several daemons in one record (issue #21 item 4; record_multi.h).
# The bad PID lists and a daemon dying mid-window, without Ceph (~10 s).
corecap_e2e_test(multi_errors multi_errors.sh TIMEOUT 120 LABELS collector multi)
