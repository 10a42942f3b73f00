# The kernel source's parsing (collector/kernel/tp_format.c): tracefs format
# files, raw field reads.
corecap_check_test(check_collector_tp_format
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_tp_format.c
	LIBS corecap-collector)
target_include_directories(check_collector_tp_format PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_tp_format PROPERTIES LABELS "unit;collector;kernel")

# The kernel wall-clock sampler's coverage per thread (collector/kernel/kernel_coverage.c).
corecap_check_test(check_collector_kernel_coverage
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_kernel_coverage.c
	LIBS corecap-collector)
target_include_directories(check_collector_kernel_coverage PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_kernel_coverage PROPERTIES LABELS "unit;collector;kernel")

# The order of a drain's records in events.bin (collector/kernel/kernel_out_sort.c).
corecap_check_test(check_collector_kernel_out_sort
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_kernel_out_sort.c
	LIBS corecap-collector)
target_include_directories(check_collector_kernel_out_sort PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_kernel_out_sort PROPERTIES LABELS "unit;collector;kernel")
