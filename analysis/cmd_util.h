/*
 * cmd_util: what the analysis commands share around their work, beside
 * the messages of corecap/diag.h (included here): the end of the option
 * loop.
 */
#ifndef CORECAP_ANALYSIS_CMD_UTIL_H
#define CORECAP_ANALYSIS_CMD_UTIL_H

#include <corecap/diag.h>

/*
 * The end of a command's option loop: 0 when exactly n operands follow the
 * options (getopt's optind); otherwise says so ("expected WHAT"), prints
 * the usage on stderr and returns 2, the usage error's exit status.
 */
int corecap_cmd_operands(int argc, int n, const char *what, const char *usage);

#endif
