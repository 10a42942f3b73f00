# The corecap_op provider and corecap/annotate.h, end to end.
add_executable(annotated_ops ${CMAKE_CURRENT_SOURCE_DIR}/tracepoints/annotated_ops.c)
target_link_libraries(annotated_ops PRIVATE corecap-annotate)
corecap_e2e_test(tracepoints_op tracepoints_op.sh TIMEOUT 120 LABELS tracepoints)
corecap_e2e_test(install_annotate install_annotate.sh TIMEOUT 300 LABELS tracepoints)
