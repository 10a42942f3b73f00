# corecap verify end to end (collector/cmd_verify.c, docs/methodology.md).
# verify_safety takes about 20 s; verify_refosd about 25 s (3 rounds of
# three 2 s benchmark runs), and is a measured known answer.
corecap_e2e_test(verify_safety verify_safety.sh TIMEOUT 90 LABELS "verify")
# Its known answer (the big lock's slope within 25% of the model's, a
# control site near 0) was not met in the runs tried (issue #15): labelled
# `unmet`, left out of scripts/check's default run (`scripts/check -L unmet`).
corecap_e2e_test(verify_refosd verify_refosd.sh TIMEOUT 120 LABELS "verify;measured;unmet")
