# The one-line usage of a usage error (common/diag.c, issue #47).
corecap_check_test(check_common_usage SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_common_usage.c
	LIBS corecap-diag)
set_tests_properties(unit.check_common_usage PROPERTIES LABELS "unit;common;cli")
