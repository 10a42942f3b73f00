# The run format (common/include/corecap/run_format.h), end to end: every
# file a real recording leaves is one the analysis knows, and no run-file
# name is spelled outside the header. About 20 s on two cores.
add_executable(run_files ${CMAKE_CURRENT_SOURCE_DIR}/format/run_files.c)
target_link_libraries(run_files PRIVATE corecap-common)
corecap_e2e_test(format_run_files format_run_files.sh TIMEOUT 120 LABELS "collector;analysis")
# The vDSO saved in the run (RUN/vdso.so) names vDSO frames post-mortem.
add_executable(vdso_spin ${CMAKE_CURRENT_SOURCE_DIR}/format/vdso_spin.c)
target_link_libraries(vdso_spin PRIVATE Threads::Threads)
corecap_e2e_test(format_vdso format_vdso.sh TIMEOUT 120 LABELS "collector;analysis;flame")
