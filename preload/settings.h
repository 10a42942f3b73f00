/*
 * settings.h: the shim's configuration, read from CORECAP_* environment
 * variables exactly once, at load. Every field always holds a usable
 * value: a variable that is unset gets the default, one that is malformed
 * gets the default and one warning naming the variable, the value and
 * why. docs/shim.md lists the variables.
 */
#ifndef CORECAP_PRELOAD_SETTINGS_H
#define CORECAP_PRELOAD_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#define SETTINGS_MAX_PATTERNS	   8
#define SETTINGS_PATH_LEN	   256
#define SETTINGS_PATTERNS_LEN	   512
#define SETTINGS_HOLD_TIME_DEFAULT 8

struct settings {
	uint32_t stack_sample_every; /* CORECAP_STACK_SAMPLE: 1 in N waits per site after the first
				      */
	uint32_t stack_depth;	     /* CORECAP_STACK_DEPTH: frames per sampled stack */
	uint32_t
		hold_sample_every; /* CORECAP_HOLD_SAMPLE: 1 in N acquisitions of any lock, 0 off */
	uint32_t
		hold_time_every; /* CORECAP_HOLD_TIME: track 1 in N uncontended holds of hot locks */
	uint64_t
		io_threshold_ns; /* CORECAP_IO_THRESHOLD_NS: event for slower I/O; UINT64_MAX off */
	bool stats_enabled;	 /* CORECAP_STATS: on/off */
	bool wake_events;	 /* CORECAP_WAKE_EVENTS: corecap_lock:cond_wake on/off */
	bool net_events;	 /* CORECAP_NET_EVENTS: every net call that moved bytes */
	char stats_dir[SETTINGS_PATH_LEN];  /* CORECAP_STATS_DIR */
	char dump_path[SETTINGS_PATH_LEN];  /* CORECAP_DUMP: "" = off, "-" = stderr, else a path */
	int dump_signal;		    /* CORECAP_DUMP_SIGNAL: 0 = none */
	uint32_t dump_top;		    /* CORECAP_DUMP_TOP: rows per table */
	char delay_site[SETTINGS_PATH_LEN]; /* CORECAP_DELAY, site part ("" = no delay) */
	uint64_t delay_ns;		    /* CORECAP_DELAY, nanoseconds part */
	/* CORECAP_LOG_PATTERNS, split at ':'; pattern[i] points into patterns_buf. */
	char patterns_buf[SETTINGS_PATTERNS_LEN];
	const char *pattern[SETTINGS_MAX_PATTERNS];
	uint32_t n_patterns;
	/* CORECAP_IO_JOURNAL: paths of the journal class (journal, WAL, DB), the same way. */
	char journal_buf[SETTINGS_PATTERNS_LEN];
	const char *journal_pattern[SETTINGS_MAX_PATTERNS];
	uint32_t n_journal_patterns;
};

/* The shim's settings, loaded by its constructor. */
extern struct settings g_settings;

typedef const char *(*settings_getenv_fn)(const char *name);

/* Fills s with the defaults. */
void settings_init(struct settings *s);

/*
 * Reads every variable through get (getenv in the shim, a table in tests).
 * Returns the number of malformed variables (each warned about once).
 */
int settings_load(struct settings *s, settings_getenv_fn get);

/* Strict parsers, exposed for the tests: 0 or -EINVAL. */
int settings_parse_u64(const char *text, uint64_t max, uint64_t *out);
int settings_parse_signal(const char *text, int *out);

#endif /* CORECAP_PRELOAD_SETTINGS_H */
