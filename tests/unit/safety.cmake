# Safety (issue 14): the analysis' -o FILE writer (analysis/render/out_file.c).
corecap_check_test(check_analysis_out_file
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_out_file.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_out_file PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
set_tests_properties(unit.check_analysis_out_file PROPERTIES LABELS "unit;analysis;safety")
