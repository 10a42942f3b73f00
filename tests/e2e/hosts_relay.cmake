# The hosts' LTTng traces through lttng-relayd (issue 46, docs/hosts.md):
# four records of hosts B and C (through the relayd, over the stream, the
# relayd's port taken, a host unreachable): the traces arrive, no relayd
# is left (~40 s).
corecap_e2e_test(hosts_relayd hosts_relayd.sh TIMEOUT 150 LABELS "collector;hosts")
