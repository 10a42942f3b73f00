#include <pthread.h>
#include <string.h>
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
static void (*exit_hook)(struct tstate *ts);

/* Runs as a TLS destructor when an attached thread exits. */
static void on_thread_exit(void *unused)
{
	struct tstate *ts = &corecap_tstate;

	(void)unused;
	ts->guard++;
	if (exit_hook)
		exit_hook(ts);
	if (ts->flags & TS_ATTACHED) {
		events_thread_exit(ts->tid);
		if (ts->slot != &tstate_scratch_slot)
			thread_table_release(&g_stats, ts->slot, now_ns());
	}
	ts->slot = &tstate_scratch_slot;
	ts->flags = (ts->flags & ~(uint32_t)TS_ATTACHED) | TS_DETACHED;
	ts->guard--;
}

int tstate_setup(void (*at_exit)(struct tstate *ts))
{
	int ret;

	exit_hook = at_exit;
	ret = -pthread_key_create(&exit_key, on_thread_exit);
	exit_key_ok = ret == 0;
	return ret;
}

void tstate_attach(struct tstate *ts)
{
	char before[CORECAP_STATS_NAME_LEN] = "", now[CORECAP_STATS_NAME_LEN] = "";
	struct corecap_stats_thread *slot;

	if (!tstate_needs_attach(ts) || !stats_shm_ready(&g_stats))
		return;
	ts->tid = (int)syscall(SYS_gettid);
	syscall(SYS_prctl, PR_GET_NAME, before, 0, 0, 0);
	before[sizeof(before) - 1] = '\0';
	slot = thread_table_claim(&g_stats, ts->tid, (uint64_t)pthread_self(), before, now_ns());
	if (slot) {
		ts->slot = slot;
		/* Another thread may have renamed us between the read and the
		 * claim, when it could not find our slot yet: read again. */
		syscall(SYS_prctl, PR_GET_NAME, now, 0, 0, 0);
		now[sizeof(now) - 1] = '\0';
		if (strcmp(before, now) != 0)
			thread_table_set_name(&g_stats, slot, now);
	}
	/* Attached even without a slot: the loss is counted once, not retried. */
	ts->flags |= TS_ATTACHED;
	if (exit_key_ok)
		pthread_setspecific(exit_key, (void *)1);
}

void tstate_reset_after_fork(struct tstate *ts)
{
	ts->slot = &tstate_scratch_slot;
	ts->flags &= ~(uint32_t)(TS_ATTACHED | TS_DETACHED);
	ts->tid = 0;
}
