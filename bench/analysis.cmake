add_executable(corecap_tracegen ${CMAKE_CURRENT_SOURCE_DIR}/tracegen.c)
target_link_libraries(corecap_tracegen PRIVATE corecap-annotate Threads::Threads)
target_compile_definitions(corecap_tracegen PRIVATE CORECAP_TP_LIB="$<TARGET_FILE:corecap-tp>")
add_dependencies(corecap_tracegen corecap-tp)

# corecap report against babeltrace2's dummy sink on the same traces.
add_executable(corecap_report_bench ${CMAKE_CURRENT_SOURCE_DIR}/report_bench.c)
target_compile_definitions(corecap_report_bench PRIVATE
	CORECAP_BIN="$<TARGET_FILE:corecap>" CORECAP_TRACEGEN="$<TARGET_FILE:corecap_tracegen>")
add_dependencies(corecap_report_bench corecap corecap_tracegen)

# The critical path's cost per record as the box has more CPUs, on a
# synthetic schedule (bench/critical_path_cpus.c).
add_executable(critical_path_cpus ${CMAKE_CURRENT_SOURCE_DIR}/critical_path_cpus.c)
target_link_libraries(critical_path_cpus PRIVATE corecap-analysis corecap-common m)
target_include_directories(critical_path_cpus PRIVATE ${PROJECT_SOURCE_DIR}/analysis)

# The kernel reader alone on a run: load and every record through a
# cursor (bench/kernel_reader_cpu.c), to compare two builds' readers.
add_executable(kernel_reader_cpu ${CMAKE_CURRENT_SOURCE_DIR}/kernel_reader_cpu.c)
target_link_libraries(kernel_reader_cpu PRIVATE corecap-analysis corecap-common)
target_include_directories(kernel_reader_cpu PRIVATE ${PROJECT_SOURCE_DIR}/analysis)

# The floor under a cold report of a binary with compressed debug sections:
# the CPU of inflating them alone (bench/report_symbols.sh prints it).
# With libdeflate (optional, Debian's libdeflate-dev) it also times that
# inflater (-d); bench/dwarf_prefix finds the prefix of each section that
# the printed addresses need (inflate_floor -p times that prefix).
add_executable(inflate_floor ${CMAKE_CURRENT_SOURCE_DIR}/inflate_floor.c)
target_link_libraries(inflate_floor PRIVATE ZLIB::ZLIB)
pkg_check_modules(LIBDEFLATE IMPORTED_TARGET libdeflate)
if(LIBDEFLATE_FOUND)
	target_compile_definitions(inflate_floor PRIVATE HAVE_LIBDEFLATE)
	target_link_libraries(inflate_floor PRIVATE PkgConfig::LIBDEFLATE)
endif()
add_executable(dwarf_prefix ${CMAKE_CURRENT_SOURCE_DIR}/dwarf_prefix.c)
target_link_libraries(dwarf_prefix PRIVATE PkgConfig::LIBDW)

# babeltrace2's read of a run's trace with and without its muxer
# (bench/trace_read_floor.c; trace_read_floor.sh times both beside the
# CLI's dummy read): the part of issue 48's floor a reader merging the
# streams itself could leave out.
add_executable(trace_read_floor ${CMAKE_CURRENT_SOURCE_DIR}/trace_read_floor.c)
target_link_libraries(trace_read_floor PRIVATE PkgConfig::BABELTRACE2)
