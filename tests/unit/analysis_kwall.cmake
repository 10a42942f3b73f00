# The kernel's on-CPU wall samples as the analysis reads them (issue #43).
corecap_check_test(check_analysis_wall_oncpu
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_wall_oncpu.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_wall_oncpu PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
set_tests_properties(unit.check_analysis_wall_oncpu PROPERTIES LABELS "unit;analysis")
