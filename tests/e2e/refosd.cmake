# refosd and refbench end to end (tests/refosd, docs/refosd.md). The set
# takes 35-55 s on two cores (refosd_biglock repeats rounds disturbed by
# other processes).
corecap_e2e_test(refosd_bench refosd_bench.sh TIMEOUT 60 LABELS refosd)
corecap_e2e_test(refosd_biglock refosd_biglock.sh TIMEOUT 90 LABELS refosd)
corecap_e2e_test(refosd_errors refosd_errors.sh TIMEOUT 60 LABELS refosd)
corecap_e2e_test(refosd_logging refosd_logging.sh TIMEOUT 60 LABELS refosd)
corecap_e2e_test(refosd_annotate refosd_annotate.sh TIMEOUT 60 LABELS refosd)
