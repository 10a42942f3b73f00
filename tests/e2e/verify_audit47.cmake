# #47 item 3 (collector/verify/cmd_verify.c, analysis/verify_lock_site.c,
# preload/stats_dump_tool.c): stats-dump's op counter, a lock's name as
# verify's site, the delay's 10 ms cap and a control that cannot tell the
# site apart, on refosd --big-lock under the shim. About 15 s; nothing is
# measured (one verify round, whose verdict is inconclusive whatever the
# load).
corecap_e2e_test(verify_audit47 verify_audit47.sh TIMEOUT 90 LABELS "analysis;verify")
