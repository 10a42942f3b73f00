# The decoded-trace cache (analysis/read/run_cache.c) on fresh refosd runs.
corecap_e2e_test(analysis_runcache analysis_runcache.sh TIMEOUT 120 LABELS "analysis;runcache")
