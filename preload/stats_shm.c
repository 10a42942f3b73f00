#include <dirent.h>
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
 * Raw syscalls for the shim's own files: they must not go through the
 * shim's open/close wrappers (which would classify or count them) nor
 * through anything that allocates.
 */
static int sys_open_new(const char *path)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path,
			  O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	return fd < 0 ? -errno : (int)fd;
}

static int map_file(struct stats_shm *s, void **out)
{
	void *p;
	int fd, ret;

	fd = sys_open_new(s->path);
	if (fd == -EEXIST) {
		/* A stale file of a process that had our pid and died. */
		syscall(SYS_unlink, s->path);
		fd = sys_open_new(s->path);
	}
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	if (syscall(SYS_fchmod, fd, 0600) < 0 || syscall(SYS_ftruncate, fd, s->bytes) < 0) {
		ret = -errno;
		goto out_unlink;
	}
	p = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto out_unlink;
	}
	*out = p;
	s->shared = true;
	ret = 0;
	goto out_close;
out_unlink:
	syscall(SYS_unlink, s->path);
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
	snprintf(s->path, sizeof(s->path), CORECAP_STATS_FILE_FMT, st->stats_dir, (int)getpid());
	if (st->stats_enabled) {
		ret = map_file(s, &h);
		if (ret < 0)
			warn_line(
				"cannot create stats file '%s': %s; running without live counters",
				s->path, strerror(-ret));
	}
	if (!s->shared) {
		void *p = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		s->path[0] = '\0';
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
	s->hdr = NULL;
	s->shared = false;
	s->path[0] = '\0';
	s->lock = 0;
	s->lock_owner = 0;
}

void stats_shm_unlink(struct stats_shm *s)
{
	if (s->shared && s->path[0]) {
		__atomic_fetch_or(&s->hdr->flags, CORECAP_STATS_F_EXITING, __ATOMIC_RELEASE);
		syscall(SYS_unlink, s->path);
		s->path[0] = '\0';
	}
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

int stats_shm_remove_stale(const char *dir)
{
	char buf[4096], path[SETTINGS_PATH_LEN + 32];
	int fd, removed = 0;
	long n;

	fd = (int)syscall(SYS_openat, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(void *)(buf + off);
			char *end;
			long pid;

			off += d->d_reclen;
			if (strncmp(d->d_name, "corecap.", 8) != 0)
				continue;
			pid = strtol(d->d_name + 8, &end, 10);
			if (*end || pid <= 0 || syscall(SYS_kill, pid, 0) == 0 || errno != ESRCH)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			if (syscall(SYS_unlink, path) == 0)
				removed++;
		}
	}
	syscall(SYS_close, fd);
	return removed;
}
