# compare's object-store difference on two copies of the committed golden
# run with Ceph perf dumps of two stores (#47 item 1); about 1 s.
corecap_e2e_test(ux_audit47 ux_audit47.sh TIMEOUT 60 LABELS "analysis;compare")
