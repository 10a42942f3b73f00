# Each op's client latency split into the client, the network both ways
# and the daemon (issue 46 item 3): refbench in host A against refosd in
# B and C, one record --hosts; ops matched by id, the split conserving
# within the clocks' bound (~20 s).
corecap_e2e_test(hosts_client_split hosts_client_split.sh TIMEOUT 90 LABELS "collector;hosts")
