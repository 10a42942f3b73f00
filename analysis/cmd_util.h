/*
 * cmd_util: what every analysis command needs around its work: the error
 * line on stderr ("corecap: <message>", house style) and paths inside the
 * run directory. Kept apart from the collector's diag.c, since analysis
 * includes no collector code.
 */
#ifndef CORECAP_ANALYSIS_CMD_UTIL_H
#define CORECAP_ANALYSIS_CMD_UTIL_H

#include <stddef.h>

/* Prints "corecap: <formatted message>\n" on stderr. */
void corecap_analysis_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The warning for a run file that ends in a torn line (its collector was killed). */
void corecap_analysis_warn_torn(const char *path);

/* "DIR/NAME", malloc'ed; NULL when out of memory. */
char *corecap_path_in(const char *dir, const char *name);

/* Appends the items of a comma-separated list to (*out, *n), each
 * malloc'ed; 0 or -ENOMEM. corecap_list_free() frees them all. */
int corecap_list_split(const char *list, char ***out, size_t *n);
void corecap_list_free(char **v, size_t n);

#endif
