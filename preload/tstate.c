#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events.h"
#include "stats_shm.h"
#include "thread_table.h"
#include "tstate.h"
#include "util.h"

struct corecap_stats_thread tstate_scratch_slot;

__thread struct tstate corecap_tstate __attribute__((tls_model("initial-exec"))) = {
	.slot = &tstate_scratch_slot,
};

static pthread_key_t exit_key;
static bool exit_key_ok;

/* Runs as a TLS destructor when an attached thread exits. */
static void on_thread_exit(void *unused)
{
	struct tstate *ts = &corecap_tstate;

	(void)unused;
	ts->guard++;
	if (ts->flags & TS_ATTACHED) {
		events_thread_exit(ts->tid);
		if (ts->slot != &tstate_scratch_slot)
			thread_table_release(&g_stats, ts->slot, now_ns());
	}
	ts->slot = &tstate_scratch_slot;
	ts->flags = (ts->flags & ~(uint32_t)TS_ATTACHED) | TS_DETACHED;
	ts->hold_depth = 0;
	ts->guard--;
}

int tstate_setup(void)
{
	int ret = -pthread_key_create(&exit_key, on_thread_exit);

	exit_key_ok = ret == 0;
	return ret;
}

void tstate_attach(struct tstate *ts)
{
	char name[CORECAP_STATS_NAME_LEN] = "";
	struct corecap_stats_thread *slot;

	if (!tstate_needs_attach(ts) || !stats_shm_ready(&g_stats))
		return;
	ts->tid = (int)syscall(SYS_gettid);
	syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0);
	name[sizeof(name) - 1] = '\0';
	slot = thread_table_claim(&g_stats, ts->tid, (uint64_t)pthread_self(), name, now_ns());
	if (slot)
		ts->slot = slot;
	/* Attached even without a slot: the loss is counted once, not retried. */
	ts->flags |= TS_ATTACHED;
	if (exit_key_ok)
		pthread_setspecific(exit_key, (void *)1);
}

void tstate_reset_after_fork(struct tstate *ts)
{
	ts->slot = &tstate_scratch_slot;
	ts->flags &= ~(uint32_t)(TS_ATTACHED | TS_DETACHED);
	ts->hold_depth = 0;
	ts->hold_countdown = 0;
	ts->tid = 0;
}
