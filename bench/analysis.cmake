add_executable(corecap_tracegen ${CMAKE_CURRENT_SOURCE_DIR}/tracegen.c)
target_link_libraries(corecap_tracegen PRIVATE corecap-annotate Threads::Threads)
target_compile_definitions(corecap_tracegen PRIVATE CORECAP_TP_LIB="$<TARGET_FILE:corecap-tp>")
add_dependencies(corecap_tracegen corecap-tp)
