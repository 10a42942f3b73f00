# xrdbench's protocol module (tests/xrootd, docs/xrootd.md).
corecap_check_test(check_xrootd_proto SOURCES check_xrootd_proto.c LIBS xrdbench-core)
set_property(TEST unit.check_xrootd_proto APPEND PROPERTY LABELS xrootd)
