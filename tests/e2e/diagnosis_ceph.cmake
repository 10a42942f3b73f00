# The diagnosis of a bare memstore ceph-osd (issue #41; docs/ceph.md, "The
# diagnosis of a bare memstore OSD"): rados bench -t 1 and -t 16 recorded
# with kernel events, root; about 60-120 s on a busy box. It measures, so it runs alone.
corecap_e2e_test(diagnosis_ceph diagnosis_ceph.sh TIMEOUT 300 LABELS "analysis;ceph;kernel;measured")
set_tests_properties(e2e.diagnosis_ceph PROPERTIES RUN_SERIAL TRUE)
