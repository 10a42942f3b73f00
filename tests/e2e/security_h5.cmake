# Issue #42, items 7, 8a and 9: bounded input, truncated kernel files and
# symbolic links out of a run, for every analysis command
# (docs/robustness.md, "Bounded input, cut kernel files, links out of a run").
corecap_e2e_test(security_input security_input.sh TIMEOUT 170 LABELS "security;analysis")
corecap_e2e_test(security_input_kernel security_input_kernel.sh TIMEOUT 170 LABELS "security;analysis;kernel")
