/*
 * I/O calls: timed (two vDSO clock reads around the real call), charged
 * to the calling thread by the class of the descriptor (fd_table.h), and
 * reported as a corecap_io:syscall event when a session listens and the
 * call is log I/O, an fsync-like call, slower than
 * CORECAP_IO_THRESHOLD_NS, or, with CORECAP_NET_EVENTS=on, any socket
 * call that moved bytes (the requests and replies from which the
 * analysis detects the ops of a daemon that marks none). Each socket
 * write that answers a read on the same descriptor is counted as a reply
 * (fd_table.h), for stat's ops/s of such a daemon. Return values and
 * errno are the real call's.
 *
 * stdio (fwrite, fprintf) reaches the kernel through glibc's internal
 * write, which no preload can see; daemons that log through write(2) or
 * writev(2), like Ceph, are seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

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

/*
 * After the real call: charge it, maybe report it. Nothing on the common
 * path calls out or touches errno (the lazy classification keeps errno
 * itself), so errno is saved only around an event.
 */
/*
 * The first bytes a socket call moved, up to max of them, from its buffer
 * (of cnt bytes) or its cnt iovecs, into out; how many. A request's or
 * reply's header, from which the analysis frames and types it
 * (docs/events.md, `hdr`). A call can report more bytes than its buffer
 * holds (recv with MSG_TRUNC): only the buffer's own length bounds the copy.
 */
static size_t hdr_of(uint8_t *out, size_t max, ssize_t r, const void *buf, const struct iovec *iov,
		     size_t cnt)
{
	size_t want = (size_t)r < max ? (size_t)r : max, n = 0;

	if (buf) {
		n = want < cnt ? want : cnt;
		__builtin_memcpy(out, buf, n);
		return n;
	}
	for (size_t i = 0; iov && i < cnt && n < want; i++) {
		size_t k = iov[i].iov_len < want - n ? iov[i].iov_len : want - n;

		__builtin_memcpy(out + n, iov[i].iov_base, k);
		n += k;
	}
	return n;
}

static inline bool is_write(int call)
{
	return call == CORECAP_IO_CALL_WRITE || call == CORECAP_IO_CALL_SEND;
}

/*
 * A socket call ended: a read that moved bytes marks a request on fd; a
 * write that took one before it started (took) and moved bytes is a reply
 * (fd_table.h), counted in the thread's slot (a thread without one: in
 * the header, by an atomic add); one that failed puts the request back.
 */
static inline void count_reply(struct tstate *ts, int call, int fd, ssize_t r, bool took)
{
	struct corecap_stats_header *h;

	if (!is_write(call)) {
		if (r > 0 && call != CORECAP_IO_CALL_FSYNC)
			fd_table_request(&g_fds, fd);
		return;
	}
	if (!took)
		return;
	if (r <= 0) {
		fd_table_request(&g_fds, fd);
		return;
	}
	if (likely(ts->slot != &tstate_scratch_slot)) {
		own_add(&ts->slot->replies, 1);
		return;
	}
	h = __atomic_load_n(&g_stats.hdr, __ATOMIC_ACQUIRE);
	if (h)
		shared_add(&h->replies_unslotted, 1);
}

static __attribute__((noinline)) void io_done(struct tstate *ts, int call, int fd, ssize_t r,
					      uint64_t t0, bool took, const void *buf,
					      const struct iovec *iov, size_t cnt)
{
	uint64_t dur_ns = ticks_to_ns(ticks() - t0);
	struct corecap_stats_counters *c;
	int cls;

	ts->guard++;
	if (unlikely(tstate_needs_attach(ts)))
		tstate_attach(ts);
	cls = fd_table_class(&g_fds, fd);
	c = &ts->slot->c;
	own_add(&c->io_calls[cls], 1);
	own_add(&c->io_ns[cls], dur_ns);
	if (r > 0)
		own_add(&c->io_bytes[cls], (uint64_t)r);
	if (cls == CORECAP_IO_NET)
		count_reply(ts, call, fd, r, took);
	if (call == CORECAP_IO_CALL_FSYNC) {
		own_add(&c->sync_calls[cls], 1);
		own_add(&c->sync_ns[cls], dur_ns);
	}
	if (unlikely(events_io_enabled()) &&
	    (cls == CORECAP_IO_LOG || call == CORECAP_IO_CALL_FSYNC ||
	     dur_ns >= g_settings.io_threshold_ns ||
	     (cls == CORECAP_IO_NET && r > 0 && g_settings.net_events))) {
		int saved_errno = errno;
		uint8_t hdr[CORECAP_IO_HDR_IN];
		size_t hdr_len = 0;

		if (cls == CORECAP_IO_NET && r > 0)
			hdr_len =
				hdr_of(hdr,
				       call == CORECAP_IO_CALL_READ || call == CORECAP_IO_CALL_RECV
					       ? CORECAP_IO_HDR_IN
					       : CORECAP_IO_HDR_OUT,
				       r, buf, iov, cnt);
		events_io(call, fd, cls, (int64_t)r, dur_ns, hdr, hdr_len);
		errno = saved_errno;
	}
	events_poll_names();
	ts->guard--;
}

/* A call from LTTng-UST's own code (tracer_ranges.h): not the daemon's I/O. */
static inline bool from_tracer(const void *ra)
{
	return tracer_ranges_contain(&g_tracer_ranges, (uint64_t)(uintptr_t)ra);
}

/*
 * One wrapper body for every call: resolve, pass through under the
 * guard, else time the real call. FALLBACK is the raw syscall used only
 * while load_functions() is running in this thread. BUF and its length
 * CNT, or IOV and its count CNT, say where the bytes moved are (for a net
 * event's hdr; NULL, NULL, 0 if nowhere). A read or receive may sleep
 * until input comes (a socket, a pipe): the thread publishes its lock
 * batches first when they are due (lock_track_block_due).
 */
#define IO_WRAP(call, fd, real_expr, fallback_expr, buf, iov, cnt)                                 \
	do {                                                                                       \
		struct tstate *ts = &corecap_tstate;                                               \
		uint64_t t0;                                                                       \
		ssize_t r;                                                                         \
		bool took;                                                                         \
                                                                                                   \
		if (unlikely(!real_ptr))                                                           \
			load_functions();                                                          \
		if (unlikely(!real_ptr))                                                           \
			return (fallback_expr);                                                    \
		if (unlikely(ts->guard) || from_tracer(__builtin_return_address(0)))               \
			return (real_expr);                                                        \
		t0 = ticks();                                                                      \
		if (((call) == CORECAP_IO_CALL_READ || (call) == CORECAP_IO_CALL_RECV) &&          \
		    unlikely(lock_track_block_due(t0)))                                            \
			t0 = lock_track_block_flush(ts);                                           \
		took = is_write(call) && fd_table_take_request(&g_fds, (fd));                      \
		r = (real_expr);                                                                   \
		io_done(ts, (call), (fd), r, t0, took, (buf), (iov), (size_t)(cnt));               \
		return r;                                                                          \
	} while (0)

CORECAP_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
#define real_ptr real_write
	IO_WRAP(CORECAP_IO_CALL_WRITE, fd, real_write(fd, buf, n), syscall(SYS_write, fd, buf, n),
		buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
#define real_ptr real_writev
	IO_WRAP(CORECAP_IO_CALL_WRITE, fd, real_writev(fd, iov, cnt),
		syscall(SYS_writev, fd, iov, cnt), NULL, iov, cnt > 0 ? cnt : 0);
#undef real_ptr
}

CORECAP_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
#define real_ptr real_pwrite
	IO_WRAP(CORECAP_IO_CALL_WRITE, fd, real_pwrite(fd, buf, n, off),
		syscall(SYS_pwrite64, fd, buf, n, off), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
#define real_ptr real_pwrite64
	IO_WRAP(CORECAP_IO_CALL_WRITE, fd, real_pwrite64(fd, buf, n, off),
		syscall(SYS_pwrite64, fd, buf, n, off), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
#define real_ptr real_pwritev
	IO_WRAP(CORECAP_IO_CALL_WRITE, fd, real_pwritev(fd, iov, cnt, off),
		syscall(SYS_pwritev, fd, iov, cnt, off, 0), NULL, iov, cnt > 0 ? cnt : 0);
#undef real_ptr
}

CORECAP_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
#define real_ptr real_pwritev64
	IO_WRAP(CORECAP_IO_CALL_WRITE, fd, real_pwritev64(fd, iov, cnt, off),
		syscall(SYS_pwritev, fd, iov, cnt, off, 0), NULL, iov, cnt > 0 ? cnt : 0);
#undef real_ptr
}

CORECAP_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
#define real_ptr real_read
	IO_WRAP(CORECAP_IO_CALL_READ, fd, real_read(fd, buf, n), syscall(SYS_read, fd, buf, n), buf,
		NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
#define real_ptr real_readv
	IO_WRAP(CORECAP_IO_CALL_READ, fd, real_readv(fd, iov, cnt),
		syscall(SYS_readv, fd, iov, cnt), NULL, iov, cnt > 0 ? cnt : 0);
#undef real_ptr
}

CORECAP_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
#define real_ptr real_pread
	IO_WRAP(CORECAP_IO_CALL_READ, fd, real_pread(fd, buf, n, off),
		syscall(SYS_pread64, fd, buf, n, off), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
#define real_ptr real_pread64
	IO_WRAP(CORECAP_IO_CALL_READ, fd, real_pread64(fd, buf, n, off),
		syscall(SYS_pread64, fd, buf, n, off), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
#define real_ptr real_preadv
	IO_WRAP(CORECAP_IO_CALL_READ, fd, real_preadv(fd, iov, cnt, off),
		syscall(SYS_preadv, fd, iov, cnt, off, 0), NULL, iov, cnt > 0 ? cnt : 0);
#undef real_ptr
}

CORECAP_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
#define real_ptr real_preadv64
	IO_WRAP(CORECAP_IO_CALL_READ, fd, real_preadv64(fd, iov, cnt, off),
		syscall(SYS_preadv, fd, iov, cnt, off, 0), NULL, iov, cnt > 0 ? cnt : 0);
#undef real_ptr
}

/* The _FORTIFY_SOURCE entry points check buflen, then read: the real
 * ones do both; without them there is no check to keep, so they fall
 * back to the plain syscall. */
CORECAP_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
#define real_ptr real___read_chk
	IO_WRAP(CORECAP_IO_CALL_READ, fd, real___read_chk(fd, buf, n, buflen),
		syscall(SYS_read, fd, buf, n), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
#define real_ptr real___pread_chk
	IO_WRAP(CORECAP_IO_CALL_READ, fd, real___pread_chk(fd, buf, n, off, buflen),
		syscall(SYS_pread64, fd, buf, n, off), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
#define real_ptr real___pread64_chk
	IO_WRAP(CORECAP_IO_CALL_READ, fd, real___pread64_chk(fd, buf, n, off, buflen),
		syscall(SYS_pread64, fd, buf, n, off), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT int fsync(int fd)
{
#define real_ptr real_fsync
	IO_WRAP(CORECAP_IO_CALL_FSYNC, fd, real_fsync(fd), syscall(SYS_fsync, fd), NULL, NULL, 0);
#undef real_ptr
}

CORECAP_EXPORT int fdatasync(int fd)
{
#define real_ptr real_fdatasync
	IO_WRAP(CORECAP_IO_CALL_FSYNC, fd, real_fdatasync(fd), syscall(SYS_fdatasync, fd), NULL,
		NULL, 0);
#undef real_ptr
}

CORECAP_EXPORT int sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags)
{
#define real_ptr real_sync_file_range
	IO_WRAP(CORECAP_IO_CALL_FSYNC, fd, real_sync_file_range(fd, off, n, flags),
		syscall(SYS_sync_file_range, fd, off, n, flags), NULL, NULL, 0);
#undef real_ptr
}

CORECAP_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
#define real_ptr real_send
	IO_WRAP(CORECAP_IO_CALL_SEND, fd, real_send(fd, buf, n, flags),
		syscall(SYS_sendto, fd, buf, n, flags, NULL, 0), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
			      const struct sockaddr *addr, socklen_t addrlen)
{
#define real_ptr real_sendto
	IO_WRAP(CORECAP_IO_CALL_SEND, fd, real_sendto(fd, buf, n, flags, addr, addrlen),
		syscall(SYS_sendto, fd, buf, n, flags, addr, addrlen), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
#define real_ptr real_sendmsg
	IO_WRAP(CORECAP_IO_CALL_SEND, fd, real_sendmsg(fd, msg, flags),
		syscall(SYS_sendmsg, fd, msg, flags), NULL, msg ? msg->msg_iov : NULL,
		msg ? msg->msg_iovlen : 0);
#undef real_ptr
}

CORECAP_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
#define real_ptr real_recv
	IO_WRAP(CORECAP_IO_CALL_RECV, fd, real_recv(fd, buf, n, flags),
		syscall(SYS_recvfrom, fd, buf, n, flags, NULL, NULL), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *addr,
				socklen_t *addrlen)
{
#define real_ptr real_recvfrom
	IO_WRAP(CORECAP_IO_CALL_RECV, fd, real_recvfrom(fd, buf, n, flags, addr, addrlen),
		syscall(SYS_recvfrom, fd, buf, n, flags, addr, addrlen), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
#define real_ptr real_recvmsg
	IO_WRAP(CORECAP_IO_CALL_RECV, fd, real_recvmsg(fd, msg, flags),
		syscall(SYS_recvmsg, fd, msg, flags), NULL, msg ? msg->msg_iov : NULL,
		msg ? msg->msg_iovlen : 0);
#undef real_ptr
}

CORECAP_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
#define real_ptr real___recv_chk
	IO_WRAP(CORECAP_IO_CALL_RECV, fd, real___recv_chk(fd, buf, n, buflen, flags),
		syscall(SYS_recvfrom, fd, buf, n, flags, NULL, NULL), buf, NULL, n);
#undef real_ptr
}

CORECAP_EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
				      struct sockaddr *addr, socklen_t *addrlen)
{
#define real_ptr real___recvfrom_chk
	IO_WRAP(CORECAP_IO_CALL_RECV, fd,
		real___recvfrom_chk(fd, buf, n, buflen, flags, addr, addrlen),
		syscall(SYS_recvfrom, fd, buf, n, flags, addr, addrlen), buf, NULL, n);
#undef real_ptr
}
