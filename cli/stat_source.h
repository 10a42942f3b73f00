/*
 * cli/stat_source: gives `corecap stat` the collector's kernel events
 * (stat_source.c says why here).
 */
#ifndef CORECAP_CLI_STAT_SOURCE_H
#define CORECAP_CLI_STAT_SOURCE_H

/* Before any command runs. */
void corecap_cli_stat_kernel_setup(void);

#endif
