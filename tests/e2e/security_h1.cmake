# Safe as root among other users (issue 42, items 1, 2 and 6a): the CPU
# profiler's files are touched only with the daemon's own rights and live
# in a private directory; the shim's dump file is never a planted link or
# a FIFO; a profiled daemon survives its own exec.
add_executable(security_profile_reexec security_profile_reexec.c)
corecap_e2e_test(security_profile_record security_profile_record.sh TIMEOUT 150 LABELS "security;collector")
corecap_e2e_test(security_profile_tmp security_profile_tmp.sh TIMEOUT 120 LABELS "security;collector")
corecap_e2e_test(security_profile_dump security_profile_dump.sh TIMEOUT 120 LABELS "security;shim")
corecap_e2e_test(security_profile_exec security_profile_exec.sh TIMEOUT 170 LABELS "security;shim")
