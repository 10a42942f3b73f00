# The wall-clock sampler's bounds (issue 42, 6b): its rounds' rotation and
# the per-window bound on a thread's stops (collector/sources/wall_sampler.c).
corecap_check_test(check_collector_wall_sampler
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_collector_wall_sampler.c
	LIBS corecap-collector)
target_include_directories(check_collector_wall_sampler PRIVATE ${PROJECT_SOURCE_DIR}/collector)
set_tests_properties(unit.check_collector_wall_sampler PROPERTIES LABELS "unit;collector;security")
