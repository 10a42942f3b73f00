#include "kernel_chrome.h"
#include <corecap/diag.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/futex_locks.h"
#include "model/kernel_states.h"
#include "model/lock_table.h"
#include "pass/consumers.h"
#include "read/kernel_reader.h"
#include <corecap/run_format.h>

struct kchrome {
	struct chrome_trace *t;
	struct sched s; /* the scheduler's replay, which ks and f read */
	struct kernel_states ks;
	struct futex_locks f;
	int err;
};

static void on_slice(void *ctx, const struct kstate_thread *th, enum kstate s, uint64_t from_ns,
		     uint64_t to_ns)
{
	struct kchrome *c = ctx;
	int ret =
		corecap_chrome_trace_kstate(c->t, th->tid, corecap_kstate_name(s), from_ns, to_ns);

	if (ret && !c->err)
		c->err = ret;
}

/* A wait's holder: a flow, when the holder is one of the daemon's threads. */
static void on_wake(void *ctx, int32_t waiter, int32_t holder, uint64_t wake_ns, uint64_t end_ns)
{
	struct kchrome *c = ctx;
	int ret;

	if (!corecap_sched_find(&c->s, holder))
		return;
	ret = corecap_chrome_trace_kwake(c->t, holder, waiter, wake_ns, end_ns);
	if (ret && !c->err)
		c->err = ret;
}

int corecap_kernel_chrome(struct chrome_trace *t, const char *run_dir, uint64_t rec_ws,
			  uint64_t rec_we, uint64_t ws, uint64_t we, char **err)
{
	struct kernel_reader k;
	struct lock_table words;
	struct kchrome c = {.t = t};
	int ret;

	*err = NULL;
	corecap_kernel_reader_init(&k);
	ret = corecap_kernel_reader_load(&k, run_dir, rec_ws, rec_we, err);
	if (ret) {
		corecap_kernel_reader_release(&k);
		return ret == -ENOENT ? 1 : ret;
	}
	corecap_sched_init(&c.s, ws, we);
	corecap_kernel_states_init_on(&c.ks, &c.s);
	corecap_kernel_states_on_slice(&c.ks, on_slice, &c);
	corecap_lock_table_init(&words);
	corecap_futex_locks_init_on(&c.f, &c.s, &words, ws, we, NULL, NULL);
	c.f.on_wake = on_wake;
	c.f.wake_ctx = &c;
	/* One pass: the scheduler's replay, then the states and wake-ups reading it. */
	ret = corecap_pass_run_records(&k,
				       (struct pass_consumer[]){corecap_pass_sched(&c.s),
								corecap_pass_kernel_states(&c.ks),
								corecap_pass_futex_locks(&c.f)},
				       3);
	if (!ret) {
		ret = corecap_kernel_states_finish(&c.ks);
		for (size_t i = 0; i < c.ks.len && !ret; i++)
			if (c.ks.all[i]->comm[0])
				ret = corecap_chrome_trace_name_thread(t, c.ks.all[i]->tid,
								       c.ks.all[i]->comm);
		if (!ret)
			ret = c.err;
	}
	if (!ret && k.lost)
		corecap_warn(
			"the kernel's ring buffers lost %llu records: the kernel thread states "
			"and futex wake-ups around the losses are approximate",
			(unsigned long long)k.lost);
	if (ret && asprintf(err, "cannot export '%s/" CORECAP_KERNEL_DIR "': %s", run_dir,
			    strerror(-ret)) < 0)
		*err = NULL;
	corecap_futex_locks_release(&c.f);
	corecap_lock_table_release(&words);
	corecap_kernel_states_release(&c.ks);
	corecap_sched_release(&c.s);
	corecap_kernel_reader_release(&k);
	return ret;
}
