# The lock table's rows (model/lock_rows.c: order, families), the elision of
# long names (render/name_elide.c) and compare's differences
# (model/compare_diff.c), over tables built by hand.
foreach(_m lock_rows name_elide compare_diff)
	if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_${_m}.c)
		continue()
	endif()
	corecap_check_test(check_analysis_${_m}
		SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_${_m}.c
		LIBS corecap-analysis corecap-common m)
	target_include_directories(check_analysis_${_m} PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
	set_tests_properties(unit.check_analysis_${_m} PROPERTIES LABELS "unit;analysis")
endforeach()
