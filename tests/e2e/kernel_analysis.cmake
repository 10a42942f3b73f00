# The analysis of runs recorded without the shim: without a trace
# (label analysis), and from kernel events (label kernel: root and tracefs).
corecap_e2e_test(analysis_bare analysis_bare.sh TIMEOUT 120 LABELS analysis)
