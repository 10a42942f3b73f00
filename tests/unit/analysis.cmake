# The analysis' Check suites, one per module (analysis/<room>/<module>.c).
# They include the modules' private headers from analysis/.
foreach(_m u64map latency_hist model ceiling diagnosis projection scaling_fit pool_table manifest thread_samples shim_stats symbolizer
		lock_table lock_rows name_elide compare_diff daemon_pairing multi_run hosts_run client_split clock_pairs client_ops
		ctf_reader ctf_check trace_pipe)
	if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_${_m}.c)
		continue()
	endif()
	corecap_check_test(check_analysis_${_m}
		SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_${_m}.c
		LIBS corecap-analysis corecap-common m)
	target_include_directories(check_analysis_${_m} PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
	target_compile_definitions(check_analysis_${_m} PRIVATE
		CORECAP_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
	set_tests_properties(unit.check_analysis_${_m} PROPERTIES LABELS "unit;analysis")
endforeach()
