# Flame graphs and pictures (issue #6): the gperftools profile reader, the
# folded-stack tree, the SVG renderer and the text escaping behind them.
# The suites compile the modules they prove, so they do not wait for the
# whole analysis library.
set(_an ${CMAKE_SOURCE_DIR}/analysis)
corecap_check_test(check_gperf_profile SOURCES check_gperf_profile.c ${_an}/read/gperf_profile.c
	${_an}/read/run_file.c ${_an}/util/grow.c LIBS PkgConfig::JSONC PkgConfig::ZSTD corecap-diag)
corecap_check_test(check_folded SOURCES check_folded.c ${_an}/model/folded.c ${_an}/util/u64map.c
	${_an}/util/grow.c ${_an}/model/flame_stacks.c ${_an}/model/stack_class.c)
corecap_check_test(check_flame_svg SOURCES check_flame_svg.c ${_an}/render/flame_svg.c
	${_an}/render/html_escape.c ${_an}/model/folded.c ${_an}/util/u64map.c
	${_an}/util/grow.c ${_an}/model/flame_stacks.c ${_an}/model/stack_class.c)
foreach(_t check_gperf_profile check_folded check_flame_svg)
	target_include_directories(${_t} PRIVATE ${_an})
	target_compile_definitions(${_t} PRIVATE FLAME_DATA_DIR="${CMAKE_SOURCE_DIR}/tests/data/flame")
endforeach()
# These two link the analysis library: their modules use the model's helpers.
corecap_check_test(check_flame_inputs SOURCES check_flame_inputs.c LIBS corecap-analysis)
corecap_check_test(check_chrome_trace SOURCES check_chrome_trace.c LIBS corecap-analysis)
foreach(_t check_flame_inputs check_chrome_trace)
	target_include_directories(${_t} PRIVATE ${_an})
endforeach()
