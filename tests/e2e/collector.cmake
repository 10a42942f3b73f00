# The collector end to end: `corecap run` and `corecap record` against refosd.
# The whole set runs in about 60 s on two cores.
corecap_e2e_test(collector_cli collector_cli.sh TIMEOUT 60 LABELS collector)
corecap_e2e_test(collector_record collector_record.sh TIMEOUT 120 LABELS collector)
corecap_e2e_test(collector_errors collector_errors.sh TIMEOUT 120 LABELS collector)
corecap_e2e_test(collector_sigkill collector_sigkill.sh TIMEOUT 180 LABELS collector)
corecap_e2e_test(collector_sessiond collector_sessiond.sh TIMEOUT 120 LABELS collector)
