# What an lttng-relayd wrote for a host, untrusted: taken whole or refused
# with the rule named (collector/hosts/host_relayd.c).
corecap_check_test(check_collector_host_relayd
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_host_relayd.c
	LIBS corecap-collector)
target_include_directories(check_collector_host_relayd PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_host_relayd PROPERTIES LABELS "unit;collector;hosts")
# A running lttng-relayd's command line and environment, read strictly
# before it is reused (collector/hosts/relayd_cmdline.c).
corecap_check_test(check_collector_relayd_cmdline
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_relayd_cmdline.c
	LIBS corecap-collector)
target_include_directories(check_collector_relayd_cmdline PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_relayd_cmdline PROPERTIES LABELS "unit;collector;hosts")
