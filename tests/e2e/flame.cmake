# Flame graphs and pictures (issue #6), end to end. flame_pprof needs
# google-pprof, libprofiler and a C++ compiler; the recorded ones an LTTng
# session daemon; flame_browser Debian's chromium.
corecap_e2e_test(flame_pprof flame_pprof.sh TIMEOUT 90 LABELS flame)
corecap_e2e_test(flame_golden flame_golden.sh TIMEOUT 60 LABELS flame)
corecap_e2e_test(flame_browser flame_browser.sh TIMEOUT 120 LABELS flame)
corecap_e2e_test(flame_record flame_record.sh TIMEOUT 150 LABELS flame)
corecap_e2e_test(flame_compare flame_compare.sh TIMEOUT 180 LABELS flame)
corecap_e2e_test(flame_inline flame_inline.sh TIMEOUT 150 LABELS flame)
corecap_e2e_test(flame_trace_model flame_trace_model.sh TIMEOUT 60 LABELS flame)
corecap_e2e_test(flame_svg_browser flame_svg_browser.sh TIMEOUT 300 LABELS flame)
