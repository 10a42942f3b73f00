# The projection's known answers end to end (bench/ceiling_projection.sh,
# docs/methodology.md "Projection"): about 60 s on two cores (five refosd
# configurations, each recorded on 1 CPU and measured on 2, with and without
# its bound). Measured.
corecap_e2e_test(ceiling_verdicts ceiling_verdicts.sh TIMEOUT 240 LABELS "ceiling;measured")
