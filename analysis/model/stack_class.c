#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <string.h>

#include "stack_class.h"

enum {
	T_LOGGING = 1u << 0,
	T_LOCK_LEAF = 1u << 1, /* blocked in a lock's own wait */
	T_FUTEX_LEAF = 1u << 2,
	T_IDLE_LEAF = 1u << 3,
	T_IO_LEAF = 1u << 4,
	T_LOCK_FUNC = 1u << 5, /* pthread_mutex_* / pthread_rwlock_* */
	T_COND_FUNC = 1u << 6, /* pthread_cond_*: a wait for work */
	T_AIO_REAP = 1u << 7,  /* a wait for aio completions: io_getevents and its callers */
	T_SYSCALL_LEAF = 1u << 8,
};

/* glibc's names for where a blocked thread sits, with and without the
 * __libc_/__GI_ prefixes; matched after those prefixes are stripped. */
static const char *const lock_leaves[] = {"lll_lock_wait", "lll_lock_wait_private", NULL};
static const char *const futex_leaves[] = {"futex_abstimed_wait_common",
					   "futex_abstimed_wait_common64", NULL};
static const char *const idle_leaves[] = {"epoll_wait",
					  "epoll_pwait",
					  "epoll_pwait2",
					  "poll",
					  "ppoll",
					  "select",
					  "pselect",
					  "pselect6",
					  "nanosleep",
					  "clock_nanosleep",
					  "clock_nanosleep_2",
					  "pause",
					  "sigwait",
					  "sigtimedwait",
					  "sigwaitinfo",
					  "accept",
					  "accept4",
					  "msgrcv",
					  NULL};
static const char *const io_leaves[] = {
	"read",	  "write",     "readv",		  "writev",    "pread",	   "pread64",
	"pwrite", "pwrite64",  "preadv",	  "preadv2",   "pwritev",  "pwritev2",
	"send",	  "sendto",    "sendmsg",	  "recv",      "recvfrom", "recvmsg",
	"fsync",  "fdatasync", "sync_file_range", "io_submit", NULL};

static const char *bare(const char *name)
{
	static const char *const prefixes[] = {"__libc_", "__GI___", "__GI_", "___", "__", "_"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return name + strlen(prefixes[i]);
	return name;
}

static bool in(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

const char *corecap_stack_cat_name(enum stack_cat c)
{
	static const char *const names[STACK__COUNT] = {"idle", "cpu", "logging", "lock_wait",
							"io"};

	return (unsigned)c < STACK__COUNT ? names[c] : "?";
}

void corecap_stack_class_init(struct stack_class *s, char *const *log_patterns, size_t n_patterns,
			      stack_symbol_fn symbol, void *ctx)
{
	*s = (struct stack_class){
		.log_patterns = log_patterns,
		.n_log_patterns = n_patterns,
		.symbol = symbol,
		.ctx = ctx,
	};
	corecap_u64map_init(&s->leaf_traits);
	corecap_u64map_init(&s->frame_traits);
}

void corecap_stack_class_release(struct stack_class *s)
{
	corecap_u64map_release(&s->leaf_traits);
	corecap_u64map_release(&s->frame_traits);
}

static unsigned name_traits(const struct stack_class *s, const char *name, bool leaf)
{
	unsigned t = 0;
	const char *b;
	char base[64];
	size_t n;

	if (!name)
		return 0;
	for (size_t i = 0; i < s->n_log_patterns; i++)
		if (fnmatch(s->log_patterns[i], name, 0) == 0)
			t |= T_LOGGING;
	if (strstr(name, "pthread_mutex_") || strstr(name, "pthread_rwlock_") ||
	    strstr(name, "mutex_slow"))
		t |= T_LOCK_FUNC;
	if (strstr(name, "pthread_cond_"))
		t |= T_COND_FUNC;
	/* libaio's reaping call (which the symbolizer may not name: Debian's
	 * libaio has no symbol table) and Ceph's KernelDevice reaper over it. */
	if (strncmp(bare(name), "io_getevents", 12) == 0 ||
	    strncmp(bare(name), "io_pgetevents", 13) == 0 ||
	    strstr(name, "aio_queue_t::get_next_completed"))
		t |= T_AIO_REAP;
	if (!leaf)
		return t;
	/* Versioned or suffixed names (write@@GLIBC_2.2.5, write_nocancel). */
	b = bare(name);
	n = strcspn(b, "@(");
	if (n >= sizeof(base))
		return t;
	memcpy(base, b, n);
	base[n] = '\0';
	if (n > 9 && strcmp(base + n - 9, "_nocancel") == 0)
		base[n - 9] = '\0';
	if (in(lock_leaves, base))
		t |= T_LOCK_LEAF;
	else if (in(futex_leaves, base))
		t |= T_FUTEX_LEAF;
	else if (in(idle_leaves, base))
		t |= T_IDLE_LEAF;
	else if (in(io_leaves, base))
		t |= T_IO_LEAF;
	else if (strcmp(base, "syscall") == 0)
		t |= T_SYSCALL_LEAF;
	return t;
}

/* The traits of an address, named once. -ENOMEM or the bits. */
static int traits(struct stack_class *s, uint64_t addr, bool leaf)
{
	struct u64map *m = leaf ? &s->leaf_traits : &s->frame_traits;
	bool inserted;
	uint64_t *v = corecap_u64map_upsert(m, addr, &inserted);

	if (!v)
		return -ENOMEM;
	if (inserted)
		*v = 1 + name_traits(s, s->symbol(s->ctx, addr, leaf), leaf);
	return (int)(*v - 1);
}

int corecap_stack_class_of(struct stack_class *s, const uint64_t *ips, size_t depth)
{
	size_t from;

	return corecap_stack_class_from(s, ips, depth, &from);
}

int corecap_stack_class_from(struct stack_class *s, const uint64_t *ips, size_t depth, size_t *from)
{
	int leaf, t, any = 0, lock_near = 0, reap_near = 0;
	size_t log_at = 0, lock_at = 0, cond_at = 0;

	*from = 0;
	if (!depth)
		return STACK_CPU;
	if ((leaf = traits(s, ips[0], true)) < 0)
		return leaf;
	any = leaf;
	for (size_t i = 1; i < depth; i++) {
		if ((t = traits(s, ips[i], false)) < 0)
			return t;
		any |= t;
		if (t & T_LOGGING)
			log_at = i;
		/* A futex wait is a lock's when a lock function is within a few frames. */
		if (i <= 4 && (t & T_LOCK_FUNC)) {
			lock_near = 1;
			lock_at = i;
		}
		if (i <= 4 && (t & T_COND_FUNC))
			cond_at = i;
		if (i <= 3 && (t & T_AIO_REAP))
			reap_near = 1;
	}
	if (any & T_LOGGING) {
		*from = log_at;
		return STACK_LOGGING;
	}
	if ((leaf & T_LOCK_LEAF) || ((leaf & T_FUTEX_LEAF) && lock_near)) {
		*from = lock_at;
		return STACK_LOCK_WAIT;
	}
	/* A reaper waiting for completions: in io_getevents, or in the raw
	 * syscall that libaio's io_getevents makes (a few frames below a
	 * reaping function: the unnamed libaio frame between them). */
	if ((leaf & T_AIO_REAP) || ((leaf & T_SYSCALL_LEAF) && reap_near))
		return STACK_IDLE;
	if (leaf & (T_FUTEX_LEAF | T_IDLE_LEAF)) {
		*from = cond_at;
		return STACK_IDLE;
	}
	if (leaf & T_IO_LEAF)
		return STACK_IO;
	return STACK_CPU;
}
