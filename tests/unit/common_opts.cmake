# common/opt_table.c: one option table per command for getopt_long and --help (issue #44).
corecap_check_test(check_common_opt_table SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_common_opt_table.c
	LIBS corecap-opts)
set_tests_properties(unit.check_common_opt_table PROPERTIES LABELS "unit;common;cli")
