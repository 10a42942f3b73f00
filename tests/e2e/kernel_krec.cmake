# events.bin's version 2 (corecap/kernel_format.h, "Version 2"): the
# committed golden kernel run (version 1) converted to version 2 by
# kernel_v2conv gives the same report, text and JSON, byte for byte, and
# the same records to kernel_read (about 3 s; no root, no tracefs).
add_executable(kernel_v2conv ${CMAKE_CURRENT_SOURCE_DIR}/kernel/kv2conv.c)
target_link_libraries(kernel_v2conv PRIVATE corecap-common PkgConfig::ZSTD)
corecap_e2e_test(kernel_v2_golden kernel_v2_golden.sh TIMEOUT 60 LABELS "analysis;kernel")
# Version 3 (zstd frames of version 2's blocks): the same known answer
# through kernel_v2conv's version-3 output (about 3 s).
corecap_e2e_test(kernel_v3_golden kernel_v3_golden.sh TIMEOUT 60 LABELS "analysis;kernel")
