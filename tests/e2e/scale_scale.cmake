# `corecap scale` (issue #45; docs/methodology.md, "Scaling"): the known
# answers measure refosd at 1 and 2 cores (about 20 s each), so they run alone.
corecap_e2e_test(scale_biglock scale_biglock.sh TIMEOUT 90 LABELS "analysis;scale;measured")
set_tests_properties(e2e.scale_biglock PROPERTIES RUN_SERIAL TRUE)
corecap_e2e_test(scale_linear scale_linear.sh TIMEOUT 90 LABELS "analysis;scale;measured")
set_tests_properties(e2e.scale_linear PROPERTIES RUN_SERIAL TRUE)
corecap_e2e_test(scale_closed_loop scale_closed_loop.sh TIMEOUT 90 LABELS "analysis;scale;measured")
set_tests_properties(e2e.scale_closed_loop PROPERTIES RUN_SERIAL TRUE)
# Every thread's affinity restored after kill -9, SIGTERM, and a thread's own reset.
corecap_e2e_test(scale_safety scale_safety.sh TIMEOUT 90 LABELS "analysis;scale")
corecap_e2e_test(scale_errors scale_errors.sh TIMEOUT 60 LABELS "analysis;scale")
corecap_e2e_test(scale_quota scale_quota.sh TIMEOUT 90 LABELS "analysis;scale")
set_tests_properties(e2e.scale_quota PROPERTIES RUN_SERIAL TRUE)
corecap_e2e_test(ceph_scale ceph_scale.sh TIMEOUT 300 LABELS "analysis;scale;ceph;measured")
set_tests_properties(e2e.ceph_scale PROPERTIES RUN_SERIAL TRUE)
# --prepare: run before each point, outside its window; a failure stops cleanly.
corecap_e2e_test(scale_prepare scale_prepare.sh TIMEOUT 90 LABELS "analysis;scale")
