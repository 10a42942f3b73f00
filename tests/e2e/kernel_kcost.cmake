# The eBPF producer's folded futex records against the perf producer's,
# the same refosd recorded by both at once (issue 43 item 4's guard).
corecap_e2e_test(kernel_fold_agree kernel_fold_agree.sh TIMEOUT 120 LABELS "analysis;kernel")
