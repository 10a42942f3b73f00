/*
 * Asynchronous I/O through libaio (io_submit, io_getevents,
 * io_pgetevents, io_cancel), as BlueStore's KernelDevice and FileStore's
 * journal use it: Debian's ceph-osd 16.2 imports io_submit@LIBAIO_0.1 and
 * io_getevents@LIBAIO_0.4 from libaio.so.1 (objdump -T), so the dynamic
 * linker binds them to the shim's definitions of those versions
 * (corecap-preload.map) as it does the libc ones. Its io_uring code
 * (bdev_ioring, off by default) is a static liburing that enters the
 * kernel by raw syscall: no preload can see it.
 *
 * io_submit keeps each iocb's submission time and class (its
 * descriptor's, fd_table.h) in the aio table (aio_table.h) before the
 * real call, since the completion may be reaped before the call returns;
 * the call's own time counts as I/O of the submitting thread, class of
 * the first iocb. io_getevents times each completion it reaps from that
 * entry and counts it in the reaping thread's aio_* counters; its own
 * time is waiting for the device and is not counted as I/O (the reaping
 * thread, bstore_aio, sleeps in it). Return values are libaio's
 * (a negative errno, errno untouched) and errno is preserved.
 *
 * The real functions are looked up by version with dlvsym on first use;
 * a program that calls these without libaio loaded gets the raw syscall
 * with libaio's return convention.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/aio_abi.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "aio_table.h"
#include "events.h"
#include "fd_table.h"
#include "lock_track.h"
#include "real.h"
#include "settings.h"
#include "stats_shm.h"
#include "tick_clock.h"
#include "tracer_ranges.h"
#include "tstate.h"
#include "util.h"

typedef int (*io_submit_fn)(aio_context_t, long, struct iocb **);
typedef int (*io_getevents_fn)(aio_context_t, long, long, struct io_event *, struct timespec *);
typedef int (*io_pgetevents_fn)(aio_context_t, long, long, struct io_event *, struct timespec *,
				sigset_t *);
typedef int (*io_cancel_fn)(aio_context_t, struct iocb *, struct io_event *);

static io_submit_fn real_io_submit;
static io_getevents_fn real_io_getevents;
static io_pgetevents_fn real_io_pgetevents;
static io_cancel_fn real_io_cancel;

/* dlvsym may allocate or lock: under the guard. Repeated while libaio is absent. */
static void resolve(struct tstate *ts)
{
	ts->guard++;
	if (!real_io_submit)
		real_io_submit = (io_submit_fn)dlvsym(RTLD_NEXT, "io_submit", "LIBAIO_0.1");
	if (!real_io_getevents)
		real_io_getevents =
			(io_getevents_fn)dlvsym(RTLD_NEXT, "io_getevents", "LIBAIO_0.4");
	if (!real_io_pgetevents)
		real_io_pgetevents =
			(io_pgetevents_fn)dlvsym(RTLD_NEXT, "io_pgetevents", "LIBAIO_0.5");
	if (!real_io_cancel)
		real_io_cancel = (io_cancel_fn)dlvsym(RTLD_NEXT, "io_cancel", "LIBAIO_0.4");
	ts->guard--;
}

/* A raw syscall with libaio's convention: a negative errno, errno kept. */
static int libaio_ret(long r, int saved_errno)
{
	if (r < 0) {
		r = -errno;
		errno = saved_errno;
	}
	return (int)r;
}

static int call_of(unsigned opcode)
{
	switch (opcode) {
	case IOCB_CMD_PREAD:
	case IOCB_CMD_PREADV:
		return CORECAP_IO_CALL_READ;
	case IOCB_CMD_FSYNC:
	case IOCB_CMD_FDSYNC:
		return CORECAP_IO_CALL_FSYNC;
	default:
		return CORECAP_IO_CALL_WRITE;
	}
}

static inline bool skip_tracking(struct tstate *ts, const void *ra)
{
	return ts->guard || tracer_ranges_contain(&g_tracer_ranges, (uint64_t)(uintptr_t)ra);
}

static void attach(struct tstate *ts)
{
	if (unlikely(tstate_needs_attach(ts)))
		tstate_attach(ts);
}

/* Before the real io_submit: every iocb's entry. Returns the first's class. */
static int submitting(struct tstate *ts, long nr, struct iocb **iocbs, uint64_t t0)
{
	int first_cls = CORECAP_IO_OTHER;

	ts->guard++;
	attach(ts);
	for (long i = 0; i < nr; i++) {
		const struct iocb *cb = iocbs[i];
		int fd, cls;

		/* The kernel stops at a NULL iocb (EFAULT); so does the shim. */
		if (!cb)
			break;
		fd = (int)cb->aio_fildes;
		cls = fd_table_class(&g_fds, fd);
		if (i == 0)
			first_cls = cls;
		if (!aio_table_put(&g_aio, cb, t0, fd, cls, call_of(cb->aio_lio_opcode)))
			shared_add(&g_stats.hdr->aio_untracked, 1);
	}
	ts->guard--;
	return first_cls;
}

/* After it: take back what it did not submit, charge its time. */
static void submitted(struct tstate *ts, long nr, struct iocb **iocbs, int r, int cls, uint64_t t0)
{
	uint64_t dur_ns = ticks_to_ns(ticks() - t0);
	struct corecap_stats_counters *c = &ts->slot->c;
	struct aio_entry e;

	ts->guard++;
	for (long i = r > 0 ? r : 0; i < nr && iocbs[i]; i++)
		aio_table_take(&g_aio, iocbs[i], &e);
	own_add(&c->io_calls[cls], 1);
	own_add(&c->io_ns[cls], dur_ns);
	if (unlikely(events_io_enabled()) &&
	    (cls == CORECAP_IO_LOG || dur_ns >= g_settings.io_threshold_ns))
		events_io(CORECAP_IO_CALL_AIO_SUBMIT, iocbs[0] ? (int)iocbs[0]->aio_fildes : -1,
			  cls, r, dur_ns, (const uint8_t *)"", 0);
	events_poll_names();
	ts->guard--;
}

/* After a reap: time each completion from its submission. */
static void reaped(struct tstate *ts, const struct io_event *ev, int r)
{
	uint64_t now = ticks();
	struct corecap_stats_counters *c;

	ts->guard++;
	attach(ts);
	c = &ts->slot->c;
	for (int i = 0; i < r; i++) {
		const void *cb = (const void *)(uintptr_t)ev[i].obj;
		struct aio_entry e;
		uint64_t dur_ns;

		if (!aio_table_take(&g_aio, cb, &e)) {
			shared_add(&g_stats.hdr->aio_unmatched, 1);
			continue;
		}
		dur_ns = now > e.submit_ticks ? ticks_to_ns(now - e.submit_ticks) : 0;
		own_add(&c->aio_done[e.io_class], 1);
		own_add(&c->aio_ns[e.io_class], dur_ns);
		if (ev[i].res > 0)
			own_add(&c->aio_bytes[e.io_class], (uint64_t)ev[i].res);
		if (unlikely(events_aio_enabled()))
			events_aio(e.call, e.fd, e.io_class, ev[i].res, dur_ns, cb);
	}
	ts->guard--;
}

/* Before a reap that may sleep until completions come: the thread
 * publishes its lock batches first when they are due. */
static inline void before_reap(struct tstate *ts, long min_nr, const void *ra)
{
	if (min_nr > 0 && !skip_tracking(ts, ra) && unlikely(lock_track_block_due(ticks())))
		lock_track_block_flush(ts);
}

/* The reaping wrappers' tail: count what r reaped, keep errno, return r. */
static int after_reap(struct tstate *ts, const struct io_event *ev, int r, const void *ra)
{
	if (r > 0 && !skip_tracking(ts, ra)) {
		int saved_errno = errno;

		reaped(ts, ev, r);
		errno = saved_errno;
	}
	return r;
}

CORECAP_EXPORT int corecap_io_submit(aio_context_t ctx, long nr, struct iocb **iocbs)
{
	struct tstate *ts = &corecap_tstate;
	int saved_errno = errno;
	uint64_t t0;
	int cls, r;

	if (unlikely(!real_io_submit) && !ts->guard)
		resolve(ts);
	if (unlikely(!real_io_submit))
		return libaio_ret(syscall(SYS_io_submit, ctx, nr, iocbs), saved_errno);
	if (skip_tracking(ts, __builtin_return_address(0)) || nr <= 0 || !iocbs)
		return real_io_submit(ctx, nr, iocbs);
	t0 = ticks();
	cls = submitting(ts, nr, iocbs, t0);
	r = real_io_submit(ctx, nr, iocbs);
	saved_errno = errno;
	submitted(ts, nr, iocbs, r, cls, t0);
	errno = saved_errno;
	return r;
}

CORECAP_EXPORT int corecap_io_getevents(aio_context_t ctx, long min_nr, long nr,
					struct io_event *events, struct timespec *timeout)
{
	struct tstate *ts = &corecap_tstate;
	int saved_errno = errno;
	int r;

	if (unlikely(!real_io_getevents) && !ts->guard)
		resolve(ts);
	if (unlikely(!real_io_getevents))
		return libaio_ret(syscall(SYS_io_getevents, ctx, min_nr, nr, events, timeout),
				  saved_errno);
	before_reap(ts, min_nr, __builtin_return_address(0));
	r = real_io_getevents(ctx, min_nr, nr, events, timeout);
	return after_reap(ts, events, r, __builtin_return_address(0));
}

CORECAP_EXPORT int corecap_io_pgetevents(aio_context_t ctx, long min_nr, long nr,
					 struct io_event *events, struct timespec *timeout,
					 sigset_t *sigmask)
{
	struct tstate *ts = &corecap_tstate;
	int saved_errno = errno;
	int r;

	if (unlikely(!real_io_pgetevents) && !ts->guard)
		resolve(ts);
	if (unlikely(!real_io_pgetevents)) {
		/* The kernel's sigset argument: the mask and its size. */
		struct {
			const sigset_t *mask;
			size_t size;
		} sig = {sigmask, _NSIG / 8};

		return libaio_ret(syscall(SYS_io_pgetevents, ctx, min_nr, nr, events, timeout,
					  sigmask ? &sig : NULL),
				  saved_errno);
	}
	before_reap(ts, min_nr, __builtin_return_address(0));
	r = real_io_pgetevents(ctx, min_nr, nr, events, timeout, sigmask);
	return after_reap(ts, events, r, __builtin_return_address(0));
}

/* A cancelled iocb completes into *result, not through io_getevents. */
CORECAP_EXPORT int corecap_io_cancel(aio_context_t ctx, struct iocb *iocb, struct io_event *result)
{
	struct tstate *ts = &corecap_tstate;
	int saved_errno = errno;
	int r;

	if (unlikely(!real_io_cancel) && !ts->guard)
		resolve(ts);
	if (unlikely(!real_io_cancel))
		return libaio_ret(syscall(SYS_io_cancel, ctx, iocb, result), saved_errno);
	r = real_io_cancel(ctx, iocb, result);
	if (r == 0) {
		struct aio_entry e;

		aio_table_take(&g_aio, iocb, &e);
	}
	return r;
}

/* The versioned names libaio's callers bind to (corecap-preload.map). */
__asm__(".symver corecap_io_submit, io_submit@@LIBAIO_0.1");
__asm__(".symver corecap_io_getevents, io_getevents@@LIBAIO_0.4");
__asm__(".symver corecap_io_pgetevents, io_pgetevents@@LIBAIO_0.5");
__asm__(".symver corecap_io_cancel, io_cancel@@LIBAIO_0.4");
