# common/: the diagnostics path of the commands (common/diag.c).
corecap_check_test(check_common_diag SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_common_diag.c
	LIBS corecap-diag)
set_tests_properties(unit.check_common_diag PROPERTIES LABELS "unit;common")
