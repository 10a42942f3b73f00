# The HTML pages' pprof views (issue #47 item 4) in headless Chromium:
# corecap html's top table, callers and callees, flame graphs that follow
# the window and the CPU chart's gap marks; compare --html's differential
# flame graph against compare --folded. Both record refosd; html_views
# needs libprofiler; both Debian's chromium and chromedriver.
corecap_e2e_test(html_views html_views.sh TIMEOUT 90 LABELS "analysis;browser")
corecap_e2e_test(html_compare html_compare.sh TIMEOUT 90 LABELS "analysis;browser")
