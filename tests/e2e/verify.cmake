# corecap verify end to end (collector/verify/cmd_verify.c, docs/methodology.md).
# verify_safety takes about 20 s; verify_refosd about 35 s (5 rounds of
# three 2 s benchmark runs), and is a measured known answer.
corecap_e2e_test(verify_safety verify_safety.sh TIMEOUT 90 LABELS "verify")
# Its known answer: the big lock's slope within 25% of the model's (0.91-1.10
# of it in 10 runs here), a control site under a quarter of it.
corecap_e2e_test(verify_refosd verify_refosd.sh TIMEOUT 120 LABELS "verify;measured")
