# Several hosts (issue 46): the clock alignment's arithmetic and protocol
# (collector/hosts/clock_sync.c).
corecap_check_test(check_collector_clock_sync
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_clock_sync.c
	LIBS corecap-collector)
target_include_directories(check_collector_clock_sync PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_clock_sync PROPERTIES LABELS "unit;collector;hosts")
# A host's run as it comes back: the strict ustar reader against tar(1)'s
# stream and hostile ones (collector/hosts/host_tar.c); record --hosts' --record-opt filter.
corecap_check_test(check_collector_host_tar
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_host_tar.c
	LIBS corecap-collector)
target_include_directories(check_collector_host_tar PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_host_tar PROPERTIES LABELS "unit;collector;hosts")
# The hosts file of record --hosts and the remote shell's words (collector/hosts/host_spec.c).
corecap_check_test(check_collector_host_spec
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_host_spec.c
	LIBS corecap-collector)
target_include_directories(check_collector_host_spec PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_host_spec PROPERTIES LABELS "unit;collector;hosts")
