# A disk-backed OSD's I/O per write op in the report (issue #21,
# analysis/render/ceph_disk.c): text, JSON and HTML.
corecap_check_test(check_render_ceph_disk SOURCES check_render_ceph_disk.c LIBS corecap-analysis)
target_include_directories(check_render_ceph_disk PRIVATE ${CMAKE_SOURCE_DIR}/analysis)
