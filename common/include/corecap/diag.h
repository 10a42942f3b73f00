/*
 * diag: how corecap's commands speak to the user (collector and analysis;
 * the shim keeps its own async-signal-safe line, preload/warn.h, with the
 * same wording). Every message goes to stderr on one line that starts with
 * the command's prefix, "corecap <command>: " (corecap_diag_begin; plain
 * "corecap: " before one is known). Errors name the thing and the cause,
 * babeltrace2-style, outermost context first:
 *
 *   corecap report: cannot open trace 'r/trace': No such file or directory
 *   corecap record: cannot trace PID 42 with LTTng (...): cannot create LTTng session 'x': ...
 *
 * An error is a value built where it happens and printed once, by the
 * command's caller:
 *  - functions that return one hand back a negative errno and a malloc'd
 *    message in *err (corecap_err); each caller may add its context
 *    around it (corecap_err_wrap) and the one that gives up prints it
 *    (corecap_error("%s", err));
 *  - functions that do not return a message add a cause to the thread's
 *    pending error (corecap_cause); the next corecap_error() prints the
 *    causes after its own message, innermost last, and clears them.
 * Warnings are counted; corecap_diag_end() says how many there were (when
 * any) and prints causes nobody claimed. Notes are chatter, silenced by
 * corecap_diag_quiet; errors and warnings never are.
 */
#ifndef CORECAP_DIAG_H
#define CORECAP_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

extern bool corecap_diag_quiet;

/* The command whose messages follow ("report", "record"); NULL: none. */
void corecap_diag_begin(const char *command);
/* "corecap <command>" (or "corecap"), for messages printed whole elsewhere. */
const char *corecap_diag_prefix(void);
/* The end of the command: leftover causes printed, the warning count said; returns status. */
int corecap_diag_end(int status);
unsigned long corecap_diag_warnings(void);

void corecap_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void corecap_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void corecap_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Adds a cause to the pending error, printed by the next corecap_error(). */
void corecap_cause(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Moves the pending causes into buf (a warning's words when the caller carries on). */
void corecap_cause_take(char *buf, size_t size);

/*
 * A usage error (a missing operand, an unknown option, a bad value): the
 * message on one line, then one line of usage, so that the error does not
 * scroll away under the full help (which only --help prints):
 *
 *   corecap record: no daemon: -p PID or --ceph-osds is required
 *   usage: corecap record -p PID[,PID...] | --ceph-osds[=DIR] [options] [-- BENCHMARK ARGS...]; see 'corecap record --help'
 *
 * The usage line is the usage text's first synopsis with its option
 * groups folded into "[options]". Returns 2, the exit status of a usage
 * error. corecap_usage_hint prints only the usage line (after getopt
 * printed its own message).
 */
int corecap_usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int corecap_usage_hint(const char *usage);
/* The one-line synopsis corecap_usage_hint prints, "corecap CMD [options] RUN", into buf. */
void corecap_usage_short(const char *usage, char *buf, size_t size);

/* An error value: *err = the formatted message (malloc'd; NULL if even that
 * failed); returns ret (a negative errno). */
int corecap_err(char **err, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int corecap_verr(char **err, int ret, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Puts context around *err: "<context>: <*err>", or "<context>: strerror(-ret)"
 * when *err is NULL; returns ret. */
int corecap_err_wrap(char **err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
