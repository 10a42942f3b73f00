/* The kernel source's user-stack copies (kernel_stacks.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <corecap/kernel_format.h>
#include <corecap/diag.h>
#include <corecap/run_format.h>
#include "kernel_events.h"
#include "kernel_stacks.h"
#include "kernel_state.h"
#include "kernel_unwind.h"
#include "kernel_writer.h"
#include "util/run_dir.h"

/* Raw stack copy header in stacks.raw (internal: never left in a finished run). */
struct raw_stack {
	uint64_t time_ns;
	int32_t tid;
	uint32_t cpu;
	uint64_t regs[CORECAP_KUNWIND_NREGS];
	uint64_t size; /* bytes of stack that follow */
	uint64_t dyn_size;
};

/* The rate bounds of stack copies, all CPUs together (kernel_events.h). */
static const unsigned stack_bound_hz[STACK_KINDS] = {CORECAP_KERNEL_FUTEX_STACK_HZ,
						     CORECAP_KERNEL_SWITCH_STACK_HZ};

uint64_t kernel_online_cpus(const struct corecap_kernel_events *k)
{
	uint64_t online = 0;

	for (int c = 0; c < k->nr_cpus; c++)
		online += k->cpus[c].online;
	return online;
}

/* A burst's bound: stacks of a kind per CPU in one 50 ms interval. */
uint64_t kernel_burst_limit(const struct corecap_kernel_events *k, int kind)
{
	uint64_t online = kernel_online_cpus(k), limit = 4 * stack_bound_hz[kind] * ADJUST_NS /
							 1000000000ull / (online ? online : 1);

	return limit < 8 ? 8 : limit;
}

/*
 * The next stack period: `events` hits over interval_ns, of which the
 * bound's 1/`share` may have a stack, rounded up; down at most 4-fold
 * from `old` (a burst after a quiet spell must not find period 1).
 */
uint64_t kernel_next_period(uint64_t events, uint64_t interval_ns, uint64_t share, int kind,
			    uint64_t old)
{
	uint64_t num = events * 1000000000ull * share, den = interval_ns * stack_bound_hz[kind];
	uint64_t p = (num + den - 1) / den;

	if (p < old / 4)
		p = old / 4;
	if (p < 1)
		p = 1;
	return p > (1ull << 24) ? 1ull << 24 : p;
}

/*
 * A user-stack copy into stacks.raw, to unwind after the window: dyn_size
 * bytes of stack (of stack_size copied) with regs, of the hit at time_ns;
 * its ref is the last of k->stacks. False when it was not kept.
 */
bool kernel_store_stack(struct corecap_kernel_events *k, int kind, int32_t tid, uint32_t cpu,
			uint64_t time_ns, const uint64_t regs[CORECAP_KUNWIND_NREGS],
			const unsigned char *stack, uint64_t stack_size, uint64_t dyn_size)
{
	struct raw_stack rs = {.time_ns = time_ns, .tid = tid, .cpu = cpu};
	struct kernel_stack_ref *ref;

	if (!regs || !stack || dyn_size == 0 || k->raw_fd < 0)
		return false;
	if (k->n_stacks == k->cap_stacks) {
		size_t cap = k->cap_stacks ? 2 * k->cap_stacks : 1024;
		struct kernel_stack_ref *p = realloc(k->stacks, cap * sizeof(*p));

		if (!p)
			return false;
		k->stacks = p;
		k->cap_stacks = cap;
	}
	memcpy(rs.regs, regs, sizeof(rs.regs));
	rs.size = (dyn_size + 7) & ~(uint64_t)7;
	if (rs.size > stack_size)
		rs.size = stack_size;
	rs.dyn_size = dyn_size;
	ref = &k->stacks[k->n_stacks];
	ref->raw_off = k->stats.raw_bytes;
	ref->tid = tid;
	ref->cpu = cpu;
	ref->kind = (uint16_t)(kind == STACK_FUTEX ? CORECAP_KSTACK_FUTEX : CORECAP_KSTACK_SWITCH);
	ref->event_time_ns = time_ns;
	ref->matched = false;
	ref->oncpu = kind == STACK_CPU;
	if (kernel_write_all(k->raw_fd, &rs, sizeof(rs)) < 0 ||
	    kernel_write_all(k->raw_fd, stack, rs.size) < 0) {
		k->stats.write_error = true;
		return false;
	}
	k->stats.raw_bytes += sizeof(rs) + rs.size;
	if (kind == STACK_CPU)
		k->stats.oncpu_taken++;
	else
		k->stats.stacks_taken++;
	k->n_stacks++;
	return true;
}

/*
 * One more sample of the copy k->stacks[idx] (a cpu-clock or off-CPU
 * copy), at time_ns: a thread that has not run since, whose registers and
 * stack are the same, or a copy that stands for several periods. Nothing
 * is written to stacks.raw: the new ref points at the same bytes. False
 * when it was not kept.
 */
bool kernel_repeat_stack(struct corecap_kernel_events *k, size_t idx, uint64_t time_ns)
{
	if (idx >= k->n_stacks || !k->stacks[idx].oncpu)
		return false;
	if (k->n_stacks == k->cap_stacks) {
		size_t cap = 2 * k->cap_stacks;
		struct kernel_stack_ref *p = realloc(k->stacks, cap * sizeof(*p));

		if (!p)
			return false;
		k->stacks = p;
		k->cap_stacks = cap;
	}
	k->stacks[k->n_stacks] = k->stacks[idx];
	k->stacks[k->n_stacks].event_time_ns = time_ns;
	k->n_stacks++;
	k->stats.oncpu_taken++;
	return true;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static const struct kernel_stack_ref *sort_refs;

static int cmp_ref_time(const void *a, const void *b)
{
	const struct kernel_stack_ref *x = &sort_refs[*(const size_t *)a];
	const struct kernel_stack_ref *y = &sort_refs[*(const size_t *)b];

	return x->event_time_ns < y->event_time_ns ? -1 : x->event_time_ns > y->event_time_ns;
}

/*
 * The cpu-clock samples, unwound as the switch-outs' and written as
 * RUN/wall.samples in time order (docs/run-directory.md): the analysis
 * reads them as the ptrace sampler's (the flame graph, the wall folded
 * output, the critical path's logging share), each a thread on a CPU.
 * stop_ns is 0: no thread was stopped. A copy that cannot be read or
 * unwound even one frame is counted (oncpu_failed), not written. With the
 * off-CPU rounds, each thread's samples in the window against those due
 * to it (kernel_coverage.h).
 */
static int unwind_oncpu(struct corecap_kernel_events *k, struct corecap_kernel_unwind *u, int raw,
			unsigned char *stack, uint64_t *frames)
{
	size_t *order = malloc(k->stats.oncpu_taken * sizeof(*order)), n_order = 0;
	int werr = 0, ret;
	FILE *f = NULL;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < k->n_stacks; i++)
		if (k->stacks[i].oncpu && n_order < k->stats.oncpu_taken)
			order[n_order++] = i;
	sort_refs = k->stacks;
	qsort(order, n_order, sizeof(*order), cmp_ref_time);
	ret = corecap_run_dir_fopen(k->rd, CORECAP_RUN_WALL, &f);
	for (size_t j = 0; ret == 0 && j < n_order; j++) {
		const struct kernel_stack_ref *ref = &k->stacks[order[j]];
		struct raw_stack rs;
		size_t n = 0;
		int status;

		if (read_at(raw, &rs, sizeof(rs), ref->raw_off) < 0 ||
		    rs.size > CORECAP_KERNEL_STACK_USER_BYTES ||
		    read_at(raw, stack, rs.size, ref->raw_off + sizeof(rs)) < 0) {
			k->stats.oncpu_failed++;
			continue;
		}
		status = corecap_kernel_unwind_stack(u, rs.tid, rs.regs, stack, rs.dyn_size, frames,
						     CORECAP_KERNEL_MAX_FRAMES, &n);
		if (status == CORECAP_KSTACK_FAILED && n <= 1) {
			k->stats.oncpu_failed++;
			continue;
		}
		/* The ref's time: a repeat (kernel_repeat_stack) shares the copy. */
		fprintf(f, "%" PRIu64 "\t%d\t0\t", ref->event_time_ns, (int)rs.tid);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s%" PRIx64, i ? " " : "", frames[i]);
		fputc('\n', f);
		k->stats.oncpu_written++;
		if (ref->event_time_ns >= k->window_ns[0] && ref->event_time_ns <= k->window_ns[1])
			kernel_coverage_taken(&k->coverage, rs.tid);
	}
	if (k->wall_offcpu)
		k->wall_coverage_known =
			kernel_coverage_sum(&k->coverage, k->oncpu_hz, k->window_ns[0],
					    k->window_ns[1], &k->wall_coverage);
	if (f)
		ret = corecap_run_file_close(f, CORECAP_RUN_WALL, &werr);
	free(order);
	return ret;
}

int corecap_kernel_events_unwind(struct corecap_kernel_events *k, bool daemon_alive)
{
	struct corecap_kernel_unwind u;
	unsigned char *stack = NULL, *rec = NULL;
	char maps_path[4200];
	int fd = -1, raw = -1, ret;

	if (k->raw_fd < 0)
		return 0;
	/* The raw file was created write-only. */
	raw = openat(k->rd->dirfd, CORECAP_KERNEL_RAW_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (raw < 0)
		return -errno;
	ret = corecap_run_dir_create_file(k->rd, CORECAP_KERNEL_STACKS_FILE, &fd);
	if (ret < 0)
		goto out;
	ret = kernel_write_file_header(fd, CORECAP_KERNEL_MAGIC_STACKS, k,
				       CORECAP_KERNEL_STACK_USER_BYTES);
	if (ret < 0)
		goto out_close;
	k->stats.stacks_bytes = sizeof(struct corecap_kfile_header);
	snprintf(maps_path, sizeof(maps_path), "%s/" CORECAP_RUN_MAPS, k->rd->abs_path);
	stack = malloc(CORECAP_KERNEL_STACK_USER_BYTES);
	rec = malloc(sizeof(struct corecap_krec_stack) + 8 * CORECAP_KERNEL_MAX_FRAMES);
	if (!stack || !rec) {
		ret = -ENOMEM;
		goto out_close;
	}
	ret = k->n_stacks ? corecap_kernel_unwind_init(&u, k->pid, daemon_alive, maps_path) : 0;
	if (ret < 0) {
		corecap_warn("kernel events: cannot read the modules of PID %d to unwind its "
			     "stacks: %s",
			     (int)k->pid, strerror(-ret));
		k->stats.stacks_failed = k->n_stacks;
		goto out_close;
	}
	for (size_t i = 0; i < k->n_stacks; i++) {
		const struct kernel_stack_ref *ref = &k->stacks[i];
		struct corecap_krec_stack *r = (struct corecap_krec_stack *)rec;
		uint64_t *frames = (uint64_t *)(r + 1);
		struct raw_stack rs;
		size_t n = 0;
		int status;

		if (ref->oncpu)
			continue; /* into wall.samples, below */
		if (read_at(raw, &rs, sizeof(rs), ref->raw_off) < 0 ||
		    rs.size > CORECAP_KERNEL_STACK_USER_BYTES ||
		    read_at(raw, stack, rs.size, ref->raw_off + sizeof(rs)) < 0) {
			k->stats.stacks_failed++;
			continue;
		}
		status = corecap_kernel_unwind_stack(&u, rs.tid, rs.regs, stack, rs.dyn_size,
						     frames, CORECAP_KERNEL_MAX_FRAMES, &n);
		memset(r, 0, sizeof(*r));
		r->h.type = CORECAP_KREC_STACK;
		r->h.size = (uint16_t)(sizeof(*r) + 8 * n);
		r->h.cpu = rs.cpu;
		r->h.time_ns = rs.time_ns;
		r->tid = rs.tid;
		r->kind = ref->kind;
		r->nframes = (uint16_t)n;
		r->event_time_ns = ref->matched ? ref->event_time_ns : 0;
		r->status = status;
		r->stack_bytes = (uint32_t)rs.dyn_size;
		k->stats.stacks_matched += ref->matched;
		if (status == CORECAP_KSTACK_FAILED)
			k->stats.stacks_failed++;
		else
			k->stats.stacks_unwound++;
		k->stats.stacks_truncated += status == CORECAP_KSTACK_TRUNCATED;
		k->stats.stacks_no_cfi += status == CORECAP_KSTACK_NO_CFI;
		ret = kernel_write_all(fd, r, r->h.size);
		if (ret < 0)
			break;
		k->stats.stacks_bytes += r->h.size;
	}
	if (ret == 0 && k->stats.oncpu_taken)
		ret = unwind_oncpu(k, &u, raw, stack, (uint64_t *)rec);
	if (k->n_stacks)
		corecap_kernel_unwind_release(&u);
out_close:
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0) {
		/* The addresses are kept; the copies of the daemon's stacks are not. */
		close(k->raw_fd);
		k->raw_fd = -1;
		unlinkat(k->rd->dirfd, CORECAP_KERNEL_RAW_FILE, 0);
	}
out:
	close(raw);
	free(stack);
	free(rec);
	return ret;
}
