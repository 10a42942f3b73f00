# Real Ceph: the analysis' reader of RUN/ceph/ (a Ceph OSD's admin-socket
# dumps), over the committed fixtures in tests/data/ceph/.
corecap_check_test(check_analysis_ceph_files
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_ceph_files.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_ceph_files PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
target_compile_definitions(check_analysis_ceph_files PRIVATE
	CORECAP_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
set_tests_properties(unit.check_analysis_ceph_files PROPERTIES LABELS "unit;analysis;ceph")

# The sampled attribution of Ceph's ops: a stack's category from its frames,
# and samples shared among the OpTracker ops in flight (analysis/model/).
foreach(_m stack_class ceph_sampled)
	corecap_check_test(check_analysis_${_m}
		SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_${_m}.c
		LIBS corecap-analysis corecap-common m)
	target_include_directories(check_analysis_${_m} PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
	set_tests_properties(unit.check_analysis_${_m} PROPERTIES LABELS "unit;analysis;ceph")
endforeach()

# The OpTracker history kept in the run cache's directory (analysis/read/ceph_cache.c).
corecap_check_test(check_analysis_ceph_cache
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_ceph_cache.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_ceph_cache PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
target_compile_definitions(check_analysis_ceph_cache PRIVATE
	CORECAP_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
set_tests_properties(unit.check_analysis_ceph_cache PROPERTIES LABELS "unit;analysis;ceph")
