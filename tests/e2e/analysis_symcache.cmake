# The per-build-id symbol cache (analysis/read/sym_cache.c) on the golden run.
corecap_e2e_test(analysis_symcache analysis_symcache.sh TIMEOUT 90 LABELS "analysis;symbols")
