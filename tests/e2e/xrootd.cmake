# A real xrootd (Debian's 5.5.3, scripts/install-deps-xrootd) run by
# scripts/xrootd-server and driven by tests/xrootd/xrdbench (docs/xrootd.md).
# Skipped when xrootd is absent. The set takes about 20 s.
corecap_e2e_test(xrootd_server xrootd_server.sh TIMEOUT 120 LABELS xrootd)
corecap_e2e_test(xrootd_bench xrootd_bench.sh TIMEOUT 120 LABELS xrootd)
