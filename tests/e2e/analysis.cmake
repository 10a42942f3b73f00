# The analysis (`corecap report`), end to end. Tests that record need an
# LTTng session daemon; the refosd ones also the shim and the collector.
corecap_e2e_test(analysis_golden analysis_golden.sh TIMEOUT 60 LABELS analysis)
corecap_e2e_test(analysis_errors analysis_errors.sh TIMEOUT 60 LABELS analysis)
corecap_e2e_test(analysis_tracegen analysis_tracegen.sh TIMEOUT 90 LABELS analysis)
corecap_e2e_test(analysis_loss analysis_loss.sh TIMEOUT 90 LABELS analysis)
corecap_e2e_test(analysis_refosd_biglock analysis_refosd_biglock.sh TIMEOUT 90 LABELS analysis)
corecap_e2e_test(analysis_refosd_msgr analysis_refosd_msgr.sh TIMEOUT 90 LABELS analysis)
corecap_e2e_test(analysis_refosd_logging analysis_refosd_logging.sh TIMEOUT 180 LABELS analysis)
# The known answers measure throughput: they must not share the cores with other tests.
set_tests_properties(e2e.analysis_refosd_biglock e2e.analysis_refosd_msgr
	e2e.analysis_refosd_logging e2e.analysis_tracegen PROPERTIES RUN_SERIAL TRUE)
corecap_e2e_test(analysis_hostile analysis_hostile.sh TIMEOUT 300 LABELS analysis)
