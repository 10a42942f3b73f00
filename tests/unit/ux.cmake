# Issue #18's small items: record's banner past wrappers (collector/workload/bench_label.c)
# and "did you mean" for a mistyped command (cli/suggest.c).
corecap_check_test(check_collector_bench_label
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_bench_label.c
	LIBS corecap-collector)
target_include_directories(check_collector_bench_label PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_bench_label PROPERTIES LABELS "unit;collector")
corecap_check_test(check_cli_suggest
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_cli_suggest.c ${PROJECT_SOURCE_DIR}/cli/suggest.c)
target_include_directories(check_cli_suggest PRIVATE ${PROJECT_SOURCE_DIR}/cli)
set_tests_properties(unit.check_cli_suggest PROPERTIES LABELS "unit;cli")
