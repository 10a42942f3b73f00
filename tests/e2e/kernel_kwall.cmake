# The kernel's on-CPU stacks as the default record's wall-clock samples
# (collector/kernel/kernel_events.h, --oncpu-hz): a known split of two spinning
# threads' stacks through each producer, and what --oncpu-hz 0 and
# --wallclock record instead. About 15 s on two cores.
add_executable(kernel_kwall_oncpu ${CMAKE_CURRENT_SOURCE_DIR}/kernel/kwall_oncpu.c)
target_link_libraries(kernel_kwall_oncpu PRIVATE Threads::Threads)
target_compile_options(kernel_kwall_oncpu PRIVATE -O2 -fomit-frame-pointer)
corecap_e2e_test(kernel_oncpu_kwall kernel_oncpu_kwall.sh TIMEOUT 120 LABELS "kernel;collector;measured")
