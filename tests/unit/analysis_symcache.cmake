# The per-build-id symbol cache's suite (analysis/read/sym_cache.c).
corecap_check_test(check_analysis_sym_cache
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_sym_cache.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_sym_cache PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
set_tests_properties(unit.check_analysis_sym_cache PROPERTIES LABELS "unit;analysis")
