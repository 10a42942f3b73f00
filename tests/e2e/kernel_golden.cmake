# The committed run with kernel records (tests/data/analysis/golden-kernel,
# made by golden-kernel-record.sh there), reported post-mortem as nobody
# and compared with its golden text and JSON (about 2 s; no root, no
# tracefs: the label kernel says what it covers, not what it needs).
corecap_e2e_test(kernel_golden kernel_golden.sh TIMEOUT 60 LABELS "analysis;kernel")
