# A real xrootd (Debian's 5.5.3, scripts/install-deps-xrootd) run by
# scripts/xrootd-server and driven by tests/xrootd/xrdbench (docs/xrootd.md).
# Skipped when xrootd is absent. The set takes 2.5-3 min on two loaded cores.
corecap_e2e_test(xrootd_server xrootd_server.sh TIMEOUT 120 LABELS xrootd)
corecap_e2e_test(xrootd_bench xrootd_bench.sh TIMEOUT 120 LABELS xrootd)
# Ops detected from socket I/O (analysis/model/net_ops.c): on xrootd against
# xrdbench's IOPS (a measurement: label measured), and on refosd against its
# own annotations (two methods on one trace). About 30 s each.
corecap_e2e_test(xrootd_ops xrootd_ops.sh TIMEOUT 180 LABELS xrootd)
set_property(TEST e2e.xrootd_ops APPEND PROPERTY LABELS measured)
corecap_e2e_test(analysis_netops_refosd analysis_netops_refosd.sh TIMEOUT 180 LABELS "analysis;refosd;xrootd")
# A ceph-osd and an xrootd compared per op (needs Ceph too; about 60 s).
corecap_e2e_test(xrootd_compare xrootd_compare.sh TIMEOUT 300 LABELS "xrootd;ceph")
# The shim's cost on xrootd's IOPS (a measurement on a shared machine: a
# gross-regression gate only; three servers, 6 blocks of 1 s rounds: about 25 s).
corecap_e2e_test(xrootd_shim_iops xrootd_shim_iops.sh TIMEOUT 180 LABELS xrootd)
set_property(TEST e2e.xrootd_shim_iops APPEND PROPERTY LABELS measured)
# Detected ops' critical paths (kernel events: root; about 20 s), and
# flame --kind op, export --chrome and replies in several writes (1-byte
# and 4 MiB reads; about 25 s).
corecap_e2e_test(xrootd_critical_path xrootd_critical_path.sh TIMEOUT 180 LABELS "xrootd;kernel")
corecap_e2e_test(xrootd_op_views xrootd_op_views.sh TIMEOUT 180 LABELS xrootd)
# XRootD's framing: ops named for their request id with the driver's
# counts (write 64K, stat, ping, read 4M with kXR_oksofar chunks); about 20 s.
corecap_e2e_test(xrootd_frame xrootd_frame.sh TIMEOUT 120 LABELS xrootd)
