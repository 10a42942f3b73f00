# The collector's Check suites: one per module (collector/<module>.c).
foreach(_m bench_parse run_dir record_opts launch_env proc_stat proc_sampler optracker_drain maps_buildid toggle_thread vdso_unwind site_spec verify_verdict cpu_quota disk_stats io_limit)
	corecap_check_test(check_collector_${_m}
		SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_${_m}.c
		LIBS corecap-collector)
	target_include_directories(check_collector_${_m} PRIVATE ${PROJECT_SOURCE_DIR}/collector)
	target_compile_definitions(check_collector_${_m} PRIVATE
		CORECAP_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
	set_tests_properties(unit.check_collector_${_m} PROPERTIES LABELS "unit;collector")
endforeach()
