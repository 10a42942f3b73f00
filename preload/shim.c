#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "delay.h"
#include "dump.h"
#include "fd_table.h"
#include "lock_table.h"
#include "lock_track.h"
#include "real.h"
#include "settings.h"
#include "shim.h"
#include "stats_shm.h"
#include "thread_table.h"
#include "tick_clock.h"
#include "tracer_ranges.h"
#include "tstate.h"
#include "util.h"

struct settings g_settings;

/* Published so that a program (or a test) can tell the shim is loaded. */
CORECAP_EXPORT const char corecap_preload_version[] = CORECAP_VERSION;

/* The pid the current region belongs to. */
static pid_t region_pid;

static const char *env_get(const char *name)
{
	return getenv(name);
}

/* Also (re)connects the runtime delay control: a fork child starts without a runtime delay. */
static void publish_settings(void)
{
	bool ready = stats_shm_ready(&g_stats);

	delay_attach_control(&g_delay, ready ? corecap_stats_control_at(g_stats.hdr) : NULL,
			     &lock_track_extra,
			     g_delay.env_site != 0 || g_settings.hold_sample_every != 0);
	if (!ready)
		return;
	g_stats.hdr->delay_site = g_delay.env_site;
	g_stats.hdr->delay_ns = g_delay.env_ns;
}

static void atfork_child(void)
{
	shim_after_fork_child(false);
}

/*
 * Priority 101: before this object's other constructors (the tracepoint
 * registration), so settings and counters exist when they run. Other
 * libraries' constructors may have called wrappers already; those found
 * no region and counted nothing.
 */
__attribute__((constructor(101))) static void shim_init(void)
{
	struct tstate *ts = &corecap_tstate;

	ts->guard++;
	load_functions();
	tick_clock_init();
	tracer_ranges_init(&g_tracer_ranges);
	settings_load(&g_settings, env_get);
	lock_track_init();
	fd_table_init(&g_fds, &g_settings);
	delay_init(&g_delay, &g_settings);
	lock_track_extra = g_delay.site != 0 || g_settings.hold_sample_every != 0;
	stats_shm_create(&g_stats, &g_settings, false);
	region_pid = getpid();
	publish_settings();
	tstate_setup(lock_track_thread_exit);
	pthread_atfork(NULL, NULL, atfork_child);
	if (g_settings.dump_signal)
		dump_signal_start(&g_settings);
	tstate_attach(ts);
	ts->guard--;
}

void shim_after_fork_child(bool from_wrapper)
{
	struct tstate *ts = &corecap_tstate;
	pid_t pid = getpid();

	if (pid != region_pid) {
		ts->guard++;
		stats_shm_forget_parent(&g_stats);
		lock_table_reset_filter();
		lock_track_reset(ts);
		tstate_reset_after_fork(ts);
		stats_shm_create(&g_stats, &g_settings, true);
		region_pid = pid;
		publish_settings();
		tstate_attach(ts);
		ts->guard--;
	}
	if (from_wrapper)
		dump_after_fork_child();
}

void shim_before_exit_now(void)
{
	/* Only the region's own process: a vfork child shares our memory. */
	if (region_pid == getpid())
		stats_shm_mark_exiting(&g_stats);
}

__attribute__((destructor)) static void shim_fini(void)
{
	struct tstate *ts = &corecap_tstate;

	/* Left up: this thread is exiting the process; whatever other
	 * destructors do after this passes straight through. */
	ts->guard++;
	if (!stats_shm_ready(&g_stats))
		return;
	lock_track_flush(ts, ticks());
	if (ts->flags & TS_ATTACHED && ts->slot != &tstate_scratch_slot)
		thread_table_release(&g_stats, ts->slot, now_ns());
	dump_now("exit");
	stats_shm_mark_exiting(&g_stats);
}
