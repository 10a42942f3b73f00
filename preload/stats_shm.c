#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <corecap/stats_path.h>

#include "stats_shm.h"
#include "util.h"
#include "warn.h"

struct stats_shm g_stats;

/*
 * The counters live in a sealed memfd (corecap/stats_path.h says why and
 * how readers reach it). Raw syscalls: they must not go through the
 * shim's wrappers (which would classify or count them) nor through
 * anything that allocates.
 */
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

static int sys_memfd(const char *name)
{
	long fd =
		syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);

	/* Kernels before 6.3 know no MFD_NOEXEC_SEAL. */
	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	return fd < 0 ? -errno : (int)fd;
}

static int map_memfd(struct stats_shm *s, void **out)
{
	struct stat sb;
	char name[32];
	long moved;
	void *p;
	int fd, ret;

	snprintf(name, sizeof(name), CORECAP_STATS_MEMFD_FMT, (int)getpid());
	fd = sys_memfd(name);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	/* Never 0-2: a daemon started with stdin closed reopens it, expecting 0. */
	if (fd < 3) {
		moved = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
		if (moved < 0) {
			ret = -errno;
			goto out_close;
		}
		syscall(SYS_close, fd);
		fd = (int)moved;
	}
	/*
	 * Sized once, then sealed: nobody (not the daemon's user, not root)
	 * can shrink it, so no access through a mapping can fault.
	 */
	if (syscall(SYS_fchmod, fd, 0600) < 0 || syscall(SYS_ftruncate, fd, s->bytes) < 0 ||
	    syscall(SYS_fcntl, fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		ret = -errno;
		goto out_close;
	}
	p = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto out_close;
	}
	if (syscall(SYS_fstat, fd, &sb) < 0) {
		ret = -errno;
		munmap(p, s->bytes);
		goto out_close;
	}
	*out = p;
	s->fd = fd;
	s->dev = sb.st_dev;
	s->ino = sb.st_ino;
	s->shared = true;
	ret = 0;
	goto out;
out_close:
	syscall(SYS_close, fd);
out:
	return ret;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fill_header(struct corecap_stats_header *h, const struct stats_shm *s,
			const struct settings *st, bool fork_child)
{
	long n;

	h->version = CORECAP_STATS_VERSION;
	h->header_bytes = CORECAP_STATS_HEADER_BYTES;
	h->file_bytes = s->bytes;
	h->seq = 0;
	h->sites_offset = CORECAP_STATS_SITES_OFFSET;
	h->threads_offset = CORECAP_STATS_THREADS_OFFSET;
	h->locks_offset = CORECAP_STATS_LOCKS_OFFSET;
	h->site_bytes = sizeof(struct corecap_stats_site);
	h->thread_bytes = sizeof(struct corecap_stats_thread);
	h->lock_bytes = sizeof(struct corecap_stats_lock);
	h->max_sites = CORECAP_STATS_MAX_SITES;
	h->max_threads = CORECAP_STATS_MAX_THREADS;
	h->max_locks = CORECAP_STATS_MAX_LOCKS;
	h->hist_buckets = CORECAP_STATS_HIST_BUCKETS;
	h->stack_depth = CORECAP_STATS_STACK_DEPTH;
	h->name_len = CORECAP_STATS_NAME_LEN;
	h->io_classes = CORECAP_IO_CLASSES;
	h->pid = (int32_t)getpid();
	h->ppid = (int32_t)getppid();
	h->clock_id = CLOCK_MONOTONIC;
	h->flags =
		(s->shared ? CORECAP_STATS_F_SHARED : 0) | (fork_child ? CORECAP_STATS_F_CHILD : 0);
	h->created_ns = clock_ns(CLOCK_MONOTONIC);
	h->created_realtime_ns = clock_ns(CLOCK_REALTIME);
	h->stack_sample_every = st->stack_sample_every;
	h->hold_sample_every = st->hold_sample_every;
	h->hold_time_every = st->hold_time_every;
	h->control_offset = CORECAP_STATS_CONTROL_OFFSET;
	h->control_bytes = sizeof(struct corecap_stats_control);
	h->control_version = CORECAP_STATS_CONTROL_VERSION;
	n = syscall(SYS_readlink, "/proc/self/exe", h->exe, sizeof(h->exe) - 1);
	h->exe[n > 0 ? n : 0] = '\0';
	/* Readers check the magic first: publish it last. */
	__atomic_store_n(&h->magic, CORECAP_STATS_MAGIC, __ATOMIC_RELEASE);
}

int stats_shm_create(struct stats_shm *s, const struct settings *st, bool fork_child)
{
	void *h = NULL;
	int ret = -ENOENT;

	s->bytes = CORECAP_STATS_FILE_BYTES;
	s->shared = false;
	s->lock = 0;
	s->lock_owner = 0;
	s->next_free_thread = 0;
	s->reuse_cursor = 0;
	s->fd = -1;
	snprintf(s->name, sizeof(s->name), CORECAP_STATS_MEMFD_FMT, (int)getpid());
	/* The directory of older shims' files: now nothing is kept in one. */
	if (!fork_child && st->stats_enabled &&
	    strcmp(st->stats_dir, CORECAP_STATS_DIR_DEFAULT) != 0)
		warn_line("ignoring CORECAP_STATS_DIR='%s': the counters are kept in memory "
			  "shared with corecap (memfd '%s'), no longer in a file",
			  st->stats_dir, s->name);
	if (st->stats_enabled) {
		ret = map_memfd(s, &h);
		if (ret < 0)
			warn_line(
				"cannot create the counters' memfd '%s': %s; running without live "
				"counters",
				s->name, strerror(-ret));
	}
	if (!s->shared) {
		void *p = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED) {
			warn_line("cannot map %zu bytes for counters: %s; counting nothing",
				  s->bytes, strerror(errno));
			goto out;
		}
		h = p;
	}
	/* Not ready (stats_shm_ready) until the header is complete. */
	fill_header(h, s, st, fork_child);
	__atomic_store_n(&s->hdr, h, __ATOMIC_RELEASE);
out:
	return ret;
}

void stats_shm_forget_parent(struct stats_shm *s)
{
	if (s->hdr)
		munmap(s->hdr, s->bytes);
	/*
	 * The parent's descriptor, inherited: the child's readers must find
	 * only its own. Closed only if it is still the memfd: the daemon may
	 * have closed it and put a file of its own at that number.
	 */
	if (s->shared && s->fd >= 0) {
		struct stat sb;

		if (syscall(SYS_fstat, s->fd, &sb) == 0 && sb.st_dev == s->dev &&
		    sb.st_ino == s->ino)
			syscall(SYS_close, s->fd);
	}
	s->fd = -1;
	s->hdr = NULL;
	s->shared = false;
	s->lock = 0;
	s->lock_owner = 0;
}

void stats_shm_mark_exiting(struct stats_shm *s)
{
	/* Nothing to remove: the memfd goes with the process's last reference. */
	if (s->shared)
		__atomic_fetch_or(&s->hdr->flags, CORECAP_STATS_F_EXITING, __ATOMIC_RELEASE);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

bool stats_shm_lock(struct stats_shm *s)
{
	unsigned long self = (unsigned long)pthread_self();
	unsigned spins = 0;

	while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&s->lock_owner, __ATOMIC_RELAXED) == self)
			return false;
		/* Held for a few hundred ns at most; yield if it is longer
		 * (its holder may have been preempted on this 2-core box). */
		if (++spins > 100)
			syscall(SYS_sched_yield);
		else
			cpu_relax();
	}
	__atomic_store_n(&s->lock_owner, self, __ATOMIC_RELAXED);
	return true;
}

void stats_shm_unlock(struct stats_shm *s)
{
	__atomic_store_n(&s->lock_owner, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
}

void stats_shm_seq_begin(struct stats_shm *s)
{
	__atomic_fetch_add(&s->hdr->seq, 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void stats_shm_seq_end(struct stats_shm *s)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_fetch_add(&s->hdr->seq, 1, __ATOMIC_RELEASE);
}
