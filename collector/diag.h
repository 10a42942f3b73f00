/*
 * Messages to the user. Every message goes to stderr and starts with
 * "corecap: "; errors name the thing and the cause. Informational notes
 * (progress, "started lttng-sessiond") are silenced by corecap_diag_quiet,
 * errors and warnings never are.
 */
#ifndef CORECAP_COLLECTOR_DIAG_H
#define CORECAP_COLLECTOR_DIAG_H

#include <stdbool.h>

extern bool corecap_diag_quiet;

void corecap_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void corecap_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void corecap_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
