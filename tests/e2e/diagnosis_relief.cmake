# A daemon held to half a CPU by a cgroup CPU quota (cpu.max): the
# diagnosis names the quota, and lifting it raises the throughput to
# within 20% of the stated headroom. Root (a cgroup of its own). Measured.
corecap_e2e_test(diagnosis_quota diagnosis_quota.sh TIMEOUT 120 LABELS "analysis;measured")
