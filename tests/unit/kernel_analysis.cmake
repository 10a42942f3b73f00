# The analysis of kernel events: the reader of RUN/kernel/ and the two
# models over it (analysis/read/kernel_reader.c, model/kernel_states.c,
# model/futex_locks.c, model/critical_path.c), over records built by hand
# (kernel_records.h).
foreach(_m kernel_reader kernel_states futex_locks critical_path ceph_critical)
	corecap_check_test(check_analysis_${_m}
		SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_${_m}.c
		LIBS corecap-analysis corecap-common m)
	target_include_directories(check_analysis_${_m} PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
	# The committed golden kernel run, read in both versions of events.bin.
	target_compile_definitions(check_analysis_${_m} PRIVATE
		CORECAP_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
	set_tests_properties(unit.check_analysis_${_m} PROPERTIES LABELS "unit;analysis")
endforeach()
