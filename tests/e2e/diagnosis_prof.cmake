# The profiler's own threads, locks, frames and wakes out of the findings,
# and its cost stated once (issue #41 item 3; analysis/model/profiler_own.h).
# refosd under corecap run --cpuprofile, recorded 3 s with kernel events
# (root) and the wall-clock sampler.
corecap_e2e_test(diagnosis_prof diagnosis_prof.sh TIMEOUT 180 LABELS "analysis;kernel")
