# The shim's overhead benchmarks (docs/shim.md, "overhead"): lock_pair
# (ns per uncontended lock+unlock: glibc, the shim, LTTng-UST's pthread
# wrapper) and refosd_iops.sh (refosd throughput bare / shim / shim with a
# session). Benchmarks, not tests: run them by hand.
add_executable(lock_pair ${CMAKE_CURRENT_SOURCE_DIR}/lock_pair.c)
target_link_libraries(lock_pair PRIVATE Threads::Threads)
target_compile_definitions(lock_pair PRIVATE
	CORECAP_PRELOAD_LIB="$<TARGET_FILE:corecap-preload>")
add_dependencies(lock_pair corecap-preload)

# passthru_preload: interposes the mutex and rwlock calls and only calls
# glibc's; preloaded in the shim's place, it measures what interposing
# alone costs (bench/ceph_shim_iops.sh with CORECAP_PRELOAD_LIB).
add_library(passthru_preload SHARED ${CMAKE_CURRENT_SOURCE_DIR}/passthru_preload.c)
set_target_properties(passthru_preload PROPERTIES C_VISIBILITY_PRESET hidden)
target_include_directories(passthru_preload PRIVATE ${CMAKE_SOURCE_DIR}/preload)

# io_pair: ns per request and reply over a socket pair in one thread, bare
# and under one or two shims side by side (the reply counter's cost:
# docs/shim.md, "Reply counter"). A benchmark, not a test.
add_executable(io_pair ${CMAKE_CURRENT_SOURCE_DIR}/io_pair.c)
target_compile_definitions(io_pair PRIVATE
	CORECAP_PRELOAD_LIB="$<TARGET_FILE:corecap-preload>")
add_dependencies(io_pair corecap-preload)
