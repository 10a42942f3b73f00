# Safe as root among other users (issue 42, item 6b): the wall-clock
# sampler bounds how long it holds any thread of a 2,000-thread daemon,
# skips rather than holds when it falls behind, rotates the skips, and
# the report says so. About 20 s on two cores.
corecap_e2e_test(security_wall_threads security_wall_threads.sh TIMEOUT 150 LABELS "security;collector")
