#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sys/auxv.h>

#include "dump.h"
#include "elf_sym.h"
#include "real.h"
#include "tstate.h"
#include "util.h"
#include "warn.h"

/* Buffered output through raw write(2): no stdio, no allocation. */
struct out {
	int fd;
	size_t len;
	int err;
	char buf[4096];
	struct elf_sym syms; /* module mappings, for this one dump */
};

static void out_flush(struct out *o)
{
	if (o->len && !o->err)
		o->err = write_all(o->fd, o->buf, o->len);
	o->len = 0;
}

static void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len > sizeof(o->buf) - 512)
		out_flush(o);
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n < sizeof(o->buf) - o->len ? (size_t)n
							      : sizeof(o->buf) - o->len - 1;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Whether the module loaded at fbase is the main program (its name is argv[0]). */
static bool is_main_program(const void *fbase)
{
	Dl_info info;
	unsigned long entry = getauxval(AT_ENTRY);

	return entry && dladdr((void *)entry, &info) && info.dli_fbase == fbase;
}

/*
 * "symbol+0xOFF (module)" or "module+0xOFF", the forms CORECAP_DELAY
 * accepts back. A dynamic symbol from dladdr comes first; else, in the
 * main program, its .symtab names static functions (read through
 * /proc/self/exe, as argv[0] may be relative or gone); else the bare
 * module offset. Only the main program's file is mapped: the kernel
 * refuses to open a running executable for writing (ETXTBSY), so it
 * cannot be truncated under the mapping and fault the daemon (SIGBUS),
 * while a shared library's file can. The lookup uses addr - 1: a return address right
 * after a call that ends its function belongs to the function of the call.
 */
static void symbolize(struct out *o, char *dst, size_t cap, uint64_t addr)
{
	Dl_info info;

	if (addr && dladdr((void *)(uintptr_t)(addr - 1), &info) && info.dli_fname) {
		const char *mod = base_name(info.dli_fname);
		const char *sname;
		uint64_t soff;

		if (!mod[0])
			mod = "?";
		if (info.dli_sname && info.dli_saddr) {
			snprintf(dst, cap, "%s+0x%llx (%s)", info.dli_sname,
				 (unsigned long long)(addr - (uint64_t)(uintptr_t)info.dli_saddr),
				 mod);
			return;
		}
		if (is_main_program(info.dli_fbase) &&
		    elf_sym_lookup(&o->syms, "/proc/self/exe", addr - 1,
				   (uint64_t)(uintptr_t)info.dli_fbase, &sname, &soff)) {
			snprintf(dst, cap, "%s+0x%llx (%s)", sname, (unsigned long long)(soff + 1),
				 mod);
			return;
		}
		snprintf(dst, cap, "%s+0x%llx", mod,
			 (unsigned long long)(addr - (uint64_t)(uintptr_t)info.dli_fbase));
		return;
	}
	snprintf(dst, cap, "0x%llx", (unsigned long long)addr);
}

static const char *kind_name(uint32_t kind)
{
	static const char *const names[] = {"mutex", "rwlock_rd", "rwlock_wr", "spin", "cond"};

	return kind < CORECAP_KIND_COUNT ? names[kind] : "?";
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

/*
 * Indices of the `top` largest values of key() among n items, largest
 * first; selection by repeated scan, fine for a few thousand entries and
 * free of allocation.
 */
typedef uint64_t (*key_fn)(struct stats_shm *s, uint32_t i);

static uint32_t select_top(struct stats_shm *s, uint32_t n, key_fn key, uint32_t top, uint32_t *out)
{
	uint64_t prev_key = UINT64_MAX;
	uint32_t prev_idx = 0, count = 0;

	while (count < top) {
		uint64_t best_key = 0;
		int64_t best = -1;

		for (uint32_t i = 0; i < n; i++) {
			uint64_t k = key(s, i);

			/* Strictly after the previous pick in (key desc, index asc). */
			if (k == 0 || k > prev_key || (k == prev_key && i <= prev_idx))
				continue;
			if (best < 0 || k > best_key) {
				best = i;
				best_key = k;
			}
		}
		if (best < 0)
			break;
		out[count++] = (uint32_t)best;
		prev_key = best_key;
		prev_idx = (uint32_t)best;
	}
	return count;
}

static uint64_t lock_site_key(struct stats_shm *s, uint32_t i)
{
	struct corecap_stats_site *e = stats_shm_site(s, i);

	if (!e->addr || e->kind == CORECAP_KIND_COND)
		return 0;
	/* Wait first; sites never contended rank by hold time, below. */
	return e->wait_ns ? e->wait_ns + (UINT64_C(1) << 62) : e->hold_ns;
}

static uint64_t cond_site_key(struct stats_shm *s, uint32_t i)
{
	struct corecap_stats_site *e = stats_shm_site(s, i);

	return e->addr && e->kind == CORECAP_KIND_COND ? e->wait_ns + 1 : 0;
}

static uint64_t lock_key(struct stats_shm *s, uint32_t i)
{
	struct corecap_stats_lock *e = stats_shm_lock_entry(s, i);

	return e->addr ? e->hold_ns + e->shared_hold_ns + 1 : 0;
}

static uint64_t thread_key(struct stats_shm *s, uint32_t i)
{
	struct corecap_stats_thread *t = stats_shm_thread(s, i);
	uint64_t k = 1;

	if (t->state == CORECAP_THREAD_FREE)
		return 0;
	k += t->c.lock_wait_ns + t->c.cond_wait_ns;
	for (int c = 0; c < CORECAP_IO_CLASSES; c++)
		k += t->c.io_ns[c];
	return k;
}

static void write_sites(struct out *o, struct stats_shm *s, uint32_t top, uint32_t *idx)
{
	uint32_t n = select_top(s, CORECAP_STATS_MAX_SITES, lock_site_key, top, idx);
	char where[320];

	out_printf(o, "corecap: lock sites by total wait (top %u)\n", top);
	out_printf(o, "%4s %-9s %12s %10s %12s %10s %10s %12s  %s\n", "#", "kind", "acquired",
		   "contended", "wait_ms", "avg_us", "max_us", "hold_ms", "site");
	for (uint32_t r = 0; r < n; r++) {
		struct corecap_stats_site *e = stats_shm_site(s, idx[r]);

		symbolize(o, where, sizeof(where), e->addr);
		out_printf(o, "%4u %-9s %12llu %10llu %12.3f %10.1f %10.1f %12.3f  %s\n", r + 1,
			   kind_name(e->kind), (unsigned long long)e->acquisitions,
			   (unsigned long long)e->contentions, ms(e->wait_ns),
			   e->contentions ? us(e->wait_ns / e->contentions) : 0.0,
			   us(e->max_wait_ns), ms(e->hold_ns), where);
	}
}

static void write_conds(struct out *o, struct stats_shm *s, uint32_t top, uint32_t *idx)
{
	uint32_t n = select_top(s, CORECAP_STATS_MAX_SITES, cond_site_key, top, idx);
	char where[320];

	if (!n)
		return;
	out_printf(o, "corecap: condition wait sites by total wait (top %u)\n", top);
	out_printf(o, "%4s %12s %10s %12s %10s %10s  %s\n", "#", "waits", "timeouts", "wait_ms",
		   "avg_us", "max_us", "site");
	for (uint32_t r = 0; r < n; r++) {
		struct corecap_stats_site *e = stats_shm_site(s, idx[r]);

		symbolize(o, where, sizeof(where), e->addr);
		out_printf(o, "%4u %12llu %10llu %12.3f %10.1f %10.1f  %s\n", r + 1,
			   (unsigned long long)e->contentions, (unsigned long long)e->timeouts,
			   ms(e->wait_ns), e->contentions ? us(e->wait_ns / e->contentions) : 0.0,
			   us(e->max_wait_ns), where);
	}
}

static void write_locks(struct out *o, struct stats_shm *s, uint32_t top, uint32_t *idx,
			uint64_t now)
{
	uint32_t n = select_top(s, CORECAP_STATS_MAX_LOCKS, lock_key, top, idx);
	char where[320];

	if (!n)
		return;
	out_printf(o, "corecap: hot locks by hold time (top %u; util = hold / time since hot)\n",
		   top);
	out_printf(o, "%4s %-18s %-9s %12s %10s %12s %12s %7s  %s\n", "#", "lock", "kind",
		   "acquired", "contended", "wait_ms", "hold_ms", "util%", "first contended at");
	for (uint32_t r = 0; r < n; r++) {
		struct corecap_stats_lock *e = stats_shm_lock_entry(s, idx[r]);
		uint64_t span = now > e->hot_since_ns ? now - e->hot_since_ns : 1;

		symbolize(o, where, sizeof(where), e->first_site);
		out_printf(o, "%4u 0x%016llx %-9s %12llu %10llu %12.3f %12.3f %7.1f  %s\n", r + 1,
			   (unsigned long long)e->addr,
			   e->kind == CORECAP_KIND_RWLOCK_WR ? "rwlock" : kind_name(e->kind),
			   (unsigned long long)e->acquisitions, (unsigned long long)e->contentions,
			   ms(e->wait_ns), ms(e->hold_ns),
			   100.0 * (double)e->hold_ns / (double)span, where);
	}
}

static void write_threads(struct out *o, struct stats_shm *s, uint32_t top, uint32_t *idx)
{
	uint32_t n = select_top(s, CORECAP_STATS_MAX_THREADS, thread_key, top, idx);
	bool exited = false;

	out_printf(o, "corecap: threads by time waiting or in I/O (top %u)\n", top);
	out_printf(o, "%8s %-16s %12s %10s %12s %12s %10s %10s %10s %10s %10s\n", "tid", "name",
		   "acquired", "contended", "lockwait_ms", "condwait_ms", "log_ms", "data_ms",
		   "net_ms", "journal_ms", "other_ms");
	for (uint32_t r = 0; r < n; r++) {
		struct corecap_stats_thread *t = stats_shm_thread(s, idx[r]);
		char name[CORECAP_STATS_NAME_LEN + 2];

		snprintf(name, sizeof(name), "%.*s%s", CORECAP_STATS_NAME_LEN - 1, t->name,
			 t->state == CORECAP_THREAD_EXITED ? "*" : "");
		exited |= t->state == CORECAP_THREAD_EXITED;
		out_printf(o,
			   "%8d %-16s %12llu %10llu %12.3f %12.3f %10.3f %10.3f %10.3f %10.3f "
			   "%10.3f\n",
			   t->tid, name, (unsigned long long)t->c.acquisitions,
			   (unsigned long long)t->c.contentions, ms(t->c.lock_wait_ns),
			   ms(t->c.cond_wait_ns), ms(t->c.io_ns[CORECAP_IO_LOG]),
			   ms(t->c.io_ns[CORECAP_IO_DATA]), ms(t->c.io_ns[CORECAP_IO_NET]),
			   ms(t->c.io_ns[CORECAP_IO_JOURNAL]), ms(t->c.io_ns[CORECAP_IO_OTHER]));
	}
	if (exited)
		out_printf(o, "corecap: name* = the thread has exited (its counters are final)\n");
}

int dump_write(struct stats_shm *s, int fd, uint32_t top, const char *why)
{
	static struct out o; /* 4 KiB: kept off the dump thread's stack */
	static uint32_t idx[1000];
	struct corecap_stats_header *h = s->hdr;
	struct corecap_stats_counters tot;
	uint64_t now = now_ns();

	if (!h)
		return -ENODATA;
	if (top > sizeof(idx) / sizeof(idx[0]))
		top = sizeof(idx) / sizeof(idx[0]);
	o.fd = fd;
	o.len = 0;
	o.err = 0;
	elf_sym_init(&o.syms);
	out_printf(&o, "corecap: summary of pid %d (%s) at %s, %.3f s after start%s\n", h->pid,
		   base_name(h->exe), why, (double)(now - h->created_ns) / 1e9,
		   h->flags & CORECAP_STATS_F_SHARED ? "" : " (no live counters file)");
	out_printf(&o, "corecap: sites read function+0xOFF (module), named from the module's "
		       "dynamic symbols or its .symtab; a site left as module+0xOFF lies in a "
		       "module without a .symtab (stripped, or unreadable) or outside every "
		       "function symbol, or is a shared library's static function (corecap "
		       "stat and report name those)\n");
	write_sites(&o, s, top, idx);
	write_conds(&o, s, top, idx);
	write_locks(&o, s, top, idx, now);
	write_threads(&o, s, top, idx);
	corecap_stats_totals(h, &tot);
	out_printf(&o,
		   "corecap: totals: %llu acquisitions, %llu contended (%.3f ms waiting), "
		   "%llu cond waits (%.3f ms), I/O ms log %.3f data %.3f net %.3f journal %.3f "
		   "other %.3f\n",
		   (unsigned long long)tot.acquisitions, (unsigned long long)tot.contentions,
		   ms(tot.lock_wait_ns), (unsigned long long)tot.cond_waits, ms(tot.cond_wait_ns),
		   ms(tot.io_ns[CORECAP_IO_LOG]), ms(tot.io_ns[CORECAP_IO_DATA]),
		   ms(tot.io_ns[CORECAP_IO_NET]), ms(tot.io_ns[CORECAP_IO_JOURNAL]),
		   ms(tot.io_ns[CORECAP_IO_OTHER]));
	if (tot.aio_done[CORECAP_IO_DATA] || tot.aio_done[CORECAP_IO_JOURNAL] ||
	    tot.aio_done[CORECAP_IO_OTHER] || h->aio_untracked)
		out_printf(&o,
			   "corecap: async I/O: data %llu done (%.3f ms submit to completion), "
			   "journal %llu (%.3f ms), other %llu (%.3f ms); %llu not timed\n",
			   (unsigned long long)tot.aio_done[CORECAP_IO_DATA],
			   ms(tot.aio_ns[CORECAP_IO_DATA]),
			   (unsigned long long)tot.aio_done[CORECAP_IO_JOURNAL],
			   ms(tot.aio_ns[CORECAP_IO_JOURNAL]),
			   (unsigned long long)tot.aio_done[CORECAP_IO_OTHER],
			   ms(tot.aio_ns[CORECAP_IO_OTHER]),
			   (unsigned long long)(h->aio_untracked + h->aio_unmatched));
	if (h->sites_dropped || h->locks_dropped || h->threads_dropped || h->holds_dropped)
		out_printf(&o,
			   "corecap: not recorded: %llu waits (site table full), %llu locks "
			   "(lock table full), %llu threads (thread table full), %llu holds "
			   "(hold stack full)\n",
			   (unsigned long long)h->sites_dropped,
			   (unsigned long long)h->locks_dropped,
			   (unsigned long long)h->threads_dropped,
			   (unsigned long long)h->holds_dropped);
	out_flush(&o);
	elf_sym_release(&o.syms);
	return o.err;
}

/*
 * Opens the CORECAP_DUMP file for appending, or says why not (one line)
 * and returns -errno. The name may lie in a shared directory such as /tmp
 * and the daemon may run as root: a symlink planted there is never
 * followed (O_NOFOLLOW), a FIFO or device never blocks the open
 * (O_NONBLOCK) nor an exit, and only a regular file of the daemon's own
 * effective uid is written to.
 */
static int open_dump_file(const char *path)
{
	struct stat st;
	int fd, ret;

	fd = (int)syscall(SYS_openat, AT_FDCWD, path,
			  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
			  0600);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP)
			warn_line("cannot open dump file '%s': a symbolic link, not followed; no "
				  "dump",
				  path);
		else if (ret == -ENXIO)
			warn_line("cannot open dump file '%s': not a regular file; no dump", path);
		else
			warn_line("cannot open dump file '%s': %s; no dump", path, strerror(errno));
		return ret;
	}
	if (syscall(SYS_fstat, fd, &st) < 0) {
		ret = -errno;
		warn_line("cannot open dump file '%s': %s; no dump", path, strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		warn_line("cannot open dump file '%s': not a regular file; no dump", path);
		goto out_close;
	}
	if (st.st_uid != geteuid()) {
		ret = -EPERM;
		warn_line("cannot open dump file '%s': it belongs to uid %u, not to this process's "
			  "uid %u; no dump",
			  path, (unsigned)st.st_uid, (unsigned)geteuid());
		goto out_close;
	}
	/* Blocking again: a full disk's short write must not drop the summary's end. */
	syscall(SYS_fcntl, fd, F_SETFL, O_APPEND);
	return fd;

out_close:
	syscall(SYS_close, fd);
	return ret;
}

/* Only one dump at a time (exit and signal may race). */
static int dump_busy;

int dump_now(const char *why)
{
	char path[SETTINGS_PATH_LEN + 32];
	const char *p = g_settings.dump_path;
	size_t len = 0;
	int fd = 2, ret;

	if (!p[0] || !stats_shm_ready(&g_stats))
		return 0;
	if (__atomic_exchange_n(&dump_busy, 1, __ATOMIC_ACQUIRE))
		return -EBUSY;
	if (strcmp(p, "-") != 0) {
		/* Expand %p to the pid (a fork child writes its own file). */
		for (; *p && len < sizeof(path) - 16; p++) {
			if (p[0] == '%' && p[1] == 'p') {
				len += (size_t)snprintf(path + len, sizeof(path) - len, "%d",
							(int)getpid());
				p++;
			} else {
				path[len++] = *p;
			}
		}
		path[len] = '\0';
		fd = open_dump_file(path);
		if (fd < 0) {
			ret = fd;
			goto out;
		}
	}
	ret = dump_write(&g_stats, fd, g_settings.dump_top, why);
	if (fd != 2)
		syscall(SYS_close, fd);
out:
	__atomic_store_n(&dump_busy, 0, __ATOMIC_RELEASE);
	return ret;
}

static sem_t dump_sem;
static int dump_sig;

static void on_dump_signal(int sig)
{
	int saved_errno = errno;

	(void)sig;
	sem_post(&dump_sem); /* async-signal-safe */
	errno = saved_errno;
}

static void *dump_thread(void *unused)
{
	struct tstate *ts = &corecap_tstate;
	sigset_t all;

	(void)unused;
	ts->flags |= TS_TRACER;
	ts->guard = 1;
	/* Never take the daemon's signals, ours included: the handler may
	 * run in any other thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		if (sem_wait(&dump_sem) < 0)
			continue; /* EINTR */
		dump_now("signal");
	}
	return NULL;
}

static int start_thread(void)
{
	pthread_t t;
	pthread_attr_t attr;
	int ret;

	if (!real_pthread_create)
		return -ENOSYS;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	ret = -real_pthread_create(&t, &attr, dump_thread, NULL);
	pthread_attr_destroy(&attr);
	/* The real one: the shim's wrapper (wrap_thread.c) would pass it
	 * straight through anyway (guard is up in both callers), and dump.c
	 * stays below the wrappers, which reach it through shim.c. */
	if (ret == 0 && real_pthread_setname_np)
		real_pthread_setname_np(t, "corecap-dump");
	return ret;
}

int dump_signal_start(const struct settings *st)
{
	struct sigaction sa;
	int ret;

	if (sem_init(&dump_sem, 0, 0) < 0)
		return -errno;
	ret = start_thread();
	if (ret < 0) {
		warn_line("cannot start the dump thread: %s; CORECAP_DUMP_SIGNAL ignored",
			  strerror(-ret));
		return ret;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_dump_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(st->dump_signal, &sa, NULL) < 0) {
		ret = -errno;
		warn_line("cannot handle signal %d: %s; CORECAP_DUMP_SIGNAL ignored",
			  st->dump_signal, strerror(errno));
		return ret;
	}
	dump_sig = st->dump_signal;
	return 0;
}

void dump_after_fork_child(void)
{
	/* The thread did not survive the fork; the handler did. */
	__atomic_store_n(&dump_busy, 0, __ATOMIC_RELAXED);
	if (dump_sig && sem_init(&dump_sem, 0, 0) == 0)
		start_thread();
}
