/*
 * corecap stats-dump: the shim's counters as tab-separated lines
 * (preload/stats_dump_tool.c). One program with two names: the
 * corecap-stats-dump executable and corecap's `stats-dump` command run
 * this same function, so their output and options cannot drift apart.
 * It reads the counters through common's stats_layout.h and stats_path.h
 * alone, its options through common's opt_table.h.
 */
#ifndef CORECAP_STATS_DUMP_H
#define CORECAP_STATS_DUMP_H

/* argv[0] "corecap stats-dump" (corecap's command) names the speaker in messages; 0, 1 or 2. */
int corecap_stats_dump_main(int argc, char **argv);
extern const char corecap_stats_dump_usage[];
struct corecap_opt_table; /* corecap/opt_table.h: its options and --help */
extern const struct corecap_opt_table corecap_stats_dump_help;

/* Its entry in corecap's command table (cli/command.h). */
#define CORECAP_STATS_DUMP_COMMANDS                                                                \
	{"stats-dump", corecap_stats_dump_main,                                                    \
	 "print a live daemon's shim counters as tab-separated lines", corecap_stats_dump_usage,   \
	 &corecap_stats_dump_help},

#endif
