# Real Ceph (Debian's 16.2 packages, scripts/install-deps-ceph): a one-node
# cluster started by scripts/ceph-minicluster. Skipped when Ceph is absent.
corecap_e2e_test(ceph_minicluster ceph_minicluster.sh TIMEOUT 300 LABELS ceph)
