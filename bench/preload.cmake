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
