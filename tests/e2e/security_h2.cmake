# Safe as root among other users (issue 42, items 3 and 8b): `record
# --force` replaces only a run corecap wrote, never across a mount point,
# and only once the new run is written; an LTTng session whose collector
# and watchdog were both killed is ended by the next record.
corecap_e2e_test(security_rundir security_rundir.sh TIMEOUT 120 LABELS "security;collector")
corecap_e2e_test(security_rundir_mount security_rundir_mount.sh TIMEOUT 120 LABELS "security;collector")
corecap_e2e_test(security_rundir_orphan security_rundir_orphan.sh TIMEOUT 150 LABELS "security;collector")
