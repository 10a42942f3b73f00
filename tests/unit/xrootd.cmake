# xrdbench's protocol module (tests/xrootd, docs/xrootd.md).
corecap_check_test(check_xrootd_proto SOURCES check_xrootd_proto.c LIBS xrdbench-core)
set_property(TEST unit.check_xrootd_proto APPEND PROPERTY LABELS xrootd)
# The op detector for daemons without annotations (analysis/model/net_ops.c).
corecap_check_test(check_analysis_net_ops
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_net_ops.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_net_ops PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
set_tests_properties(unit.check_analysis_net_ops PROPERTIES LABELS "unit;analysis;xrootd")
# Unnamed threads named by their start routine (analysis/pass/thread_origin.c).
corecap_check_test(check_analysis_thread_origin
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_thread_origin.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_thread_origin PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
set_tests_properties(unit.check_analysis_thread_origin PROPERTIES LABELS "unit;analysis;xrootd")
# XRootD's framing of socket bytes (analysis/model/xrd_frame.c).
corecap_check_test(check_analysis_xrd_frame
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_analysis_xrd_frame.c
	LIBS corecap-analysis corecap-common m)
target_include_directories(check_analysis_xrd_frame PRIVATE ${PROJECT_SOURCE_DIR}/analysis)
set_tests_properties(unit.check_analysis_xrd_frame PROPERTIES LABELS "unit;analysis;xrootd")
