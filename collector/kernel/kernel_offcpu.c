/*
 * The off-CPU stack sampler (kernel_offcpu.h): kernel_offcpu.bpf.c's task
 * iterator, attached for one process, and its rounds: each creates an
 * iterator instance and reads its seq_file until EOF.
 */
#include "kernel_offcpu.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef CORECAP_HAVE_BPF

#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel_offcpu_rec.h" /* before the skeleton: its .bss is a struct koff_counts */
#include "kernel_offcpu.skel.h"
#include "util/mono_clock.h"

/* A read's buffer: the iterator's seq_file holds 8 pages, so one read
 * returns at most that. */
#define READ_BYTES (64u * 1024u)
#define LAST_SLOTS 8192u /* threads whose last copy is remembered (a power of two) */
/* The most periods a late round stands for: a second at 100 Hz. */
#define MAX_WEIGHT 100u

struct corecap_kernel_offcpu {
	struct kernel_offcpu *skel;
	struct bpf_link *link;
	unsigned hz;
	uint64_t period_ns, next_ns;
	unsigned char *buf; /* READ_BYTES, plus a record cut at a read's end */
	size_t held;	    /* bytes of buf not yet handed over */
	uint32_t weight;    /* the current round's: periods it stands for */
	/* tid -> the index of its last copy in the kernel source's stack
	 * refs (open addressing, tid 0: empty), for the KOFF_SAME records. */
	struct {
		int32_t tid;
		size_t ref;
	} last[LAST_SLOTS];
	struct corecap_kernel_offcpu_stats st;
};

/* libbpf's first warning, for `why` (its messages are not printed). */
static __thread char first_warning[256];

static int keep_warning(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t n;

	if (level == LIBBPF_DEBUG || first_warning[0])
		return 0;
	vsnprintf(first_warning, sizeof(first_warning), fmt, ap);
	n = strcspn(first_warning, "\n");
	first_warning[n] = '\0';
	if (strncmp(first_warning, "libbpf: ", 8) == 0)
		memmove(first_warning, first_warning + 8, n - 8 + 1);
	return 0;
}

static int fail(struct corecap_kernel_offcpu *o, char *why, size_t why_size, const char *what,
		int err)
{
	snprintf(why, why_size, "%s: %s%s%s%s", what, strerror(err),
		 first_warning[0] ? " (libbpf: " : "", first_warning, first_warning[0] ? ")" : "");
	corecap_kernel_offcpu_close(o);
	return -err;
}

int corecap_kernel_offcpu_open(struct corecap_kernel_offcpu **out, pid_t tgid, unsigned hz,
			       char *why, size_t why_size)
{
	struct corecap_kernel_offcpu *o = calloc(1, sizeof(*o));
	union bpf_iter_link_info linfo;
	LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	libbpf_print_fn_t old;
	int err;

	*out = NULL;
	if (!o || !(o->buf = malloc(2 * READ_BYTES))) {
		free(o);
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	first_warning[0] = '\0';
	old = libbpf_set_print(keep_warning);
	o->hz = hz ? hz : 1;
	o->period_ns = 1000000000ull / o->hz;
	o->skel = kernel_offcpu__open();
	if (!o->skel) {
		err = errno ? errno : EINVAL;
		libbpf_set_print(old);
		return fail(o, why, why_size, "cannot open the task iterator", err);
	}
	if ((err = -kernel_offcpu__load(o->skel))) {
		libbpf_set_print(old);
		return fail(o, why, why_size,
			    err == EPERM || err == EACCES
				    ? "the kernel refused the sleepable task iterator (it needs "
				      "root, or CAP_BPF and CAP_PERFMON)"
				    : "the kernel did not load the sleepable task iterator",
			    err);
	}
	/* The task filter: the threads of tgid only (Linux 6.1). */
	memset(&linfo, 0, sizeof(linfo));
	linfo.task.pid = (__u32)tgid;
	opts.link_info = &linfo;
	opts.link_info_len = sizeof(linfo);
	o->link = bpf_program__attach_iter(o->skel->progs.offcpu_iter, &opts);
	if (!o->link) {
		err = errno ? errno : EINVAL;
		libbpf_set_print(old);
		return fail(o, why, why_size, "cannot attach the task iterator to PID's threads",
			    err);
	}
	libbpf_set_print(old);
	*out = o; /* its first round is due at once (next_ns 0) */
	return 0;
}

uint64_t corecap_kernel_offcpu_due(const struct corecap_kernel_offcpu *o)
{
	return o ? o->next_ns : UINT64_MAX;
}

unsigned corecap_kernel_offcpu_hz(const struct corecap_kernel_offcpu *o)
{
	return o ? o->hz : 0;
}

/* Hands over the whole records at the start of buf; keeps a cut one. */
static int hand_over(struct corecap_kernel_offcpu *o, corecap_kernel_offcpu_fn fn, void *ctx)
{
	size_t at = 0;

	while (o->held - at >= sizeof(struct koff_rec)) {
		struct koff_rec r;

		memcpy(&r, o->buf + at, sizeof(r));
		if (r.magic != KOFF_MAGIC || r.bytes > KOFF_STACK_BYTES ||
		    ((r.flags & (KOFF_SAME | KOFF_VISIT)) && r.bytes))
			return -EPROTO;
		if (o->held - at < sizeof(r) + r.bytes)
			break;
		fn(ctx, r.tid, r.time_ns, r.state, (const uint64_t *)r.regs,
		   (r.flags & (KOFF_SAME | KOFF_VISIT)) ? NULL : o->buf + at + sizeof(r), r.bytes,
		   (r.flags & KOFF_VISIT) ? 0 : o->weight);
		at += sizeof(r) + r.bytes;
	}
	memmove(o->buf, o->buf + at, o->held - at);
	o->held -= at;
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int corecap_kernel_offcpu_round(struct corecap_kernel_offcpu *o, uint64_t now,
				corecap_kernel_offcpu_fn fn, void *ctx)
{
	uint64_t t0 = corecap_now_ns(), c0 = thread_cpu_ns(), dt;
	int fd, ret = 0;

	uint64_t weight = 1;

	/* Due one period after the last was due. A round that comes a whole
	 * period late or more (the collector held up) stands for every period
	 * it missed: each copy is handed over once per period since the last
	 * round, so that a thread off a CPU gets the samples the rate owes it
	 * whatever the collector's delays (its state held since the last
	 * round is the best guess; bounded by MAX_WEIGHT, the rest counted). */
	if (o->next_ns == 0) {
		o->next_ns = now;
	} else if (now >= o->next_ns + o->period_ns) {
		o->st.late++;
		weight += (now - o->next_ns) / o->period_ns;
	}
	o->next_ns += weight * o->period_ns;
	if (weight > MAX_WEIGHT) {
		o->st.dropped_periods += weight - MAX_WEIGHT;
		weight = MAX_WEIGHT;
	}
	o->weight = (uint32_t)weight;
	fd = bpf_iter_create(bpf_link__fd(o->link));
	if (fd < 0)
		return -errno;
	o->held = 0;
	for (;;) {
		ssize_t n = read(fd, o->buf + o->held, READ_BYTES);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		o->held += (size_t)n;
		if ((ret = hand_over(o, fn, ctx)) < 0)
			break;
	}
	close(fd);
	if (ret == 0 && o->held)
		ret = -EPROTO; /* a record cut at EOF */
	dt = corecap_now_ns() - t0;
	o->st.rounds++;
	o->st.round_ns_sum += dt;
	if (dt > o->st.round_ns_max)
		o->st.round_ns_max = dt;
	o->st.cpu_ns += thread_cpu_ns() - c0;
	return ret;
}

void corecap_kernel_offcpu_stats(const struct corecap_kernel_offcpu *o,
				 struct corecap_kernel_offcpu_stats *s)
{
	const struct koff_counts *c;

	memset(s, 0, sizeof(*s));
	if (!o)
		return;
	*s = o->st;
	c = &o->skel->bss->counts;
	s->threads = c->threads;
	s->on_cpu = c->on_cpu;
	s->written = c->written;
	s->runnable = c->runnable;
	s->failed = c->failed;
	s->moved = c->moved;
	s->displaced = c->displaced;
	s->same = c->same;
}

size_t *corecap_kernel_offcpu_last(struct corecap_kernel_offcpu *o, int32_t tid, bool add)
{
	uint32_t h = ((uint32_t)tid * 2654435761u) & (LAST_SLOTS - 1);

	for (uint32_t i = 0; i < LAST_SLOTS; i++, h = (h + 1) & (LAST_SLOTS - 1)) {
		if (o->last[h].tid == tid)
			return &o->last[h].ref;
		if (o->last[h].tid == 0) {
			if (!add)
				return NULL;
			o->last[h].tid = tid;
			return &o->last[h].ref;
		}
	}
	return NULL;
}

void corecap_kernel_offcpu_close(struct corecap_kernel_offcpu *o)
{
	if (!o)
		return;
	bpf_link__destroy(o->link);
	kernel_offcpu__destroy(o->skel);
	free(o->buf);
	free(o);
}

#else /* !CORECAP_HAVE_BPF */

struct corecap_kernel_offcpu {
	int unused;
};

int corecap_kernel_offcpu_open(struct corecap_kernel_offcpu **out, pid_t tgid, unsigned hz,
			       char *why, size_t why_size)
{
	(void)tgid;
	(void)hz;
	*out = NULL;
	snprintf(why, why_size,
		 "this corecap was built without eBPF (it needs clang, bpftool "
		 "and libbpf-dev at build time)");
	return -ENOTSUP;
}

uint64_t corecap_kernel_offcpu_due(const struct corecap_kernel_offcpu *o)
{
	(void)o;
	return UINT64_MAX;
}

int corecap_kernel_offcpu_round(struct corecap_kernel_offcpu *o, uint64_t now,
				corecap_kernel_offcpu_fn fn, void *ctx)
{
	(void)o;
	(void)now;
	(void)fn;
	(void)ctx;
	return -ENOTSUP;
}

void corecap_kernel_offcpu_stats(const struct corecap_kernel_offcpu *o,
				 struct corecap_kernel_offcpu_stats *s)
{
	(void)o;
	memset(s, 0, sizeof(*s));
}

unsigned corecap_kernel_offcpu_hz(const struct corecap_kernel_offcpu *o)
{
	(void)o;
	return 0;
}

size_t *corecap_kernel_offcpu_last(struct corecap_kernel_offcpu *o, int32_t tid, bool add)
{
	(void)o;
	(void)tid;
	(void)add;
	return NULL;
}

void corecap_kernel_offcpu_close(struct corecap_kernel_offcpu *o)
{
	(void)o;
}

#endif
