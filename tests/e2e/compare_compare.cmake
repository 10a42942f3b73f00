# corecap compare on two refosd runs of different --debug (1 and 20, with
# kernel events): the headline, the configuration's difference, the
# ratios' floor, text and JSON alike, the differential flame graph (about
# 30 s); its errors (a run missing: one line, exit 1; about 1 s); and on a
# ceph-osd with kernel events, debug_osd 1/5 against 20/20: the OpTracker
# ops' critical path in the headline and Ceph's changed config values
# (about 40 s with the cluster).
corecap_e2e_test(compare_debug compare_debug.sh TIMEOUT 90 LABELS "analysis;compare")
corecap_e2e_test(compare_errors compare_errors.sh TIMEOUT 30 LABELS "analysis;compare")
corecap_e2e_test(compare_ceph compare_ceph.sh TIMEOUT 120 LABELS "analysis;compare;ceph")
