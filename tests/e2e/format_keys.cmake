# manifest.json's keys (common/include/corecap/manifest_keys.h), end to end:
# every key of a real recording's manifest (one daemon with every source,
# two daemons) is in the header's list, and the writer and readers spell no
# key name where a key goes. About 10 s on two cores.
add_executable(manifest_keys ${CMAKE_CURRENT_SOURCE_DIR}/format/manifest_keys.c)
target_link_libraries(manifest_keys PRIVATE corecap-common)
corecap_e2e_test(format_manifest_keys format_manifest_keys.sh TIMEOUT 120 LABELS "collector;analysis")
