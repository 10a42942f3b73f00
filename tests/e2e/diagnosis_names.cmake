# One name per lock across the report's sections, and verify taking the
# site as the report prints it (issue #41 item 5; collector/verify/site_spec.h,
# analysis/model/lock_table.h's corecap_lock_label). Each records refosd
# --big-lock for 2-3 s; neither measures throughput.
corecap_e2e_test(diagnosis_names_onename diagnosis_names_onename.sh TIMEOUT 120 LABELS "analysis;names")
corecap_e2e_test(diagnosis_names_verify diagnosis_names_verify.sh TIMEOUT 120 LABELS "analysis;verify;names")
