#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/stats_path.h>

#include "settings.h"
#include "warn.h"

#define DEFAULT_STACK_SAMPLE 64
#define DEFAULT_DUMP_TOP     20
#define DEFAULT_PATTERNS     "*.log:/var/log/*"
/* BlueStore's WAL and DB devices (block.wal, block.db, or symlinks' targets
 * named so), FileStore's journal file or device link. */
#define DEFAULT_JOURNAL_PATTERNS "*block.wal:*block.db:*/journal"

void settings_init(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->stack_sample_every = DEFAULT_STACK_SAMPLE;
	s->stack_depth = 32;
	s->hold_sample_every = 0;
	s->hold_time_every = SETTINGS_HOLD_TIME_DEFAULT;
	s->io_threshold_ns = UINT64_MAX;
	s->stats_enabled = true;
	snprintf(s->stats_dir, sizeof(s->stats_dir), CORECAP_STATS_DIR_DEFAULT);
	snprintf(s->dump_path, sizeof(s->dump_path), "-");
	s->dump_top = DEFAULT_DUMP_TOP;
}

/* Decimal digits only: strtoull alone would accept "-1", " 7" and "0x10". */
int settings_parse_u64(const char *text, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;
	int ret = -EINVAL;

	if (!text || !isdigit((unsigned char)text[0]))
		goto out;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end != '\0' || v > max)
		goto out;
	*out = v;
	ret = 0;
out:
	return ret;
}

static const struct {
	const char *name;
	int sig;
} signal_names[] = {
	{"HUP", SIGHUP},     {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
	{"WINCH", SIGWINCH}, {"URG", SIGURG},	{"PWR", SIGPWR},
};

/* A signal a daemon can take without dying or stopping: by name or number. */
int settings_parse_signal(const char *text, int *out)
{
	uint64_t n;
	int ret = -EINVAL;

	if (!text)
		goto out;
	if (settings_parse_u64(text, (uint64_t)SIGRTMAX, &n) == 0) {
		if (n == 0 || n == SIGKILL || n == SIGSTOP || n == SIGSEGV || n == SIGBUS ||
		    n == SIGILL || n == SIGFPE || n == SIGABRT)
			goto out;
		*out = (int)n;
		ret = 0;
		goto out;
	}
	if (strncmp(text, "SIG", 3) == 0)
		text += 3;
	for (size_t i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++) {
		if (strcmp(text, signal_names[i].name) == 0) {
			*out = signal_names[i].sig;
			ret = 0;
			break;
		}
	}
out:
	return ret;
}

static bool copy_text(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		return false;
	memcpy(dst, src, n + 1);
	return true;
}

static void bad(int *warnings, const char *name, const char *value, const char *why,
		const char *dflt)
{
	warn_line("ignoring %s='%s': %s; using the default (%s)", name, value, why, dflt);
	(*warnings)++;
}

static void load_u32(struct settings *s, settings_getenv_fn get, const char *name, uint32_t *field,
		     uint64_t min, uint64_t max, int *warnings)
{
	const char *v = get(name);
	uint64_t n;
	char dflt[24];

	(void)s;
	if (!v)
		return;
	snprintf(dflt, sizeof(dflt), "%u", *field);
	if (settings_parse_u64(v, max, &n) < 0 || n < min) {
		char why[64];

		snprintf(why, sizeof(why), "expected a whole number from %llu to %llu",
			 (unsigned long long)min, (unsigned long long)max);
		bad(warnings, name, v, why, dflt);
		return;
	}
	*field = (uint32_t)n;
}

/* A ':'-separated list of glob patterns (variable `name`) into buf/pattern/n. */
static void load_patterns(const char *name, const char *text, const char *dflt, char *buf,
			  const char **pattern, uint32_t *n, int *warnings)
{
	const char *v = text ? text : dflt;
	char *p;

	if (!copy_text(buf, SETTINGS_PATTERNS_LEN, v)) {
		bad(warnings, name, v, "longer than 511 bytes", dflt);
		copy_text(buf, SETTINGS_PATTERNS_LEN, dflt);
	}
	*n = 0;
	p = buf;
	while (p) {
		char *colon = strchr(p, ':');

		if (colon)
			*colon = '\0';
		if (*p && *n == SETTINGS_MAX_PATTERNS) {
			warn_line("%s: using only the first %d patterns", name,
				  SETTINGS_MAX_PATTERNS);
			break;
		}
		if (*p)
			pattern[(*n)++] = p;
		p = colon ? colon + 1 : NULL;
	}
}

/* SITE:NS, split at the last colon because C++ symbols contain "::". */
static void load_delay(struct settings *s, const char *v, int *warnings)
{
	const char *colon;
	uint64_t ns;

	if (!v)
		return;
	colon = strrchr(v, ':');
	if (!colon || colon == v) {
		bad(warnings, "CORECAP_DELAY", v, "expected SITE:NS", "no delay");
		return;
	}
	if (settings_parse_u64(colon + 1, 10000000000ull, &ns) < 0 || ns == 0) {
		bad(warnings, "CORECAP_DELAY", v, "NS must be a whole number from 1 to 10^10",
		    "no delay");
		return;
	}
	if ((size_t)(colon - v) >= sizeof(s->delay_site)) {
		bad(warnings, "CORECAP_DELAY", v, "site too long", "no delay");
		return;
	}
	memcpy(s->delay_site, v, (size_t)(colon - v));
	s->delay_site[colon - v] = '\0';
	s->delay_ns = ns;
}

/* An on/off variable whose default is off. */
static void load_onoff(settings_getenv_fn get, const char *name, bool *out, int *warnings)
{
	const char *v = get(name);

	if (!v)
		return;
	if (strcmp(v, "on") == 0 || strcmp(v, "1") == 0)
		*out = true;
	else if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)
		*out = false;
	else
		bad(warnings, name, v, "expected 'on' or 'off'", "off");
}

int settings_load(struct settings *s, settings_getenv_fn get)
{
	int warnings = 0;
	const char *v;

	settings_init(s);
	load_u32(s, get, "CORECAP_STACK_SAMPLE", &s->stack_sample_every, 0, 1000000000, &warnings);
	load_u32(s, get, "CORECAP_STACK_DEPTH", &s->stack_depth, 1, 32, &warnings);
	load_u32(s, get, "CORECAP_HOLD_SAMPLE", &s->hold_sample_every, 0, 1000000000, &warnings);
	load_u32(s, get, "CORECAP_HOLD_TIME", &s->hold_time_every, 1, 65536, &warnings);
	load_u32(s, get, "CORECAP_DUMP_TOP", &s->dump_top, 1, 1000, &warnings);

	v = get("CORECAP_IO_THRESHOLD_NS");
	if (v && strcmp(v, "off") != 0) {
		uint64_t n;

		if (settings_parse_u64(v, UINT64_MAX - 1, &n) < 0)
			bad(&warnings, "CORECAP_IO_THRESHOLD_NS", v,
			    "expected nanoseconds or 'off'", "off");
		else
			s->io_threshold_ns = n;
	}

	v = get("CORECAP_STATS");
	if (v) {
		if (strcmp(v, "on") == 0 || strcmp(v, "1") == 0)
			s->stats_enabled = true;
		else if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)
			s->stats_enabled = false;
		else
			bad(&warnings, "CORECAP_STATS", v, "expected 'on' or 'off'", "on");
	}

	load_onoff(get, "CORECAP_WAKE_EVENTS", &s->wake_events, &warnings);
	load_onoff(get, "CORECAP_NET_EVENTS", &s->net_events, &warnings);

	v = get("CORECAP_STATS_DIR");
	if (v) {
		if (v[0] != '/' || !copy_text(s->stats_dir, sizeof(s->stats_dir), v))
			bad(&warnings, "CORECAP_STATS_DIR", v,
			    "expected an absolute path shorter than 256 bytes", "/dev/shm");
	}

	v = get("CORECAP_DUMP");
	if (v) {
		if (strcmp(v, "off") == 0)
			s->dump_path[0] = '\0';
		else if (strcmp(v, "stderr") == 0 || strcmp(v, "-") == 0)
			copy_text(s->dump_path, sizeof(s->dump_path), "-");
		else if (!*v || !copy_text(s->dump_path, sizeof(s->dump_path), v))
			bad(&warnings, "CORECAP_DUMP", v,
			    "expected 'stderr', 'off' or a path shorter than 256 bytes", "stderr");
	}

	v = get("CORECAP_DUMP_SIGNAL");
	if (v && settings_parse_signal(v, &s->dump_signal) < 0)
		bad(&warnings, "CORECAP_DUMP_SIGNAL", v,
		    "expected a signal number or one of HUP, USR1, USR2, WINCH, URG, PWR", "none");

	load_patterns("CORECAP_LOG_PATTERNS", get("CORECAP_LOG_PATTERNS"), DEFAULT_PATTERNS,
		      s->patterns_buf, s->pattern, &s->n_patterns, &warnings);
	load_patterns("CORECAP_IO_JOURNAL", get("CORECAP_IO_JOURNAL"), DEFAULT_JOURNAL_PATTERNS,
		      s->journal_buf, s->journal_pattern, &s->n_journal_patterns, &warnings);
	load_delay(s, get("CORECAP_DELAY"), &warnings);
	return warnings;
}
