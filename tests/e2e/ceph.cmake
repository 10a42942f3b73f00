# Real Ceph (Debian's 16.2 packages, scripts/install-deps-ceph): a one-node
# cluster started by scripts/ceph-minicluster. Skipped when Ceph is absent.
corecap_e2e_test(ceph_minicluster ceph_minicluster.sh TIMEOUT 300 LABELS ceph)
# A real ceph-osd under the shim, profiled by corecap record under rados
# bench: pools against /proc, IOPS against a bare OSD (issue #7).
corecap_e2e_test(ceph_profile ceph_profile.sh TIMEOUT 600 LABELS ceph)
# Verbose debug logging on a real ceph-osd: the report's `logging`, from
# wall-clock samples of the op-path threads matched with the OpTracker's
# ops, must explain at least half of the latency it adds (issue #7).
corecap_e2e_test(ceph_logging ceph_logging.sh TIMEOUT 600 LABELS ceph)
# ceph-osd's DWARF from Debian's ceph-osd-dbg: inline frames and source
# lines in the lock table and the flame graphs (issue #17).
corecap_e2e_test(ceph_dbg ceph_dbg.sh TIMEOUT 300 LABELS "ceph;ceph-dbg")
# Disk-backed OSDs (issue #21): BlueStore on sparse files (DB/WAL on a
# second one) and FileStore with its journal, each started, benchmarked and
# stopped, FileStore under the shim (about 40-60 s in all).
corecap_e2e_test(ceph_disk ceph_disk.sh TIMEOUT 300 LABELS ceph)
# Four memstore OSDs on one box, one pool spanning them (about 30 s).
corecap_e2e_test(ceph_osds ceph_osds.sh TIMEOUT 300 LABELS ceph)
# A BlueStore OSD under the shim: its libaio I/O counted by class, the DB
# file's bytes against BlueFS's own count (about 20 s).
corecap_e2e_test(ceph_bluestore_shim ceph_bluestore_shim.sh TIMEOUT 300 LABELS ceph)
# Known answers of a BlueStore OSD's 4 KiB writes at -t 1 (issue #21): the
# OpTracker writes' io and categories against their latency, fsync time per
# op, the kv_sync/aio pools, and the shim's aio wait against BlueStore's
# state_deferred_aio_wait_lat and kv_sync_lat (about 45-60 s).
corecap_e2e_test(ceph_bluestore_ops ceph_bluestore_ops.sh TIMEOUT 300 LABELS "ceph;measured")
# The critical path of a real ceph-osd's OpTracker ops under verbose
# logging (issue #13): kernel events, root; about 90 s (3 x 2 rounds).
corecap_e2e_test(ceph_critical ceph_critical.sh TIMEOUT 420 LABELS "ceph;kernel;measured")
set_tests_properties(e2e.ceph_critical PROPERTIES RUN_SERIAL TRUE)
# Its 0.8-1.2 logging known answer, labelled unmet while the perf producer
# recorded system calls (0.69, 0.62, 0.72 in three runs), gave 0.94 0.86
# 0.90 0.78 0.90 0.88 0.92 0.90 0.84 0.90 in ten runs of the eBPF producer
# (the fifth of two pairs) on a quiet machine (2026-12-04): a `measured`
# test with its three attempts.
# The wait-for graph of a bare ceph-osd at rados bench -t 10 (issue #13):
# kernel events, root; about 35 s.
corecap_e2e_test(ceph_waitfor ceph_waitfor.sh TIMEOUT 240 LABELS "ceph;kernel;measured")
# The OpTracker read without stalling the OSD (issue #43 item 5): drained
# in slices during the window against one dump at its end, the longest wait
# on OpHistory's lock from the shim's table; the settings put back, also
# by the stop watchdog after a SIGKILL (about 60-90 s).
corecap_e2e_test(ceph_optracker_drain ceph_optracker_drain.sh TIMEOUT 300 LABELS "ceph;measured")
set_tests_properties(e2e.ceph_optracker_drain PROPERTIES RUN_SERIAL TRUE)
