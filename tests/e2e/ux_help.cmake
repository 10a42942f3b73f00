# The command line's help, usage errors and small conveniences (issue #47):
# help and usage behaviour of every command against a table (ux_help), and
# export --chrome --gzip and its size warning (ux_export). Both need only
# the build and the committed golden run.
corecap_e2e_test(ux_help ux_help.sh TIMEOUT 60 LABELS cli)
corecap_e2e_test(ux_export ux_export.sh TIMEOUT 60 LABELS cli)
