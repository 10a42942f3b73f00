# corecap/manifest_keys.h between the collector's manifest writer and the
# analysis' reader: manifests written, every key checked, read back.
corecap_check_test(check_manifest_keys
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_manifest_keys.c
	LIBS corecap-collector corecap-analysis corecap-common m)
target_include_directories(check_manifest_keys PRIVATE
	${PROJECT_SOURCE_DIR}/collector ${PROJECT_SOURCE_DIR}/analysis)
set_tests_properties(unit.check_manifest_keys PROPERTIES LABELS "unit;collector;analysis")
