# A daemon held by its cgroup's I/O limit on its disk (a loop device):
# the diagnosis names the disk and the limit, and doubling the limit
# doubles the throughput. Root (a loop device, a mount, a cgroup). Measured.
corecap_e2e_test(diagnosis_device diagnosis_device.sh TIMEOUT 120 LABELS "analysis;measured")
