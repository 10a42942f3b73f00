# The disk-backed OSD's known answer (docs/methodology.md, "The device's
# completions"): a bare BlueStore ceph-osd's 4 KiB writes at -t 16, their
# critical path through the kv_sync thread and the device's completions.
corecap_e2e_test(diagnosis_kvsync diagnosis_kvsync.sh TIMEOUT 300 LABELS "analysis;ceph;kernel;measured")
set_tests_properties(e2e.diagnosis_kvsync PROPERTIES RUN_SERIAL TRUE)
