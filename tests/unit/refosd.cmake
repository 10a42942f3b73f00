# refosd's modules (tests/refosd), one suite per module; see docs/refosd.md.
corecap_check_test(check_refosd_protocol SOURCES check_refosd_protocol.c LIBS refosd-core)
corecap_check_test(check_refosd_store SOURCES check_refosd_store.c LIBS refosd-core)
corecap_check_test(check_refosd_log SOURCES check_refosd_log.c LIBS refosd-core)
corecap_check_test(check_refosd_options SOURCES check_refosd_options.c LIBS refosd-core)
corecap_check_test(check_refosd_bench_stats SOURCES check_refosd_bench_stats.c LIBS refosd-core m)
