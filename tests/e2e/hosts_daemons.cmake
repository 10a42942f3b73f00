# Several daemons per host (issue 46): host B runs two refosds, C one; one
# record --hosts; RUN:b:PID, RUN:b and the system's least headroom over
# every daemon of every host (~25-40 s).
corecap_e2e_test(hosts_daemons hosts_daemons.sh TIMEOUT 120 LABELS "collector;hosts")
