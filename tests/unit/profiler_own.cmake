# The profiler's own threads, locks, frames and wait-for edges
# (analysis/model/profiler_own.c), over records built by hand.
corecap_check_test(check_analysis_profiler_own
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_profiler_own.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_profiler_own PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
set_tests_properties(unit.check_analysis_profiler_own PROPERTIES LABELS "unit;analysis")
