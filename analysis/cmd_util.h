/*
 * cmd_util: what every analysis command needs around its work, beside the
 * messages of corecap/diag.h (included here): the end of the option loop,
 * the torn-line warning, paths inside the run directory, comma lists.
 */
#ifndef CORECAP_ANALYSIS_CMD_UTIL_H
#define CORECAP_ANALYSIS_CMD_UTIL_H

#include <stddef.h>

#include <corecap/diag.h>

/*
 * The end of a command's option loop: 0 when exactly n operands follow the
 * options (getopt's optind); otherwise says so ("expected WHAT"), prints
 * the usage on stderr and returns 2, the usage error's exit status.
 */
int corecap_cmd_operands(int argc, int n, const char *what, const char *usage);

/* The warning for a run file that ends in a torn line (its collector was killed). */
void corecap_analysis_warn_torn(const char *path);

/* "DIR/NAME", malloc'ed; NULL when out of memory. */
char *corecap_path_in(const char *dir, const char *name);

/* Appends the items of a comma-separated list to (*out, *n), each
 * malloc'ed; 0 or -ENOMEM. corecap_list_free() frees them all. */
int corecap_list_split(const char *list, char ***out, size_t *n);
void corecap_list_free(char **v, size_t n);

#endif
