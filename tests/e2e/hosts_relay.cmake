# The hosts' LTTng traces through lttng-relayd (issue 46, docs/hosts.md):
# records of hosts B and C through the relayd and over the stream, then
# SIGTERM and SIGKILL mid-window, the relayd's port taken, the relayd
# killed, a host that cannot reach it, a host unreachable: the traces
# arrive, no relayd is left (35-50 s).
corecap_e2e_test(hosts_relayd hosts_relayd.sh TIMEOUT 150 LABELS "collector;hosts")
# A running lttng-relayd reused (issue 46): one of root's, started by the
# test, keeps running, the traces copied out of its output, only ours
# removed; another user's is not trusted and ours is started (~25-40 s).
corecap_e2e_test(hosts_relayd_reuse hosts_relayd_reuse.sh TIMEOUT 150 LABELS "collector;hosts")
