# The analysis of runs recorded without the shim: without a trace
# (label analysis), and from kernel events (label kernel: root and tracefs).
corecap_e2e_test(analysis_bare analysis_bare.sh TIMEOUT 120 LABELS analysis)
# Known answers of the report from kernel events alone (the workloads of
# tests/e2e/kernel/, built by tests/e2e/kernel.cmake). Root and tracefs.
corecap_e2e_test(kernel_report_mutex kernel_report_mutex.sh TIMEOUT 120 LABELS "kernel;analysis")
corecap_e2e_test(kernel_report_runnable kernel_report_runnable.sh TIMEOUT 120 LABELS "kernel;analysis")
set_property(TEST e2e.kernel_report_mutex e2e.kernel_report_runnable APPEND PROPERTY LABELS measured)
# The mutex's known answer from each producer (tests/e2e/kernel.cmake).
corecap_e2e_test(kernel_report_mutex_perf kernel_report_mutex.sh TIMEOUT 120 LABELS "kernel;analysis;measured")
set_property(TEST e2e.kernel_report_mutex APPEND PROPERTY ENVIRONMENT CORECAP_TEST_KERNEL_VIA=bpf)
set_property(TEST e2e.kernel_report_mutex_perf APPEND PROPERTY ENVIRONMENT CORECAP_TEST_KERNEL_VIA=perf)
corecap_e2e_test(kernel_report_biglock kernel_report_biglock.sh TIMEOUT 240 LABELS "kernel;analysis")
set_tests_properties(e2e.kernel_report_biglock PROPERTIES RUN_SERIAL TRUE)
set_property(TEST e2e.kernel_report_biglock APPEND PROPERTY LABELS measured)
# A bare ceph-osd reported from kernel events (about 40 s; Ceph installed).
corecap_e2e_test(kernel_report_ceph kernel_report_ceph.sh TIMEOUT 300 LABELS "kernel;ceph;analysis")
# The ops' critical paths against the annotations, and a CPU hog on the
# path (about 40 s: three refosd runs of 3 s and their reports).
corecap_e2e_test(kernel_critical_path kernel_critical_path.sh TIMEOUT 240 LABELS "kernel;analysis")
set_tests_properties(e2e.kernel_critical_path PROPERTIES RUN_SERIAL TRUE)
# At --debug 20 the path's logging and the annotations' differed by more
# than 10% of the latency in 2 of 3 attempts on a quiet CI machine:
# preempted time inside a log call is runqueue on the path, logging for the
# annotations (and a wait behind the log thread the other way round). The
# test now compares them in the annotations' view (the path's
# critical_path_runqueue_in_log_us and _logging_us moved): logging gaps of
# 4.8, 2.5 and 0.4 us on 127, 105 and 92 us latencies (bound 10%; 5.0,
# 5.2 and 8.4 us uncorrected) in 3 of 3 runs on a loaded machine.
# Measured: three attempts.
set_property(TEST e2e.kernel_critical_path APPEND PROPERTY LABELS "measured")
# Kernel thread states in `export --chrome`: slices equal to the report's
# states, imported by @tracerbench/trace-model (15 s quiet, 60 s on a loaded machine; node).
corecap_e2e_test(kernel_chrome kernel_chrome.sh TIMEOUT 120 LABELS "kernel;analysis;flame")
# Kernel events of a daemon in a time namespace, recorded from inside one
# and from outside (collector/kernel/timens.c; about 20 s).
corecap_e2e_test(kernel_timens kernel_timens.sh TIMEOUT 120 LABELS "kernel;analysis")
