# --collector-cpus' CPU lists (issue 43, item 6; collector/util/cpu_list.c).
corecap_check_test(check_collector_cpu_list
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_cpu_list.c
	LIBS corecap-collector)
target_include_directories(check_collector_cpu_list PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_cpu_list PROPERTIES LABELS "unit;collector")
