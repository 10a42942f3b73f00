# The decoded-trace cache (analysis/read/run_cache.c) on fresh refosd runs.
corecap_e2e_test(analysis_runcache analysis_runcache.sh TIMEOUT 120 LABELS "analysis;runcache")
# The OpTracker history kept beside it (analysis/read/ceph_cache.c), on the golden run.
corecap_e2e_test(analysis_cephcache analysis_cephcache.sh TIMEOUT 60 LABELS "analysis;runcache;ceph")
