# What record says while it records (issue #18): banner, progress, one
# meaning of "samples". About 6 s (refbench runs 3 s); needs an LTTng
# session daemon.
corecap_e2e_test(record_ux record_ux.sh TIMEOUT 60 LABELS ux)
