# The kernel source's recording cost per record (docs/events.md, "Kernel
# events: cost"): futex_loop, the workload of bench/kernel_record_cost.sh
# and kernel_prog_cost.sh.
# A benchmark, not a test: run it by hand.
add_executable(futex_loop ${CMAKE_CURRENT_SOURCE_DIR}/futex_loop.c)
target_link_libraries(futex_loop PRIVATE Threads::Threads)
