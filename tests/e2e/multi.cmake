# Several daemons in one record (issue #21 item 4; record_multi.h).
# The bad PID lists and a daemon dying mid-window, without Ceph (~10 s).
corecap_e2e_test(multi_errors multi_errors.sh TIMEOUT 120 LABELS collector multi)
# Four memstore OSDs under one record --ceph-osds of rados bench -t 10 -b 1:
# every OSD's pools, merged cores = the daemons' sum, the box's verdict
# (about 60 s: the cluster's start, a 5 s bench, four reports).
corecap_e2e_test(ceph_multi_osds ceph_multi_osds.sh TIMEOUT 300 LABELS ceph measured multi)
# Two reference daemons under the shim in one record (trace, wall, kernel,
# shim stats), the benchmark driving one: each source the right daemon's (~20 s).
corecap_e2e_test(multi_refosd multi_refosd.sh TIMEOUT 180 LABELS analysis multi)
