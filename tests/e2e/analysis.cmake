# The analysis (`corecap report`), end to end. Tests that record need an
# LTTng session daemon; the refosd ones also the shim and the collector.
corecap_e2e_test(analysis_golden analysis_golden.sh TIMEOUT 60 LABELS analysis)
corecap_e2e_test(analysis_errors analysis_errors.sh TIMEOUT 60 LABELS analysis)
corecap_e2e_test(analysis_tracegen analysis_tracegen.sh TIMEOUT 90 LABELS analysis)
corecap_e2e_test(analysis_loss analysis_loss.sh TIMEOUT 90 LABELS analysis)
