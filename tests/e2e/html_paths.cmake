# The HTML page's critical paths and wait-for graph against the JSON of the
# same refosd run (issue #13; about 20 s: two short refosd runs, one with
# kernel events: root and tracefs).
corecap_e2e_test(html_paths html_paths.sh TIMEOUT 180 LABELS "kernel;analysis")
