/*
 * The collector's commands, as entries of cli/'s command table. Each
 * command returns an exit status (0 ok, 1 error, 2 usage; `record` returns
 * 130 when interrupted, after writing the run).
 */
#ifndef CORECAP_COLLECTOR_H
#define CORECAP_COLLECTOR_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <corecap/scale_format.h>

int corecap_cmd_run(int argc, char **argv);
int corecap_cmd_record(int argc, char **argv);
int corecap_cmd_verify(int argc, char **argv);
int corecap_cmd_scale(int argc, char **argv);
int corecap_cmd_clock(int argc, char **argv);
int corecap_cmd_clock_serve(int argc, char **argv); /* internal: clock's remote end */
int corecap_cmd_host_record(int argc, char **argv); /* internal: record --hosts' remote end */

extern const char corecap_run_usage[];
extern const struct corecap_opt_table corecap_run_help;
extern const char corecap_record_usage[];
struct corecap_opt_table; /* corecap/opt_table.h: a command's options and --help */
extern const struct corecap_opt_table corecap_record_help;
extern const char corecap_verify_usage[];
extern const struct corecap_opt_table corecap_verify_help;
extern const char corecap_scale_usage[];
extern const struct corecap_opt_table corecap_scale_help;
extern const char corecap_clock_usage[];
extern const struct corecap_opt_table corecap_clock_help;
extern const char corecap_clock_serve_usage[];
extern const char corecap_host_record_usage[];

/*
 * What `corecap scale` prints once its points are recorded, and for
 * --report: the analysis' (corecap_scale_report, corecap/analysis.h),
 * which cli/ gives it; the collector does not link the analysis. Returns
 * 0, or -errno after printing the cause.
 */
typedef int (*corecap_scale_report_fn)(const char *dir, int format, FILE *out);
void corecap_scale_set_report(corecap_scale_report_fn fn);

/*
 * A lock named as report and stat name it ("d.osd.big_lock") for verify's
 * --site and --control: the analysis' (corecap_verify_lock_site,
 * corecap/analysis.h), which cli/ gives it, since naming a lock's address
 * takes the analysis' symbolizer. Fills *lock and *site (the site of the
 * lock's first contention, the one stat prints beside it) and returns 0;
 * -ENOENT when process pid has no contended lock of that name, another
 * negative errno otherwise, with why filled.
 */
typedef int (*corecap_verify_lock_site_fn)(pid_t pid, const char *name, uint64_t *lock,
					   uint64_t *site, char *why, size_t why_size);
void corecap_verify_set_lock_site(corecap_verify_lock_site_fn fn);

#define CORECAP_COLLECTOR_COMMANDS                                                                 \
	{"run", corecap_cmd_run, "run a daemon with the corecap shim preloaded",                   \
	 corecap_run_usage, &corecap_run_help},                                                    \
		{"record", corecap_cmd_record,                                                     \
		 "record a running daemon during a benchmark into a run directory",                \
		 corecap_record_usage, &corecap_record_help},                                      \
		{"verify", corecap_cmd_verify,                                                     \
		 "check a bound by delay injection on a live daemon", corecap_verify_usage,        \
		 &corecap_verify_help},                                                            \
		{"scale", corecap_cmd_scale,                                                       \
		 "record a daemon at several core counts and fit how it scales",                   \
		 corecap_scale_usage, &corecap_scale_help},                                        \
		{"clock", corecap_cmd_clock,                                                       \
		 "measure remote hosts' monotonic clocks against this one's, with a bound",        \
		 corecap_clock_usage, &corecap_clock_help},                                        \
		{"clock-serve", corecap_cmd_clock_serve, NULL, corecap_clock_serve_usage, NULL},   \
		{"host-record", corecap_cmd_host_record, NULL, corecap_host_record_usage, NULL},

#endif
