# The page of a run of several daemons: each daemon's top table and CPU
# chart gap marks in headless Chromium (issue #47 item 4 on record -p A,B).
# Records two refosd for 4 s; needs libprofiler, chromium and chromedriver.
corecap_e2e_test(html_multi html_multi.sh TIMEOUT 120 LABELS "analysis;browser;multi")
