# The HTML page's critical paths and wait-for graph (issue #13,
# analysis/render/html_paths.c).
corecap_check_test(check_html_paths SOURCES check_html_paths.c LIBS corecap-analysis)
target_include_directories(check_html_paths PRIVATE ${CMAKE_SOURCE_DIR}/analysis)
