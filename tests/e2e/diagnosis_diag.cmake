# The diagnosis' end-to-end known answers (docs/methodology.md, "The diagnosis").
corecap_e2e_test(diagnosis_pinned diagnosis_pinned.sh TIMEOUT 120 LABELS "analysis;diagnosis;measured")
