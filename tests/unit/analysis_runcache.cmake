# The decoded-trace cache's suite (analysis/read/run_cache.c).
corecap_check_test(check_analysis_run_cache
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_run_cache.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_run_cache PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
set_tests_properties(unit.check_analysis_run_cache PROPERTIES LABELS "unit;analysis")
target_compile_definitions(check_analysis_run_cache PRIVATE
	CORECAP_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
