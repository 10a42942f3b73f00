# Safe as root among other users (issue 42, items 4 and 5): the shim's
# counters are a sealed memfd read through the daemon itself; no sweep of
# files across PID namespaces, no truncation (no SIGBUS), no forged file.
corecap_e2e_test(security_stats_pidns security_stats_pidns.sh TIMEOUT 120 LABELS "security;shim")
corecap_e2e_test(security_stats_truncate security_stats_truncate.sh TIMEOUT 120 LABELS "security;shim")
corecap_e2e_test(security_stats_forged security_stats_forged.sh TIMEOUT 120 LABELS "security;shim")
corecap_e2e_test(security_stats_closed security_stats_closed.sh TIMEOUT 60 LABELS "security;shim")
