# The shim end to end (docs/shim.md, "tests"): helper programs under
# preload/, scripts preload_*.sh. The scripts find the shim, the stats
# reader and these helpers under $CORECAP_BUILD.
set(_pe ${CMAKE_CURRENT_LIST_DIR}/preload)
foreach(_h contend named_daemon thread_churn)
	add_executable(preload_${_h} ${_pe}/${_h}.c)
	target_include_directories(preload_${_h} PRIVATE ${_pe})
	target_link_libraries(preload_${_h} PRIVATE corecap-common Threads::Threads ${CMAKE_DL_LIBS})
	set_target_properties(preload_${_h} PROPERTIES ENABLE_EXPORTS ON)
endforeach()
# The same workload linked with tcmalloc, as Ceph is.
find_library(CORECAP_TCMALLOC NAMES tcmalloc libtcmalloc.so.4)
if(CORECAP_TCMALLOC)
	add_executable(preload_contend_tcmalloc ${_pe}/contend.c)
	target_include_directories(preload_contend_tcmalloc PRIVATE ${_pe})
	target_link_libraries(preload_contend_tcmalloc PRIVATE corecap-common Threads::Threads
		${CMAKE_DL_LIBS} ${CORECAP_TCMALLOC})
	set_target_properties(preload_contend_tcmalloc PROPERTIES ENABLE_EXPORTS ON)
endif()

corecap_e2e_test(preload_names preload_names.sh TIMEOUT 60 LABELS preload)
corecap_e2e_test(preload_tcmalloc preload_tcmalloc.sh TIMEOUT 60 LABELS preload)
corecap_e2e_test(preload_lttng preload_lttng.sh TIMEOUT 90 LABELS preload)
corecap_e2e_test(preload_settings preload_settings.sh TIMEOUT 60 LABELS preload)
corecap_e2e_test(preload_refosd preload_refosd.sh TIMEOUT 90 LABELS preload)
