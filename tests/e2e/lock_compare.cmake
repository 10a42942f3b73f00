# The lock table's order, families and holds (report, html) and compare's
# headline and warnings, on refosd runs. Known answers measured on the
# machine: run alone, three attempts (the measured label).
corecap_e2e_test(analysis_refosd_locktable analysis_refosd_locktable.sh TIMEOUT 120
	LABELS "analysis;measured")
set_tests_properties(e2e.analysis_refosd_locktable PROPERTIES RUN_SERIAL TRUE)
corecap_e2e_test(analysis_refosd_compare analysis_refosd_compare.sh TIMEOUT 150
	LABELS "analysis;measured")
set_tests_properties(e2e.analysis_refosd_compare PROPERTIES RUN_SERIAL TRUE)
corecap_e2e_test(analysis_compare_ceph analysis_compare_ceph.sh TIMEOUT 60 LABELS analysis)
corecap_e2e_test(analysis_html_tables analysis_html_tables.sh TIMEOUT 120 LABELS analysis)
