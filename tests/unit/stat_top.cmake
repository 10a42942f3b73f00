# `corecap stat`'s sort keys, keys, /proc lines and terminal (analysis/render/stat_view.c, read/stat_snapshot.c).
corecap_check_test(check_analysis_stat_view
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_stat_view.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_stat_view PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
set_tests_properties(unit.check_analysis_stat_view PROPERTIES LABELS "unit;analysis;stat")
