# The projection's known answers end to end (bench/ceiling_projection.sh,
# docs/methodology.md "Projection"): about 60 s on two cores (five refosd
# configurations, each recorded on 1 CPU and measured on 2). Measured.
# Its known answer is not met yet (issue #15: three of the five
# configurations name the cores instead of their constructed bound, in every
# attempt tried here): labelled `unmet`, which scripts/check leaves out of its
# default run; `scripts/check -L unmet` runs it.
corecap_e2e_test(ceiling_verdicts ceiling_verdicts.sh TIMEOUT 240 LABELS "ceiling;measured;unmet")
