# The kernel source of `corecap record` (collector/kernel/kernel_events.h), end
# to end: known answers from a workload with a known mutex and from two
# spinners on one CPU, lost records, stack depth against the ptrace
# sampler, and the bad-input messages. About 60 s in all on two cores.
add_executable(kernel_workload ${CMAKE_CURRENT_SOURCE_DIR}/kernel/workload.c)
target_link_libraries(kernel_workload PRIVATE Threads::Threads)
add_executable(kernel_read ${CMAKE_CURRENT_SOURCE_DIR}/kernel/kread.c)
target_link_libraries(kernel_read PRIVATE corecap-common PkgConfig::ZSTD)
corecap_e2e_test(kernel_futex kernel_futex.sh TIMEOUT 120 LABELS "kernel;collector")
corecap_e2e_test(kernel_runnable kernel_runnable.sh TIMEOUT 120 LABELS "kernel;collector")
corecap_e2e_test(kernel_loss kernel_loss.sh TIMEOUT 120 LABELS "kernel;collector")
corecap_e2e_test(kernel_stacks kernel_stacks.sh TIMEOUT 180 LABELS "kernel;collector")
corecap_e2e_test(kernel_errors kernel_errors.sh TIMEOUT 120 LABELS "kernel;collector")
corecap_e2e_test(kernel_sigkill kernel_sigkill.sh TIMEOUT 60 LABELS "kernel;collector")
# Known answer for the wakings (about 8 s): two threads in a futex
# ping-pong, through the eBPF producer (perf's rings lose records at its
# 60,000 handoffs a second here).
corecap_e2e_test(kernel_wakers kernel_wakers.sh TIMEOUT 60 LABELS "kernel;collector")
set_property(TEST e2e.kernel_wakers APPEND PROPERTY ENVIRONMENT CORECAP_TEST_KERNEL_VIA=bpf)
# Its time shares are measurements on a shared machine (see tests/e2e/CMakeLists.txt).
set_property(TEST e2e.kernel_futex e2e.kernel_runnable APPEND PROPERTY LABELS measured)
# Each producer of the kernel source (collector/kernel/kernel_events.h):
# eBPF programs (the default where they load) and perf_event_open's samples.
# The tests above record with the one CORECAP_TEST_KERNEL_VIA names and
# check the manifest says so.
foreach(_t kernel_futex kernel_runnable kernel_loss kernel_stacks)
	get_test_property(e2e.${_t} TIMEOUT _timeout)
	get_test_property(e2e.${_t} LABELS _labels)
	list(REMOVE_ITEM _labels e2e)
	corecap_e2e_test(${_t}_perf ${_t}.sh TIMEOUT ${_timeout} LABELS "${_labels}")
	set_property(TEST e2e.${_t} APPEND PROPERTY ENVIRONMENT CORECAP_TEST_KERNEL_VIA=bpf)
	set_property(TEST e2e.${_t}_perf APPEND PROPERTY ENVIRONMENT CORECAP_TEST_KERNEL_VIA=perf)
endforeach()
# The same on a real, bare ceph-osd (about 20 s: a cluster start and 4 s of rados bench).
corecap_e2e_test(kernel_ceph_stacks kernel_ceph_stacks.sh TIMEOUT 300 LABELS "kernel;collector;ceph")
