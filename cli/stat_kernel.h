/*
 * cli/stat_kernel: gives `corecap stat` the collector's kernel events
 * (stat_kernel.c says why here).
 */
#ifndef CORECAP_CLI_STAT_KERNEL_H
#define CORECAP_CLI_STAT_KERNEL_H

/* Before any command runs. */
void corecap_cli_stat_kernel_setup(void);

#endif
