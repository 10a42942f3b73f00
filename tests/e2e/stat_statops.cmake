# `corecap stat`'s ops/s from the shim's op counter (issue 47 item 2).
# About 20 s; it loads refosd for 5 s.
corecap_e2e_test(stat_ops stat_ops.sh TIMEOUT 90 LABELS "analysis;stat;measured")
