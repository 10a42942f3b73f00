# `corecap stat` as a top in a terminal (tmux): columns, keys, the terminal
# restored (analysis/cmd_stat.c, render/stat_view.c). About 15 s; it loads refosd for 12 s.
corecap_e2e_test(stat_top stat_top.sh TIMEOUT 60 LABELS "analysis;stat")
