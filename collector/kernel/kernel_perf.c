/*
 * The kernel source's perf_event_open(2) producer (kernel_perf.h): whether
 * kernel events may be recorded here, the tracepoints' formats, the tid
 * filters, the per-CPU rings and event sets, the parsing of their samples
 * into the run's records, and the stack periods.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <corecap/kernel_format.h>
#include <corecap/diag.h>
#include "kernel_bpf.h"
#include "kernel_events.h"
#include "kernel_perf.h"
#include "kernel_stacks.h"
#include "kernel_state.h"
#include "kernel_tids.h"
#include "kernel_writer.h"
#include "util/mono_clock.h"
#include "util/proc_stat.h"

#define TRACEFS_MAGIC	  0x74726163
#define MATCH_NS	  200000ull /* a stack sample and its record are this close */
#define FILTER_MAX_BYTES  4000u	    /* the kernel takes less than a page */
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT	  38
#define DUP_NS		  20000ull /* two sets' copies of one hit: written back to back */

static const struct {
	const char *system, *event;
} tp_names[CORECAP_KTP_N] = {
	[CORECAP_KTP_SWITCH] = {"sched", "sched_switch"},
	[CORECAP_KTP_WAKING] = {"sched", "sched_waking"},
	[CORECAP_KTP_FUTEX_ENTER] = {"syscalls", "sys_enter_futex"},
	[CORECAP_KTP_FUTEX_EXIT] = {"syscalls", "sys_exit_futex"},
	[CORECAP_KTP_FORK] = {"sched", "sched_process_fork"},
	[CORECAP_KTP_EXIT] = {"sched", "sched_process_exit"},
};

/* The raw fields read, resolved once from the format files. */
enum {
	F_FORK_CHILD_PID,
	F_FORK_PARENT_PID,
	F_FORK_CHILD_COMM,
	F_SWITCH_PREV_PID,
	F_SWITCH_NEXT_PID,
	F_SWITCH_PREV_STATE,
	F_WAKING_PID,
	F_WAKING_COMMON_FLAGS,
	F_WAKING_TARGET_CPU,
	F_FUTEX_ENTER_OP,
	F_FUTEX_ENTER_UADDR,
	F_FUTEX_ENTER_VAL,
	F_FUTEX_ENTER_VAL3,
	F_FUTEX_ENTER_UADDR2,
	F_FUTEX_ENTER_UTIME,
	F_FUTEX_EXIT_RET,
	F_EXIT_GROUP_DEAD,
	F_EXIT_COMM,
	F_N,
};

static const struct {
	int tp;
	const char *name;
} field_names[F_N] = {
	[F_FORK_CHILD_PID] = {CORECAP_KTP_FORK, "child_pid"},
	[F_FORK_PARENT_PID] = {CORECAP_KTP_FORK, "parent_pid"},
	[F_FORK_CHILD_COMM] = {CORECAP_KTP_FORK, "child_comm"},
	[F_SWITCH_PREV_PID] = {CORECAP_KTP_SWITCH, "prev_pid"},
	[F_SWITCH_NEXT_PID] = {CORECAP_KTP_SWITCH, "next_pid"},
	[F_SWITCH_PREV_STATE] = {CORECAP_KTP_SWITCH, "prev_state"},
	[F_WAKING_PID] = {CORECAP_KTP_WAKING, "pid"},
	[F_WAKING_COMMON_FLAGS] = {CORECAP_KTP_WAKING, "common_flags"},
	[F_WAKING_TARGET_CPU] = {CORECAP_KTP_WAKING, "target_cpu"},
	[F_FUTEX_ENTER_OP] = {CORECAP_KTP_FUTEX_ENTER, "op"},
	[F_FUTEX_ENTER_UADDR] = {CORECAP_KTP_FUTEX_ENTER, "uaddr"},
	[F_FUTEX_ENTER_VAL] = {CORECAP_KTP_FUTEX_ENTER, "val"},
	[F_FUTEX_ENTER_VAL3] = {CORECAP_KTP_FUTEX_ENTER, "val3"},
	[F_FUTEX_ENTER_UADDR2] = {CORECAP_KTP_FUTEX_ENTER, "uaddr2"},
	[F_FUTEX_ENTER_UTIME] = {CORECAP_KTP_FUTEX_ENTER, "utime"},
	[F_FUTEX_EXIT_RET] = {CORECAP_KTP_FUTEX_EXIT, "ret"},
	[F_EXIT_GROUP_DEAD] = {CORECAP_KTP_EXIT, "group_dead"},
	[F_EXIT_COMM] = {CORECAP_KTP_EXIT, "comm"},
};

_Static_assert(F_N == CORECAP_KERNEL_FIELDS, "CORECAP_KERNEL_FIELDS");

/* The futex commands whose enters get a stack: the waits (kernel_format.h's). */
#define WAIT_CMD(name, cmd) cmd,
static const unsigned wait_cmds[] = {CORECAP_FUTEX_WAIT_CMDS(WAIT_CMD)};
#undef WAIT_CMD

/* A small file read whole (proc_stat.h), as a yes or no. */
static bool read_small_file(const char *path, char *buf, size_t size)
{
	return corecap_read_small_file(AT_FDCWD, path, buf, size) >= 0;
}

static bool has_cap(int bit)
{
	char buf[4096], *p;
	unsigned long long eff;

	if (!read_small_file("/proc/self/status", buf, sizeof(buf)))
		return false;
	p = strstr(buf, "CapEff:");
	if (!p || sscanf(p + 7, "%llx", &eff) != 1)
		return false;
	return (eff >> bit) & 1;
}

static int perf_paranoid(void)
{
	char buf[32];

	return read_small_file("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) ? atoi(buf)
											 : 2;
}

static bool tracefs_mounted(void)
{
	struct statfs st;

	return statfs(CORECAP_TRACEFS, &st) == 0 && (unsigned long)st.f_type == TRACEFS_MAGIC;
}

bool corecap_kernel_events_permitted(char *why, size_t why_size)
{
	bool perfmon = geteuid() == 0 || has_cap(CAP_PERFMON_BIT) || has_cap(CAP_SYS_ADMIN_BIT);
	int paranoid = perf_paranoid();

	if (!perfmon && paranoid > -1) {
		snprintf(why, why_size,
			 "kernel events need root or CAP_PERFMON, and corecap runs as uid %d "
			 "without "
			 "it while kernel.perf_event_paranoid is %d: run as root, grant "
			 "CAP_PERFMON, "
			 "or set kernel.perf_event_paranoid to -1",
			 (int)geteuid(), paranoid);
		return false;
	}
	if (!tracefs_mounted()) {
		bool admin = geteuid() == 0 || has_cap(CAP_SYS_ADMIN_BIT);

		if (!admin) {
			snprintf(why, why_size,
				 "tracefs is not mounted at %s and mounting it needs root: run "
				 "'mount -t tracefs nodev %s' as root",
				 CORECAP_TRACEFS, CORECAP_TRACEFS);
			return false;
		}
		if (mount("nodev", CORECAP_TRACEFS, "tracefs", 0, NULL) < 0) {
			snprintf(why, why_size,
				 "tracefs is not mounted at %s and cannot be mounted: %s; mount it "
				 "with 'mount -t tracefs nodev %s'",
				 CORECAP_TRACEFS, strerror(errno), CORECAP_TRACEFS);
			return false;
		}
		corecap_note("mounted tracefs at %s", CORECAP_TRACEFS);
	}
	return true;
}

/* The tracepoints' formats and the raw fields read, from tracefs. */
int kernel_perf_formats(struct corecap_kernel_events *k, char *why, size_t why_size)
{
	int ret = 0;

	for (int tp = 0; tp < CORECAP_KTP_N; tp++) {
		ret = corecap_tp_format_load(&k->fmt[tp], CORECAP_TRACEFS, tp_names[tp].system,
					     tp_names[tp].event, why, why_size);
		if (ret == -EACCES || ret == -EPERM) {
			size_t n = strlen(why);

			snprintf(why + n, why_size - n,
				 " (tracefs is readable by root only: run as root)");
		}
		if (ret < 0)
			return ret;
	}
	for (int f = 0; f < F_N; f++) {
		k->fields[f] =
			corecap_tp_format_field(&k->fmt[field_names[f].tp], field_names[f].name);
		if (!k->fields[f]) {
			ret = -EINVAL;
			snprintf(why, why_size, "this kernel's %s has no field '%s'",
				 k->fmt[field_names[f].tp].name, field_names[f].name);
			return ret;
		}
	}
	return 0;
}

/* Filters: "field RANGES" with the sorted tids folded into ranges. */

static bool append(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= size)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *len) {
		*len = size;
		return false;
	}
	*len += (size_t)n;
	return true;
}

static bool tid_expr(const struct corecap_kernel_events *k, const char *field, char *buf,
		     size_t size, size_t *len)
{
	bool ok = append(buf, size, len, "(");

	for (size_t i = 0; ok && i < k->n_tids;) {
		size_t j = i;

		while (j + 1 < k->n_tids && k->tids[j + 1] == k->tids[j] + 1)
			j++;
		if (i > 0)
			ok = append(buf, size, len, "||");
		if (ok && j == i)
			ok = append(buf, size, len, "%s==%d", field, (int)k->tids[i]);
		else if (ok)
			ok = append(buf, size, len, "(%s>=%d&&%s<=%d)", field, (int)k->tids[i],
				    field, (int)k->tids[j]);
		i = j + 1;
	}
	if (ok && k->n_tids == 0)
		ok = append(buf, size, len, "%s==-1", field);
	return ok && append(buf, size, len, ")");
}

static bool build_filter(const struct corecap_kernel_events *k, int ev, char *buf, size_t size)
{
	size_t len = 0;
	bool ok = true;

	switch (ev) {
	case CORECAP_KTP_SWITCH:
		ok = tid_expr(k, "prev_pid", buf, size, &len) && append(buf, size, &len, "||") &&
		     tid_expr(k, "next_pid", buf, size, &len);
		break;
	case CORECAP_KTP_WAKING:
		ok = tid_expr(k, "pid", buf, size, &len);
		break;
	case EV_STACK_SWITCH:
		ok = tid_expr(k, "prev_pid", buf, size, &len);
		break;
	case EV_STACK_FUTEX:
		ok = tid_expr(k, "common_pid", buf, size, &len) && append(buf, size, &len, "&&(");
		for (size_t i = 0; ok && i < sizeof(wait_cmds) / sizeof(wait_cmds[0]); i++)
			for (unsigned flags = 0; ok && flags < 4; flags++)
				ok = append(buf, size, &len, "%sop==%u", i || flags ? "||" : "",
					    wait_cmds[i] | flags << 7);
		ok = ok && append(buf, size, &len, ")");
		break;
	default:
		ok = tid_expr(k, "common_pid", buf, size, &len);
	}
	return ok;
}

/* The filter of each event for the current tid set; NULL where it does not fit. */
static void build_filters(const struct corecap_kernel_events *k, char *filters[EV_N])
{
	for (int ev = 0; ev < EV_N; ev++) {
		filters[ev] = malloc(FILTER_MAX_BYTES);
		if (filters[ev] && !build_filter(k, ev, filters[ev], FILTER_MAX_BYTES)) {
			free(filters[ev]);
			filters[ev] = NULL;
		}
	}
}

static void free_filters(char *filters[EV_N])
{
	for (int ev = 0; ev < EV_N; ev++)
		free(filters[ev]);
}

/* Perf events. */

static int perf_open(struct perf_event_attr *attr, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void perf_open_why(int err, const char *what, int cpu, char *why, size_t why_size)
{
	if (err == EACCES || err == EPERM)
		snprintf(why, why_size,
			 "perf_event_open of %s on CPU %d was refused (%s; "
			 "kernel.perf_event_paranoid is %d): run as root or with CAP_PERFMON, or "
			 "set kernel.perf_event_paranoid to -1",
			 what, cpu, strerror(err), perf_paranoid());
	else if (err == ENOENT || err == EINVAL || err == EOPNOTSUPP)
		snprintf(why, why_size,
			 "this kernel cannot record %s on CPU %d with perf_event_open (%s)", what,
			 cpu, strerror(err));
	else
		snprintf(why, why_size, "perf_event_open of %s on CPU %d failed: %s", what, cpu,
			 strerror(err));
}

bool kernel_cpu_online(int cpu)
{
	char path[96], buf[8];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	/* cpu0 often has no such file: it cannot go offline. */
	return !read_small_file(path, buf, sizeof(buf)) || buf[0] != '0';
}

/* Ring bytes per CPU: CORECAP_KERNEL_RING_KB (a power of two, at least
 * two pages), else the default. */
size_t kernel_perf_ring_bytes(void)
{
	const char *env = getenv("CORECAP_KERNEL_RING_KB");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long kb;
	char *end;

	if (!env || !*env)
		return CORECAP_KERNEL_RING_BYTES;
	errno = 0;
	kb = strtoul(env, &end, 10);
	if (errno || *end || kb * 1024 < 2 * page || kb > (1ul << 20) || (kb & (kb - 1))) {
		corecap_warn("ignoring CORECAP_KERNEL_RING_KB='%s' (a power of two from %zu to "
			     "1048576); using %u",
			     env, 2 * page / 1024, CORECAP_KERNEL_RING_BYTES / 1024);
		return CORECAP_KERNEL_RING_BYTES;
	}
	return kb * 1024;
}

static struct perf_event_attr base_attr(const struct corecap_kernel_events *k)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_RAW,
		.disabled = 1,
		.sample_id_all = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.watermark = 1,
		.wakeup_watermark = (uint32_t)(k->ring_bytes / 4),
	};

	return a;
}

/*
 * One set of tracepoint events on a CPU, with the filters in filters[]
 * (NULL: none), writing into the CPU's ring; disabled. A set is replaced
 * whole when the target gains a thread, since a perf event's filter
 * cannot be changed once set (EEXIST).
 */
static int open_set(struct corecap_kernel_events *k, int cpu, int fd[EV_N], uint64_t id[EV_N],
		    char *const filters[EV_N], char *why, size_t why_size)
{
	struct kernel_cpu *kc = &k->cpus[cpu];
	int ev, ret = 0;

	for (ev = 0; ev < EV_N; ev++)
		fd[ev] = -1;
	for (ev = 0; ev < EV_N; ev++) {
		int tp = ev == EV_STACK_FUTEX	 ? CORECAP_KTP_FUTEX_ENTER
			 : ev == EV_STACK_SWITCH ? CORECAP_KTP_SWITCH
						 : ev;
		struct perf_event_attr a = base_attr(k);

		a.type = PERF_TYPE_TRACEPOINT;
		a.config = k->fmt[tp].id;
		if (ev >= CORECAP_KTP_N) {
			a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a.sample_regs_user = CORECAP_KUNWIND_REGS_MASK;
			a.sample_stack_user = CORECAP_KERNEL_STACK_USER_BYTES;
			a.exclude_callchain_kernel = 1;
			a.sample_period =
				kc->period[ev == EV_STACK_FUTEX ? STACK_FUTEX : STACK_SWITCH];
		}
		fd[ev] = perf_open(&a, cpu);
		if (fd[ev] < 0) {
			ret = -errno;
			perf_open_why(errno, k->fmt[tp].name, cpu, why, why_size);
			goto out_close;
		}
		if (ioctl(fd[ev], PERF_EVENT_IOC_ID, &id[ev]) < 0 ||
		    ioctl(fd[ev], PERF_EVENT_IOC_SET_OUTPUT, kc->ring_fd) < 0) {
			ret = -errno;
			snprintf(why, why_size, "cannot share CPU %d's perf ring buffer: %s", cpu,
				 strerror(errno));
			goto out_close;
		}
		/* A filter the kernel refuses (too long, too old a kernel): the reader filters. */
		if (filters[ev] && ioctl(fd[ev], PERF_EVENT_IOC_SET_FILTER, filters[ev]) < 0)
			k->stats.kernel_filter = false;
	}
	goto out;
out_close:
	for (ev = 0; ev < EV_N; ev++)
		if (fd[ev] >= 0)
			close(fd[ev]);
out:
	return ret;
}

/* The CPU's ring, owned by a dummy software event that is never replaced. */
int kernel_perf_open_ring(struct corecap_kernel_events *k, int cpu, char *why, size_t why_size)
{
	struct kernel_cpu *kc = &k->cpus[cpu];
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr a = base_attr(k);
	int ret = 0;

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 0;
	kc->ring_fd = perf_open(&a, cpu);
	if (kc->ring_fd < 0) {
		ret = -errno;
		perf_open_why(errno, "a ring buffer", cpu, why, why_size);
		goto out;
	}
	/* Locked memory may be short (kernel.perf_event_mlock_kb for non-root):
	 * smaller rings, down to 256 KiB, rather than none. */
	for (;;) {
		kc->ring_bytes = k->ring_bytes + (size_t)page;
		kc->ring = mmap(NULL, kc->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
				kc->ring_fd, 0);
		if (kc->ring != MAP_FAILED)
			break;
		kc->ring = NULL;
		if ((errno != EPERM && errno != ENOMEM) || k->ring_bytes <= 262144 || cpu > 0) {
			ret = -errno;
			snprintf(why, why_size,
				 "cannot map a %zu KiB perf ring buffer for CPU %d: %s "
				 "(kernel.perf_event_mlock_kb may be too small)",
				 k->ring_bytes / 1024, cpu, strerror(errno));
			break;
		}
		k->ring_bytes /= 2;
	}
out:
	return ret;
}

static void close_set(int fd[EV_N])
{
	for (int ev = 0; ev < EV_N; ev++) {
		if (fd[ev] >= 0)
			close(fd[ev]);
		fd[ev] = -1;
	}
}

void kernel_perf_close_cpus(struct corecap_kernel_events *k)
{
	for (int c = 0; k->cpus && c < k->nr_cpus; c++) {
		struct kernel_cpu *kc = &k->cpus[c];

		close_set(kc->fd);
		if (kc->clock_fd >= 0)
			close(kc->clock_fd);
		kc->clock_fd = -1;
		if (kc->ring)
			munmap(kc->ring, kc->ring_bytes);
		kc->ring = NULL;
		if (kc->ring_fd >= 0)
			close(kc->ring_fd);
		kc->ring_fd = -1;
	}
}

/*
 * Opens a new event set on every CPU with filters for the current tids and
 * swaps it in: the new set is enabled (when `enabled`), then the old one
 * disabled, so a tracepoint hit in between (microseconds) is recorded by
 * both, and the reader drops the second copy (duplicate()). Disabling
 * first lost those hits (37 in the 7 swaps of a 3 s recording of a
 * process that starts threads, on 2 CPUs), and a switch-out lost there left its thread running,
 * by the records, until its next switch-in. The old set's samples still in
 * a ring are read with its ids (prev_id).
 */
int kernel_perf_open_sets(struct corecap_kernel_events *k, bool enabled, char *why, size_t why_size)
{
	char *filters[EV_N];
	int ret = 0;

	build_filters(k, filters);
	k->stats.kernel_filter = true;
	for (int ev = 0; ev < EV_N; ev++)
		k->stats.kernel_filter = k->stats.kernel_filter && filters[ev];
	for (int c = 0; c < k->nr_cpus; c++) {
		struct kernel_cpu *kc = &k->cpus[c];
		uint64_t id[EV_N];
		int fd[EV_N];

		if (!kc->online)
			continue;
		ret = open_set(k, c, fd, id, filters, why, why_size);
		if (ret < 0)
			break;
		for (int ev = 0; enabled && ev < EV_N; ev++)
			ioctl(fd[ev], PERF_EVENT_IOC_ENABLE, 0);
		k->stats.set_swaps += enabled;
		kc->dup.check = enabled;
		kc->dup.valid = false;
		for (int ev = 0; enabled && ev < EV_N; ev++)
			if (kc->fd[ev] >= 0)
				ioctl(kc->fd[ev], PERF_EVENT_IOC_DISABLE, 0);
		close_set(kc->fd);
		memcpy(kc->prev_id, kc->id, sizeof(kc->id));
		memcpy(kc->fd, fd, sizeof(fd));
		memcpy(kc->id, id, sizeof(id));
	}
	free_filters(filters);
	k->tids_changed = false;
	return ret;
}

/* Parsing one sample. */

struct sample {
	uint64_t id;
	uint32_t pid, tid;
	uint64_t time_ns;
	uint32_t cpu;
	const unsigned char *raw;
	uint32_t raw_bytes;
	uint64_t abi;
	const uint64_t *regs;
	uint64_t stack_size;
	const unsigned char *stack;
	uint64_t dyn_size;
};

static bool parse_sample(const unsigned char *p, size_t len, bool with_stack,
			 int64_t clock_offset_ns, struct sample *s)
{
	size_t off = sizeof(struct perf_event_header);
	uint32_t cpu_res[2];

#define TAKE(dst, n)                                                                               \
	do {                                                                                       \
		if (off + (n) > len)                                                               \
			return false;                                                              \
		memcpy((dst), p + off, (n));                                                       \
		off += (n);                                                                        \
	} while (0)
	memset(s, 0, sizeof(*s));
	TAKE(&s->id, 8);
	TAKE(&s->pid, 4);
	TAKE(&s->tid, 4);
	TAKE(&s->time_ns, 8);
	s->time_ns += (uint64_t)clock_offset_ns; /* the run's clock (timens.h) */
	TAKE(cpu_res, 8);
	s->cpu = cpu_res[0];
	TAKE(&s->raw_bytes, 4);
	if (off + s->raw_bytes > len)
		return false;
	s->raw = p + off;
	off += s->raw_bytes;
	if (with_stack) {
		TAKE(&s->abi, 8);
		if (s->abi) {
			if (off + 8 * CORECAP_KUNWIND_NREGS > len)
				return false;
			s->regs = (const uint64_t *)(p + off);
			off += 8 * CORECAP_KUNWIND_NREGS;
		}
		TAKE(&s->stack_size, 8);
		if (s->stack_size) {
			if (off + s->stack_size + 8 > len)
				return false;
			s->stack = p + off;
			off += s->stack_size;
			TAKE(&s->dyn_size, 8);
			if (s->dyn_size > s->stack_size)
				s->dyn_size = s->stack_size;
		}
	}
#undef TAKE
	return true;
}

static int64_t field(const struct corecap_kernel_events *k, int f, const struct sample *s)
{
	int64_t v = 0;

	if (!corecap_tp_field_read(k->fields[f], s->raw, s->raw_bytes, &v))
		v = 0;
	return v;
}

/* A char[16] field, or a __data_loc string (4 bytes: offset | length << 16). */
static void field_str(const struct corecap_kernel_events *k, int f, const struct sample *s,
		      char out[16])
{
	const struct corecap_tp_field *fl = k->fields[f];
	uint32_t off = fl->offset, size = fl->size;

	memset(out, 0, 16);
	if (fl->size == 4) {
		uint32_t loc;

		if ((size_t)off + 4 > s->raw_bytes)
			return;
		memcpy(&loc, s->raw + off, 4);
		off = loc & 0xffff;
		size = loc >> 16;
	}
	if ((size_t)off + size > s->raw_bytes)
		return;
	memcpy(out, s->raw + off, size < 15 ? size : 15);
}

static void remember(struct corecap_kernel_events *k, struct kernel_cpu *kc, int kind, int32_t tid,
		     uint64_t time_ns)
{
	kc->last[kind].tid = tid;
	kc->last[kind].time_ns = time_ns;
	kc->last[kind].valid = true;
	if (kc->pending[kind].valid) {
		struct kernel_stack_ref *ref = &k->stacks[kc->pending[kind].idx];

		if (ref->tid == tid && time_ns >= ref->event_time_ns &&
		    time_ns - ref->event_time_ns < MATCH_NS) {
			ref->event_time_ns = time_ns;
			ref->matched = true;
		}
		kc->pending[kind].valid = false;
	}
}

/*
 * A burst (the rate jumped since the last adjustment): more stack samples
 * in this interval than four intervals' share of the bound. The period
 * goes up 16-fold at once, before the 16 KiB copies fill the ring.
 */
static void burst_guard(struct corecap_kernel_events *k, struct kernel_cpu *kc, int kind)
{
	uint64_t p;

	if (++kc->taken_in_tick[kind] <= kernel_burst_limit(k, kind))
		return;
	p = kc->period[kind] * 16;
	if (p <= (1ull << 24) &&
	    ioctl(kc->fd[kind == STACK_FUTEX ? EV_STACK_FUTEX : EV_STACK_SWITCH],
		  PERF_EVENT_IOC_PERIOD, &p) == 0)
		kc->period[kind] = p;
	kc->taken_in_tick[kind] = 0;
}

static void on_stack(struct corecap_kernel_events *k, struct kernel_cpu *kc, int kind,
		     const struct sample *s)
{
	struct kernel_stack_ref *ref;

	if (!kernel_store_stack(k, kind, (int32_t)s->tid, s->cpu, s->time_ns, s->regs, s->stack,
				s->stack_size, s->dyn_size))
		return;
	ref = &k->stacks[k->n_stacks - 1];
	/* The plain record of the same hit came just before, or comes next. */
	if (kc->last[kind].valid && kc->last[kind].tid == (int32_t)s->tid &&
	    s->time_ns - kc->last[kind].time_ns < MATCH_NS) {
		ref->event_time_ns = kc->last[kind].time_ns;
		ref->matched = true;
	} else {
		kc->pending[kind].idx = k->n_stacks - 1;
		kc->pending[kind].valid = true;
	}
}

static void on_fork(struct corecap_kernel_events *k, const struct sample *s, uint32_t cpu)
{
	struct corecap_krec_fork *r;
	char path[96];
	struct stat st;
	int32_t child = (int32_t)field(k, F_FORK_CHILD_PID, s);

	r = kernel_out_reserve(k, CORECAP_KREC_FORK, sizeof(*r), cpu, s->time_ns);
	if (!r)
		return;
	r->parent_tid = (int32_t)field(k, F_FORK_PARENT_PID, s);
	r->child_tid = child;
	field_str(k, F_FORK_CHILD_COMM, s, r->child_comm);
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)k->pid, (int)child);
	if (stat(path, &st) == 0) {
		r->flags = CORECAP_KFORK_SAME_PROCESS;
		k->stats.records[CORECAP_KTP_FORK]++;
		kernel_tids_add(k, child);
	} else {
		snprintf(path, sizeof(path), "/proc/%d", (int)child);
		if (stat(path, &st) < 0)
			r->flags = CORECAP_KFORK_UNKNOWN;
		k->stats.records[CORECAP_KTP_FORK]++;
	}
}

/* A record of the thread at the tracepoint, if it is the target's (NULL
 * otherwise): counted, its tid (first after the header) filled in. */
static void *own_record(struct corecap_kernel_events *k, const struct sample *s, int ev,
			uint16_t type, uint16_t size, uint32_t cpu)
{
	unsigned char *r;
	int32_t tid = (int32_t)s->tid;

	if (s->pid != (uint32_t)k->pid) {
		k->stats.foreign++;
		return NULL;
	}
	r = kernel_out_reserve(k, type, size, cpu, s->time_ns);
	if (r) {
		memcpy(r + sizeof(struct corecap_krec), &tid, sizeof(tid));
		k->stats.records[ev]++;
	}
	return r;
}

/*
 * Whether s, of event ev from the old set (`old`) or the current one, is
 * the second copy of a hit both sets recorded while they overlapped
 * (kernel_perf_open_sets): the same event and raw record as the sample just before it
 * on this CPU, from the other set, DUP_NS apart at most. A pair is matched
 * once: a third identical sample is a hit of its own.
 */
static bool duplicate(struct kernel_cpu *kc, int ev, bool old, const struct sample *s)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	bool dup;

	for (uint32_t i = 0; i < s->raw_bytes; i++)
		h = (h ^ s->raw[i]) * 1099511628211ull;
	dup = kc->dup.valid && kc->dup.ev == ev && kc->dup.old != old && kc->dup.hash == h &&
	      (s->time_ns > kc->dup.time_ns ? s->time_ns - kc->dup.time_ns
					    : kc->dup.time_ns - s->time_ns) <= DUP_NS;
	kc->dup.valid = !dup;
	kc->dup.ev = ev;
	kc->dup.old = old;
	kc->dup.hash = h;
	kc->dup.time_ns = s->time_ns;
	return dup;
}

static void on_sample(struct corecap_kernel_events *k, struct kernel_cpu *kc, uint32_t cpu,
		      const unsigned char *p, size_t len)
{
	struct sample s;
	uint64_t id;
	int ev = -1;
	bool old = false;

	if (len < sizeof(struct perf_event_header) + 8)
		return;
	memcpy(&id, p + sizeof(struct perf_event_header), 8);
	if (kc->clock_fd >= 0 && id == kc->clock_id) {
		/* The cpu-clock samples every thread on the CPU: the target's kept. */
		if (parse_sample(p, len, true, k->clock_offset_ns, &s) && s.pid == (uint32_t)k->pid)
			kernel_store_stack(k, STACK_CPU, (int32_t)s.tid, s.cpu, s.time_ns, s.regs,
					   s.stack, s.stack_size, s.dyn_size);
		else
			k->stats.foreign++;
		return;
	}
	for (int e = 0; e < EV_N && ev < 0; e++)
		if (kc->id[e] == id || kc->prev_id[e] == id) {
			ev = e;
			old = kc->id[e] != id;
		}
	if (ev < 0 || !parse_sample(p, len, ev >= CORECAP_KTP_N, k->clock_offset_ns, &s))
		return;
	if (kc->dup.check && duplicate(kc, ev, old, &s)) {
		k->stats.duplicates++;
		return;
	}
	switch (ev) {
	case CORECAP_KTP_SWITCH: {
		int32_t prev = (int32_t)field(k, F_SWITCH_PREV_PID, &s);
		int32_t next = (int32_t)field(k, F_SWITCH_NEXT_PID, &s);
		bool mine_prev = s.pid == (uint32_t)k->pid, mine_next = kernel_tids_has(k, next);
		struct corecap_krec_switch *r;
		bool preempted;

		if (!mine_prev && !mine_next) {
			k->stats.foreign++;
			break;
		}
		r = kernel_out_reserve(k, CORECAP_KREC_SWITCH, sizeof(*r), cpu, s.time_ns);
		if (!r)
			break;
		r->prev_tid = prev;
		r->next_tid = next;
		r->prev_state = field(k, F_SWITCH_PREV_STATE, &s);
		r->prev_state_char = (uint8_t)kernel_state_char(r->prev_state, &preempted);
		r->flags = (mine_prev ? CORECAP_KSWITCH_PREV_TARGET : 0) |
			   (mine_next ? CORECAP_KSWITCH_NEXT_TARGET : 0) |
			   (preempted ? CORECAP_KSWITCH_PREEMPTED : 0);
		if (!mine_next)
			kernel_holders_meet(&k->holders, next);
		k->stats.records[ev]++;
		if (mine_prev) {
			remember(k, kc, STACK_SWITCH, prev, s.time_ns);
			kc->seen_in_tick[STACK_SWITCH]++;
		}
		break;
	}
	case CORECAP_KTP_WAKING: {
		int32_t tid = (int32_t)field(k, F_WAKING_PID, &s);
		int64_t flags = field(k, F_WAKING_COMMON_FLAGS, &s);
		struct corecap_krec_waking *r;

		if (!kernel_tids_has(k, tid)) {
			k->stats.foreign++;
			break;
		}
		r = kernel_out_reserve(k, CORECAP_KREC_WAKING, sizeof(*r), cpu, s.time_ns);
		if (!r)
			break;
		r->tid = tid;
		r->waker_tid = (int32_t)s.tid;
		r->target_cpu = (int32_t)field(k, F_WAKING_TARGET_CPU, &s);
		/* trace_flag_type: HARDIRQ 0x08, SOFTIRQ 0x10, NMI 0x40. */
		r->flags = ((flags & 0x08) ? CORECAP_KWAKING_HARDIRQ : 0) |
			   ((flags & 0x10) ? CORECAP_KWAKING_SOFTIRQ : 0) |
			   ((flags & 0x40) ? CORECAP_KWAKING_NMI : 0);
		k->stats.records[ev]++;
		break;
	}
	case CORECAP_KTP_FUTEX_ENTER: {
		struct corecap_krec_futex_enter *r =
			own_record(k, &s, ev, CORECAP_KREC_FUTEX_ENTER, sizeof(*r), cpu);

		if (!r)
			break;
		r->op = (uint32_t)field(k, F_FUTEX_ENTER_OP, &s);
		r->uaddr = (uint64_t)field(k, F_FUTEX_ENTER_UADDR, &s);
		r->val = (uint32_t)field(k, F_FUTEX_ENTER_VAL, &s);
		r->val3 = (uint32_t)field(k, F_FUTEX_ENTER_VAL3, &s);
		r->uaddr2 = (uint64_t)field(k, F_FUTEX_ENTER_UADDR2, &s);
		r->utime = (uint64_t)field(k, F_FUTEX_ENTER_UTIME, &s);
		if (CORECAP_FUTEX_IS_WAIT(r->op)) {
			remember(k, kc, STACK_FUTEX, r->tid, s.time_ns);
			kc->seen_in_tick[STACK_FUTEX]++;
		}
		break;
	}
	case CORECAP_KTP_FUTEX_EXIT: {
		struct corecap_krec_futex_exit *r =
			own_record(k, &s, ev, CORECAP_KREC_FUTEX_EXIT, sizeof(*r), cpu);

		if (r)
			r->ret = field(k, F_FUTEX_EXIT_RET, &s);
		break;
	}
	case CORECAP_KTP_FORK:
		if (s.pid == (uint32_t)k->pid)
			on_fork(k, &s, cpu);
		else
			k->stats.foreign++;
		break;
	case CORECAP_KTP_EXIT: {
		struct corecap_krec_exit *r =
			own_record(k, &s, ev, CORECAP_KREC_EXIT, sizeof(*r), cpu);

		if (!r)
			break;
		r->flags = field(k, F_EXIT_GROUP_DEAD, &s) ? CORECAP_KEXIT_GROUP_DEAD : 0;
		field_str(k, F_EXIT_COMM, &s, r->comm);
		break;
	}
	case EV_STACK_FUTEX:
	case EV_STACK_SWITCH: {
		int kind = ev == EV_STACK_FUTEX ? STACK_FUTEX : STACK_SWITCH;

		burst_guard(k, kc, kind);
		if (s.pid == (uint32_t)k->pid)
			on_stack(k, kc, kind, &s);
		break;
	}
	}
}

static void on_lost(struct corecap_kernel_events *k, uint32_t cpu, const unsigned char *p,
		    size_t len)
{
	/* id, lost, then sample_id: pid/tid, time, cpu/res, identifier. */
	size_t off = sizeof(struct perf_event_header);
	uint64_t lost, time_ns = corecap_now_ns();
	struct corecap_krec_lost *r;

	if (off + 16 > len)
		return;
	memcpy(&lost, p + off + 8, 8);
	if (off + 16 + 8 + 8 <= len) {
		memcpy(&time_ns, p + off + 16 + 8, 8);
		time_ns += (uint64_t)k->clock_offset_ns;
	}
	k->stats.lost_total += lost;
	k->stats.lost_per_cpu[cpu] += lost;
	r = kernel_out_reserve(k, CORECAP_KREC_LOST, sizeof(*r), cpu, time_ns);
	if (r)
		r->lost = lost;
}

void kernel_perf_drain_cpu(struct corecap_kernel_events *k, int cpu)
{
	struct kernel_cpu *kc = &k->cpus[cpu];
	struct perf_event_mmap_page *pg = kc->ring;
	unsigned char *data;
	uint64_t head, tail, size;

	if (!pg)
		return;
	data = (unsigned char *)pg + pg->data_offset;
	size = pg->data_size;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (tail < head) {
		struct perf_event_header hdr;
		uint64_t at = tail % size;
		const unsigned char *rec;

		if (at + sizeof(hdr) <= size) {
			memcpy(&hdr, data + at, sizeof(hdr));
		} else {
			memcpy(&hdr, data + at, size - at);
			memcpy((unsigned char *)&hdr + (size - at), data,
			       sizeof(hdr) - (size - at));
		}
		if (hdr.size < sizeof(hdr) || tail + hdr.size > head)
			break;
		if (at + hdr.size <= size) {
			rec = data + at;
		} else {
			memcpy(k->copy, data + at, size - at);
			memcpy(k->copy + (size - at), data, hdr.size - (size - at));
			rec = k->copy;
		}
		if (hdr.type == PERF_RECORD_SAMPLE)
			on_sample(k, kc, (uint32_t)cpu, rec, hdr.size);
		else if (hdr.type == PERF_RECORD_LOST)
			on_lost(k, (uint32_t)cpu, rec, hdr.size);
		tail += hdr.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	kc->dup.check = false; /* the old set's samples are all read */
}

/*
 * Keeps each CPU's stack samples near its share of the rate bounds: the
 * plain records of the last interval say how many futex waits and
 * switch-outs the CPU saw, and the period (every Nth one gets a stack) is
 * set so that the next interval at the same rate stays under the bound.
 */
void kernel_perf_adjust_periods(struct corecap_kernel_events *k, uint64_t interval_ns)
{
	uint64_t online = kernel_online_cpus(k);

	for (int c = 0; c < k->nr_cpus && interval_ns > 0; c++) {
		struct kernel_cpu *kc = &k->cpus[c];

		for (int kind = 0; kind < STACK_KINDS && kc->online; kind++) {
			/* this CPU's events against its share of the bound */
			uint64_t p = kernel_next_period(kc->seen_in_tick[kind], interval_ns, online,
							kind, kc->period[kind]);

			kc->taken_in_tick[kind] = 0;
			if (p != kc->period[kind] &&
			    ioctl(kc->fd[kind == STACK_FUTEX ? EV_STACK_FUTEX : EV_STACK_SWITCH],
				  PERF_EVENT_IOC_PERIOD, &p) == 0)
				kc->period[kind] = p;
			kc->seen_in_tick[kind] = 0;
		}
	}
}

/*
 * perf: a cpu-clock event per CPU into the CPU's ring, sampling whatever
 * runs there (a cpu-clock sample has no tracepoint filter; the reader
 * keeps the target's), with the user registers and stack; eBPF: the same
 * event with on_cpu_clock attached, which keeps the target's in the
 * kernel. A sampler that cannot start leaves the run without on-CPU
 * stacks, and says so: the rest of the kernel events go on.
 */
void kernel_start_oncpu(struct corecap_kernel_events *k)
{
	char why[512] = "";
	bool *online = calloc((size_t)k->nr_cpus, sizeof(*online));
	int ret = online ? 0 : -ENOMEM;

	for (int c = 0; online && c < k->nr_cpus; c++)
		online[c] = k->cpus[c].online;
	if (ret == 0 && k->bpf) {
		ret = corecap_kernel_bpf_attach_cpu_clock(k->bpf, k->oncpu_hz, online, k->nr_cpus,
							  why, sizeof(why));
	} else if (ret == 0) {
		for (int c = 0; c < k->nr_cpus && ret == 0; c++) {
			struct kernel_cpu *kc = &k->cpus[c];
			struct perf_event_attr a = base_attr(k);

			if (!kc->online)
				continue;
			a.type = PERF_TYPE_SOFTWARE;
			a.config = PERF_COUNT_SW_CPU_CLOCK;
			a.sample_period = 1000000000ull / k->oncpu_hz; /* ns of CPU time */
			a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a.sample_regs_user = CORECAP_KUNWIND_REGS_MASK;
			a.sample_stack_user = CORECAP_KERNEL_STACK_USER_BYTES;
			a.exclude_callchain_kernel = 1;
			a.disabled = 0;
			kc->clock_fd = perf_open(&a, c);
			if (kc->clock_fd < 0 ||
			    ioctl(kc->clock_fd, PERF_EVENT_IOC_ID, &kc->clock_id) < 0 ||
			    ioctl(kc->clock_fd, PERF_EVENT_IOC_SET_OUTPUT, kc->ring_fd) < 0) {
				ret = -errno;
				snprintf(why, sizeof(why),
					 "cannot open a cpu-clock perf event on CPU %d: %s", c,
					 strerror(errno));
			}
		}
		for (int c = 0; c < k->nr_cpus && ret < 0; c++) {
			if (k->cpus[c].clock_fd >= 0)
				close(k->cpus[c].clock_fd);
			k->cpus[c].clock_fd = -1;
		}
	}
	free(online);
	if (ret < 0) {
		corecap_warn(
			"kernel events: no on-CPU stacks (%s): the run has no wall-clock samples",
			why[0] ? why : strerror(-ret));
		k->oncpu_hz = 0;
	}
}
