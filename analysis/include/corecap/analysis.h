/*
 * The analysis' commands, as entries of cli/'s command table. Each cmd_*
 * returns an exit status (0 ok, 1 error, 2 usage).
 */
#ifndef CORECAP_ANALYSIS_H
#define CORECAP_ANALYSIS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

int cmd_report(int argc, char **argv);
int corecap_cmd_flame(int argc, char **argv);
extern const char corecap_flame_usage[];
struct corecap_opt_table; /* corecap/opt_table.h: a command's options and --help */
extern const struct corecap_opt_table corecap_flame_help;
int corecap_cmd_export(int argc, char **argv);
extern const char corecap_export_usage[];
extern const struct corecap_opt_table corecap_export_help;
int corecap_cmd_html(int argc, char **argv);
extern const char corecap_html_usage[];
extern const struct corecap_opt_table corecap_html_help;
int corecap_cmd_compare(int argc, char **argv);
extern const char corecap_compare_usage[];
extern const struct corecap_opt_table corecap_compare_help;
int corecap_cmd_stat(int argc, char **argv);
extern const char corecap_stat_usage[];
extern const struct corecap_opt_table corecap_stat_help;
/*
 * A scale directory (`corecap scale`, which the collector runs) fitted and
 * printed as text, JSON (format corecap-scale) or an HTML page with its
 * chart (format: CORECAP_SCALE_TEXT, _JSON, _HTML of corecap/scale_format.h);
 * cli/ hands it to the collector's command. 0, or -errno after printing
 * the cause.
 */
int corecap_scale_report(const char *dir, int format, FILE *out);

/*
 * Where `corecap stat --kernel` gets a process's kernel events: one
 * interval at a time, as a run directory holding only kernel/. The
 * analysis does not include the collector, so the program that links both
 * (cli/) gives stat this source; without one, stat has the shim's view
 * only. open and interval return 0 or a negative errno with one sentence
 * in why; interval's run_dir stays valid until the next call or close,
 * which removes every file the source made.
 */
struct corecap_stat_kernel_source {
	int (*open)(void **ctx, pid_t pid, char *why, size_t why_size);
	int (*interval)(void *ctx, uint64_t duration_ns, const volatile sig_atomic_t *stop,
			const char **run_dir, uint64_t *ws_ns, uint64_t *we_ns, char *why,
			size_t why_size);
	void (*close)(void *ctx);
};
void corecap_stat_set_kernel_source(const struct corecap_stat_kernel_source *src);

/*
 * The lock of process pid (under the shim) that report and stat name
 * `name` ("d.osd.big_lock"), read from its live counters' contended
 * locks and named by the symbolizer over /proc/PID/maps: its address in
 * *lock and the site of its first contention (what stat prints beside
 * it) in *site. 0; -ENOENT no contended lock of that name; -EEXIST
 * several, first contended at different sites; another negative errno;
 * why says which. For corecap verify (collector.h's
 * corecap_verify_lock_site_fn).
 */
int corecap_verify_lock_site(pid_t pid, const char *name, uint64_t *lock, uint64_t *site,
			     char *why, size_t why_size);

/* The head of report's --help; its options are cmd_report.c's table. */
extern const struct corecap_opt_table corecap_report_help;
#define CORECAP_REPORT_USAGE                                                                       \
	"usage: corecap report [--json] [--top N] [--sort wait|contended|hold|avg|max]\n"          \
	"                      [--lines] [--symfs DIR] [--log-symbols PATTERNS]\n"                 \
	"                      [--op-pools PATTERNS] [--ops auto|annotated|detected]\n"            \
	"                      [--dump-ops FILE] [--keep-shim-frames] [--keep-profiler]\n"         \
	"                      [--check-conservation] [--scale DIR | --no-scale] RUN\n"             \
	"\n"                                                                                       \
	"Explains a recorded run: where each op's time goes (cpu, lock waits, cond waits,\n"       \
	"logging, I/O, queueing), thread and pool utilization, the lock table, and the\n"          \
	"ceiling: the resource that bounds throughput and how much headroom it leaves.\n"          \
	"A run of several daemons (record -p PID1,PID2) is reported merged (what caps the\n"       \
	"box, the pools and cores of all) and then per daemon; RUN:PID names one daemon.\n"        \
	"\n"

#define CORECAP_ANALYSIS_COMMANDS                                                                  \
	{"report", cmd_report, "explain a run: per-op attribution, locks, pools, the ceiling",     \
	 CORECAP_REPORT_USAGE, &corecap_report_help},                                              \
		{"flame", corecap_cmd_flame, "folded stacks or an SVG flame graph (cpu, wall, lock, op)", \
		 corecap_flame_usage, &corecap_flame_help},                                        \
		{"export", corecap_cmd_export, "the run as a Chrome trace (Perfetto, chrome://tracing)", \
		 corecap_export_usage, &corecap_export_help},                                      \
		{"html", corecap_cmd_html, "one self-contained HTML page: report, charts, flame graphs", \
		 corecap_html_usage, &corecap_html_help},                                          \
		{"compare", corecap_cmd_compare, "two runs side by side, or differential folded stacks", \
		 corecap_compare_usage, &corecap_compare_help},                                    \
		{"stat", corecap_cmd_stat, "a live view of a daemon: locks, threads (shim or kernel events)", \
		 corecap_stat_usage, &corecap_stat_help},

#endif
