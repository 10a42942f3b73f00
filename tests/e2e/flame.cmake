# Flame graphs and pictures (issue #6), end to end. flame_pprof needs
# google-pprof, libprofiler and a C++ compiler; the recorded ones an LTTng
# session daemon; flame_browser Debian's chromium.
corecap_e2e_test(flame_pprof flame_pprof.sh TIMEOUT 90 LABELS flame)
