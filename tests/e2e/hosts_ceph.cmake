# A Ceph cluster across hosts (issue 46): a mon in host M, two memstore
# OSDs in hosts B and C (network and time namespaces, tests/e2e/hosts_lib.sh),
# a pool of size 2, rados bench 4 KiB writes from host A; one record
# --hosts with each host's ceph-osds: the run complete, the clocks within
# 50 us, each OSD's OpTracker ops and perf counters against the
# benchmark's writes and the other's replica writes, one system diagnosis
# over both, RUN:HOST to html, flame and export; a second record, each
# host's clock refined from the replication pairs holding its true
# offset; nothing left behind (35-60 s here, the cluster's start 8-9 s).
corecap_e2e_test(hosts_ceph hosts_ceph.sh TIMEOUT 240 LABELS "collector;hosts;ceph")
