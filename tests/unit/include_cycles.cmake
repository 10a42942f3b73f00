# scripts/include-cycles (docs/architecture.md, "No include cycles"): on a
# fixture tree with known cycles, and on this tree with this build's
# include path (compile_commands.json), which must have none.
corecap_check_test(check_include_cycles SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_include_cycles.c)
target_compile_definitions(check_include_cycles PRIVATE
	CORECAP_SRC="${PROJECT_SOURCE_DIR}" CORECAP_BUILD="${PROJECT_BINARY_DIR}")
