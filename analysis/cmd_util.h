/*
 * cmd_util: what every analysis command needs around its work: the error
 * line on stderr ("corecap: <message>", house style) and paths inside the
 * run directory. Kept apart from the collector's diag.c, since analysis
 * includes no collector code.
 */
#ifndef CORECAP_ANALYSIS_CMD_UTIL_H
#define CORECAP_ANALYSIS_CMD_UTIL_H

/* Prints "corecap: <formatted message>\n" on stderr. */
void corecap_analysis_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "DIR/NAME", malloc'ed; NULL when out of memory. */
char *corecap_path_in(const char *dir, const char *name);

#endif
