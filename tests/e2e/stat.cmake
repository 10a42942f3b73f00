# `corecap stat`, the live view of a daemon under the shim (analysis/cmd_stat.c).
# About 10 s; it loads refosd for 4 s.
corecap_e2e_test(stat_refosd stat_refosd.sh TIMEOUT 60 LABELS stat)
