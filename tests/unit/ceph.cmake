# Real Ceph: the analysis' reader of RUN/ceph/ (a Ceph OSD's admin-socket
# dumps), over the committed fixtures in tests/data/ceph/.
corecap_check_test(check_analysis_ceph_files
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_ceph_files.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_ceph_files PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
target_compile_definitions(check_analysis_ceph_files PRIVATE
	CORECAP_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
set_tests_properties(unit.check_analysis_ceph_files PROPERTIES LABELS "unit;analysis;ceph")
