#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
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
#include "kernel_unwind.h"
#include "timens.h"
#include "proc_stat.h"
#include "run_dir.h"
#include "mono_clock.h"
#include <corecap/run_format.h>

#define TRACEFS_MAGIC	  0x74726163
#define DRAIN_TIMEOUT_MS  20
#define DRAIN_BUSY_MS	  2		/* the eBPF ring's drain when it fills fast */
#define ADJUST_NS	  50000000ull	/* stack sampling periods adapted every 50 ms */
#define INITIAL_PERIOD	  64u		/* until the first adjustment */
#define RESCAN_NS	  1000000000ull /* /proc/PID/task re-read once a second */
#define MATCH_NS	  200000ull	/* a stack sample and its record are this close */
#define FILTER_MAX_BYTES  4000u		/* the kernel takes less than a page */
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT	  38
#define MAX_RECORD_BYTES  65536u
#define DUP_NS		  20000ull /* two sets' copies of one hit: written back to back */

/* Perf events per CPU: one per tracepoint, and the two stack samplers. */
enum { EV_STACK_FUTEX = CORECAP_KTP_N, EV_STACK_SWITCH, EV_N };
/* STACK_CPU: a cpu-clock sample's (no rate bound of its own: the clock is one). */
enum { STACK_FUTEX, STACK_SWITCH, STACK_KINDS, STACK_CPU = STACK_KINDS };

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

struct kernel_stack_ref {
	uint64_t raw_off; /* in stacks.raw */
	uint64_t event_time_ns;
	uint32_t cpu;
	int32_t tid;
	uint16_t kind; /* CORECAP_KSTACK_FUTEX or _SWITCH */
	bool matched;  /* event_time_ns is that of the record of the same hit */
	bool oncpu;    /* a cpu-clock sample's: unwound into wall.samples */
};

struct kernel_cpu {
	bool online;
	int ring_fd;		/* owns the ring; the tracepoint events write into it */
	int fd[EV_N];		/* the current event set */
	int clock_fd;		/* perf: the cpu-clock sampler (on-CPU stacks), or -1 */
	uint64_t clock_id;	/* its sample id */
	uint64_t id[EV_N];	/* its sample ids */
	uint64_t prev_id[EV_N]; /* the previous set's, whose samples may still be in the ring */
	void *ring;
	size_t ring_bytes;
	uint64_t lost;
	uint64_t period[STACK_KINDS];
	uint64_t seen_in_tick[STACK_KINDS]; /* futex waits, switch-outs since the last adjustment */
	uint64_t taken_in_tick[STACK_KINDS]; /* stack samples since then */
	/* The last plain record and the last unmatched stack of each kind, to
	 * join a stack sample to the record of the same tracepoint hit. */
	struct {
		int32_t tid;
		uint64_t time_ns;
		bool valid;
	} last[STACK_KINDS];
	/* The last sample, for the copies of a hit two overlapping sets recorded;
	 * looked at only from a swap to the end of the drain after it (`check`),
	 * which reads whatever the old set wrote before it was disabled. */
	struct {
		bool check, valid, old;
		int ev;
		uint64_t hash, time_ns;
	} dup;
	struct {
		size_t idx;
		bool valid;
	} pending[STACK_KINDS];
};

/* Raw stack copy header in stacks.raw (internal: never left in a finished run). */
struct raw_stack {
	uint64_t time_ns;
	int32_t tid;
	uint32_t cpu;
	uint64_t regs[CORECAP_KUNWIND_NREGS];
	uint64_t size; /* bytes of stack that follow */
	uint64_t dyn_size;
};

static int open_sets(struct corecap_kernel_events *k, bool enabled, char *why, size_t why_size);

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

/* Thread ids of the target. */

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static bool has_sorted(const pid_t *v, size_t n, pid_t tid)
{
	return tid > 0 && n > 0 && bsearch(&tid, v, n, sizeof(pid_t), cmp_tid) != NULL;
}

static bool has_tid(const struct corecap_kernel_events *k, pid_t tid)
{
	return has_sorted(k->tids, k->n_tids, tid);
}

static int add_tid(struct corecap_kernel_events *k, pid_t tid)
{
	size_t i;

	if (has_tid(k, tid))
		return 0;
	if (k->n_tids == k->cap_tids) {
		size_t cap = k->cap_tids ? 2 * k->cap_tids : 256;
		pid_t *t = realloc(k->tids, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		k->tids = t;
		k->cap_tids = cap;
	}
	for (i = k->n_tids; i > 0 && k->tids[i - 1] > tid; i--)
		k->tids[i] = k->tids[i - 1];
	k->tids[i] = tid;
	k->n_tids++;
	k->tids_changed = true;
	return 1;
}

static void thread_comm(pid_t pid, pid_t tid, char comm[16])
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	corecap_read_comm(path, comm);
}

/* Output buffer: whole records, flushed with one write(2). */

static void *out_reserve(struct corecap_kernel_events *k, uint16_t type, uint16_t size,
			 uint32_t cpu, uint64_t time_ns)
{
	struct corecap_krec *h;

	if (k->out_len + size > k->out_cap) {
		size_t cap = k->out_cap ? 2 * k->out_cap : (1u << 20);
		unsigned char *p;

		while (cap < k->out_len + size)
			cap *= 2;
		p = realloc(k->out, cap);
		if (!p)
			return NULL;
		k->out = p;
		k->out_cap = cap;
	}
	h = (struct corecap_krec *)(k->out + k->out_len);
	memset(h, 0, size);
	h->type = type;
	h->size = size;
	h->cpu = cpu;
	h->time_ns = time_ns;
	k->out_len += size;
	return h;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void out_flush(struct corecap_kernel_events *k)
{
	if (k->out_len == 0)
		return;
	if (!k->stats.write_error && write_all(k->events_fd, k->out, k->out_len) == 0)
		k->stats.events_bytes += k->out_len;
	else
		k->stats.write_error = true;
	k->out_len = 0;
}

static void track(struct corecap_kernel_events *k, pid_t tid, uint32_t reason)
{
	struct corecap_krec_track *t =
		out_reserve(k, CORECAP_KREC_TRACK, sizeof(*t), 0, corecap_now_ns());

	if (!t)
		return;
	t->tid = tid;
	t->reason = reason;
	thread_comm(k->pid, tid, t->comm);
	k->stats.track++;
}

/* Adds the threads of /proc/PID/task not known yet. */
static void scan_tasks(struct corecap_kernel_events *k)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)k->pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid > 0)
			add_tid(k, (pid_t)tid);
	}
	closedir(d);
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

static bool cpu_online(int cpu)
{
	char path[96], buf[8];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	/* cpu0 often has no such file: it cannot go offline. */
	return !read_small_file(path, buf, sizeof(buf)) || buf[0] != '0';
}

/* Ring bytes per CPU: CORECAP_KERNEL_RING_KB (a power of two, at least
 * two pages), else the default. */
static size_t ring_bytes(void)
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
static int open_ring(struct corecap_kernel_events *k, int cpu, char *why, size_t why_size)
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

static void close_cpus(struct corecap_kernel_events *k)
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

static int write_file_header(int fd, uint64_t magic, const struct corecap_kernel_events *k,
			     uint32_t stack_user_bytes)
{
	struct corecap_kfile_header h = {
		.magic = magic,
		.version = CORECAP_KERNEL_FORMAT_VERSION,
		.header_bytes = sizeof(h),
		.pid = (uint32_t)k->pid,
		.nr_cpus = (uint32_t)k->nr_cpus,
		.clock_id = CORECAP_KERNEL_CLOCK_MONOTONIC,
		.flags = k->stats.kernel_filter ? CORECAP_KFILE_KERNEL_FILTER : 0,
		.created_ns = corecap_now_ns(),
		.stack_user_bytes = stack_user_bytes,
	};

	return write_all(fd, &h, sizeof(h));
}

const char *corecap_kernel_events_producer(const struct corecap_kernel_events *k)
{
	return k->bpf ? "bpf" : "perf";
}

/* The eBPF producer's one ring: twice the perf rings' bytes of every CPU
 * (its records are 80 bytes, perf's 32 to 56 with their sample headers),
 * rounded up to a power of two. */
static size_t bpf_ring_bytes(const struct corecap_kernel_events *k)
{
	size_t want = 2 * k->ring_bytes * (size_t)(k->nr_cpus > 0 ? k->nr_cpus : 1), n = 4096;

	while (n < want)
		n *= 2;
	return n;
}

/* The eBPF producer, when `via` lets it and it loads: 0 (k->bpf set, or
 * left NULL for perf under AUTO), or -errno when BPF was required. */
static int open_bpf(struct corecap_kernel_events *k, enum corecap_kernel_via via, char *why,
		    size_t why_size)
{
	char bwhy[512];
	int ret;

	if (via == CORECAP_KERNEL_VIA_PERF)
		return 0;
	ret = corecap_kernel_bpf_open(&k->bpf, k->pid, bpf_ring_bytes(k), bwhy, sizeof(bwhy));
	/* Attached once and at once detached: what cannot attach fails here,
	 * where perf can still take over, rather than at the window's start. */
	if (ret == 0 && (ret = corecap_kernel_bpf_attach(k->bpf, bwhy, sizeof(bwhy))) == 0) {
		corecap_kernel_bpf_detach(k->bpf);
		k->bpf_counts = calloc((size_t)k->nr_cpus, sizeof(*k->bpf_counts));
		if (k->bpf_counts) {
			k->ring_bytes = bpf_ring_bytes(k);
			k->stats.kernel_filter = true; /* the programs' tgid test */
			return 0;
		}
		ret = -ENOMEM;
		snprintf(bwhy, sizeof(bwhy), "out of memory");
	}
	corecap_kernel_bpf_close(k->bpf);
	k->bpf = NULL;
	free(k->bpf_counts);
	k->bpf_counts = NULL;
	if (via == CORECAP_KERNEL_VIA_BPF) {
		snprintf(why, why_size, "%s", bwhy);
		return ret;
	}
	if (ret != -ENOTSUP)
		corecap_note("kernel events through perf_event_open(2): %s", bwhy);
	return 0;
}

int corecap_kernel_events_init(struct corecap_kernel_events *k, pid_t pid,
			       struct corecap_run_dir *rd, enum corecap_kernel_via via, char *why,
			       size_t why_size)
{
	int ret;

	memset(k, 0, sizeof(*k));
	k->pid = pid;
	k->rd = rd;
	k->events_fd = k->raw_fd = -1;
	for (int tp = 0; tp < CORECAP_KTP_N; tp++) {
		ret = corecap_tp_format_load(&k->fmt[tp], CORECAP_TRACEFS, tp_names[tp].system,
					     tp_names[tp].event, why, why_size);
		if (ret == -EACCES || ret == -EPERM) {
			size_t n = strlen(why);

			snprintf(why + n, why_size - n,
				 " (tracefs is readable by root only: run as root)");
		}
		if (ret < 0)
			goto out;
	}
	for (int f = 0; f < F_N; f++) {
		k->fields[f] =
			corecap_tp_format_field(&k->fmt[field_names[f].tp], field_names[f].name);
		if (!k->fields[f]) {
			ret = -EINVAL;
			snprintf(why, why_size, "this kernel's %s has no field '%s'",
				 k->fmt[field_names[f].tp].name, field_names[f].name);
			goto out;
		}
	}
	/* No time namespaces in this kernel (-ENOENT) is the initial one's 0. */
	ret = corecap_timens_monotonic_offset(0, &k->clock_offset_ns);
	if (ret < 0 && ret != -ENOENT) {
		snprintf(why, why_size, "cannot read this process's time namespace offset: %s",
			 strerror(-ret));
		goto out;
	}
	/* Into the run's clock, the daemon's when its namespace is not ours (mono_clock.h). */
	k->clock_offset_ns += corecap_run_clock_shift_ns;
	k->ring_bytes = ring_bytes();
	k->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (k->nr_cpus < 1)
		k->nr_cpus = 1;
	k->cpus = calloc((size_t)k->nr_cpus, sizeof(*k->cpus));
	k->stats.lost_per_cpu = calloc((size_t)k->nr_cpus, sizeof(uint64_t));
	k->copy = malloc(MAX_RECORD_BYTES);
	if (!k->cpus || !k->stats.lost_per_cpu || !k->copy) {
		ret = -ENOMEM;
		snprintf(why, why_size, "out of memory");
		goto out_free;
	}
	for (int c = 0; c < k->nr_cpus; c++) {
		struct kernel_cpu *kc = &k->cpus[c];

		kc->ring_fd = kc->clock_fd = -1;
		for (int ev = 0; ev < EV_N; ev++)
			kc->fd[ev] = -1;
		kc->period[STACK_FUTEX] = kc->period[STACK_SWITCH] = INITIAL_PERIOD;
	}
	scan_tasks(k);
	if (k->n_tids == 0) {
		ret = -ESRCH;
		snprintf(why, why_size, "cannot list the threads of PID %d", (int)pid);
		goto out_close;
	}
	ret = open_bpf(k, via, why, why_size);
	if (ret < 0)
		goto out_close;
	for (int c = 0; c < k->nr_cpus; c++) {
		if (!cpu_online(c))
			continue;
		k->cpus[c].online = true;
		if (!k->bpf && (ret = open_ring(k, c, why, why_size)) < 0)
			goto out_close;
	}
	if (!k->bpf && (ret = open_sets(k, false, why, why_size)) < 0)
		goto out_close;
	ret = mkdirat(rd->dirfd, CORECAP_KERNEL_DIR, 0700) < 0 ? -errno : 0;
	if (ret < 0) {
		snprintf(why, why_size, "cannot create '%s/%s': %s", rd->path, CORECAP_KERNEL_DIR,
			 strerror(-ret));
		goto out_close;
	}
	ret = corecap_run_dir_create_file(rd, CORECAP_KERNEL_EVENTS_FILE, &k->events_fd);
	if (ret == 0)
		ret = corecap_run_dir_create_file(rd, CORECAP_KERNEL_RAW_FILE, &k->raw_fd);
	if (ret == 0)
		ret = write_file_header(k->events_fd, CORECAP_KERNEL_MAGIC_EVENTS, k, 0);
	if (ret < 0) {
		snprintf(why, why_size, "cannot write '%s/%s': %s", rd->path,
			 CORECAP_KERNEL_EVENTS_FILE, strerror(-ret));
		goto out_close;
	}
	k->stats.events_bytes = sizeof(struct corecap_kfile_header);
	k->stats.complete = true;
	goto out;
out_close:
	if (k->events_fd >= 0) {
		close(k->events_fd);
		unlinkat(rd->dirfd, CORECAP_KERNEL_EVENTS_FILE, 0);
	}
	if (k->raw_fd >= 0) {
		close(k->raw_fd);
		unlinkat(rd->dirfd, CORECAP_KERNEL_RAW_FILE, 0);
	}
	unlinkat(rd->dirfd, CORECAP_KERNEL_DIR, AT_REMOVEDIR);
	k->events_fd = k->raw_fd = -1;
	close_cpus(k);
	corecap_kernel_bpf_close(k->bpf);
	k->bpf = NULL;
	free(k->bpf_counts);
	k->bpf_counts = NULL;
out_free:
	free(k->cpus);
	free(k->stats.lost_per_cpu);
	free(k->copy);
	free(k->tids);
	free(k->out);
	k->cpus = NULL;
	k->stats.lost_per_cpu = NULL;
	k->copy = NULL;
	k->tids = NULL;
	k->out = NULL;
out:
	return ret;
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
static int open_sets(struct corecap_kernel_events *k, bool enabled, char *why, size_t why_size)
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

/* New threads: TRACK records, and events that let them in. */
static void follow_new_threads(struct corecap_kernel_events *k, uint32_t reason, bool enabled)
{
	char why[512];

	if (!k->tids_changed)
		return;
	if (!k->bpf && open_sets(k, enabled, why, sizeof(why)) < 0 && !k->follow_failed) {
		corecap_warn("kernel events: cannot follow the target's new threads: %s", why);
		k->follow_failed = true;
		k->stats.complete = false;
	}
	for (size_t i = 0; i < k->n_tids; i++)
		if (!k->tracked || !has_sorted(k->tracked, k->n_tracked, k->tids[i]))
			track(k, k->tids[i], reason);
	free(k->tracked);
	k->tracked = malloc(k->n_tids * sizeof(pid_t));
	if (k->tracked)
		memcpy(k->tracked, k->tids, k->n_tids * sizeof(pid_t));
	k->n_tracked = k->tracked ? k->n_tids : 0;
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

static bool parse_sample(const unsigned char *p, size_t len, bool with_stack, int64_t clock_offset_ns,
			 struct sample *s)
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

static char state_char(int64_t state, bool *preempted)
{
	static const char letters[] = "SDTtXZPI";
	uint64_t v = (uint64_t)state;

	*preempted = (v & 0x100) != 0;
	if ((v & 0xff) == 0)
		return 'R';
	for (int b = 0; b < 8; b++)
		if (v & (1u << b))
			return letters[b];
	return '?';
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
static const unsigned stack_bound_hz[STACK_KINDS] = {CORECAP_KERNEL_FUTEX_STACK_HZ,
						     CORECAP_KERNEL_SWITCH_STACK_HZ};

static uint64_t online_cpus(const struct corecap_kernel_events *k)
{
	uint64_t online = 0;

	for (int c = 0; c < k->nr_cpus; c++)
		online += k->cpus[c].online;
	return online;
}

/* A burst's bound: stacks of a kind per CPU in one 50 ms interval. */
static uint64_t burst_limit(const struct corecap_kernel_events *k, int kind)
{
	uint64_t online = online_cpus(k), limit = 4 * stack_bound_hz[kind] * ADJUST_NS /
						  1000000000ull / (online ? online : 1);

	return limit < 8 ? 8 : limit;
}

/*
 * The next stack period: `events` hits over interval_ns, of which the
 * bound's 1/`share` may have a stack, rounded up; down at most 4-fold
 * from `old` (a burst after a quiet spell must not find period 1).
 */
static uint64_t next_period(uint64_t events, uint64_t interval_ns, uint64_t share, int kind,
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

static void burst_guard(struct corecap_kernel_events *k, struct kernel_cpu *kc, int kind)
{
	uint64_t p;

	if (++kc->taken_in_tick[kind] <= burst_limit(k, kind))
		return;
	p = kc->period[kind] * 16;
	if (p <= (1ull << 24) &&
	    ioctl(kc->fd[kind == STACK_FUTEX ? EV_STACK_FUTEX : EV_STACK_SWITCH],
		  PERF_EVENT_IOC_PERIOD, &p) == 0)
		kc->period[kind] = p;
	kc->taken_in_tick[kind] = 0;
}

/*
 * A user-stack copy into stacks.raw, to unwind after the window: dyn_size
 * bytes of stack (of stack_size copied) with regs, of the hit at time_ns;
 * its ref is the last of k->stacks. False when it was not kept.
 */
static bool store_stack(struct corecap_kernel_events *k, int kind, int32_t tid, uint32_t cpu,
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
	if (write_all(k->raw_fd, &rs, sizeof(rs)) < 0 || write_all(k->raw_fd, stack, rs.size) < 0) {
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

static void on_stack(struct corecap_kernel_events *k, struct kernel_cpu *kc, int kind,
		     const struct sample *s)
{
	struct kernel_stack_ref *ref;

	if (!store_stack(k, kind, (int32_t)s->tid, s->cpu, s->time_ns, s->regs, s->stack,
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

	r = out_reserve(k, CORECAP_KREC_FORK, sizeof(*r), cpu, s->time_ns);
	if (!r)
		return;
	r->parent_tid = (int32_t)field(k, F_FORK_PARENT_PID, s);
	r->child_tid = child;
	field_str(k, F_FORK_CHILD_COMM, s, r->child_comm);
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)k->pid, (int)child);
	if (stat(path, &st) == 0) {
		r->flags = CORECAP_KFORK_SAME_PROCESS;
		k->stats.records[CORECAP_KTP_FORK]++;
		add_tid(k, child);
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
	r = out_reserve(k, type, size, cpu, s->time_ns);
	if (r) {
		memcpy(r + sizeof(struct corecap_krec), &tid, sizeof(tid));
		k->stats.records[ev]++;
	}
	return r;
}

/*
 * Whether s, of event ev from the old set (`old`) or the current one, is
 * the second copy of a hit both sets recorded while they overlapped
 * (open_sets): the same event and raw record as the sample just before it
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
			store_stack(k, STACK_CPU, (int32_t)s.tid, s.cpu, s.time_ns, s.regs, s.stack,
				    s.stack_size, s.dyn_size);
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
		bool mine_prev = s.pid == (uint32_t)k->pid, mine_next = has_tid(k, next);
		struct corecap_krec_switch *r;
		bool preempted;

		if (!mine_prev && !mine_next) {
			k->stats.foreign++;
			break;
		}
		r = out_reserve(k, CORECAP_KREC_SWITCH, sizeof(*r), cpu, s.time_ns);
		if (!r)
			break;
		r->prev_tid = prev;
		r->next_tid = next;
		r->prev_state = field(k, F_SWITCH_PREV_STATE, &s);
		r->prev_state_char = (uint8_t)state_char(r->prev_state, &preempted);
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

		if (!has_tid(k, tid)) {
			k->stats.foreign++;
			break;
		}
		r = out_reserve(k, CORECAP_KREC_WAKING, sizeof(*r), cpu, s.time_ns);
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
	r = out_reserve(k, CORECAP_KREC_LOST, sizeof(*r), cpu, time_ns);
	if (r)
		r->lost = lost;
}

static void drain_cpu(struct corecap_kernel_events *k, int cpu)
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
static void adjust_periods(struct corecap_kernel_events *k, uint64_t interval_ns)
{
	uint64_t online = online_cpus(k);

	for (int c = 0; c < k->nr_cpus && interval_ns > 0; c++) {
		struct kernel_cpu *kc = &k->cpus[c];

		for (int kind = 0; kind < STACK_KINDS && kc->online; kind++) {
			/* this CPU's events against its share of the bound */
			uint64_t p = next_period(kc->seen_in_tick[kind], interval_ns, online, kind,
						 kc->period[kind]);

			kc->taken_in_tick[kind] = 0;
			if (p != kc->period[kind] &&
			    ioctl(kc->fd[kind == STACK_FUTEX ? EV_STACK_FUTEX : EV_STACK_SWITCH],
				  PERF_EVENT_IOC_PERIOD, &p) == 0)
				kc->period[kind] = p;
			kc->seen_in_tick[kind] = 0;
		}
	}
}

/* The eBPF producer's records. */

_Static_assert(KBPF_STACK_BYTES == CORECAP_KERNEL_STACK_USER_BYTES, "the programs' stack copy");
_Static_assert(KBPF_NREGS == CORECAP_KUNWIND_NREGS, "the programs' registers, the unwinder's");

/*
 * sched_switch's prev_state as its tracepoint reports it
 * (__trace_sched_switch_state): TASK_REPORT_MAX (0x100) when preempted,
 * else the highest bit of the reported state (TASK_REPORT 0x7f of the
 * task's and its exit state; TASK_IDLE 0x402 reports as 0x80, a
 * TASK_RTLOCK_WAIT 0x1000 sleep as D).
 */
static int64_t reported_state(uint32_t state, uint32_t exit_state, bool preempt)
{
	uint32_t r = (state | exit_state) & 0x7f;

	if (preempt)
		return 0x100;
	if (state == 0x402)
		r = 0x80;
	if (state & 0x1000)
		r = 0x2;
	return r ? (int64_t)1 << (31 - __builtin_clz(r)) : 0;
}

/* The run's record for ring record r, counted as tracepoint tp's, at
 * r's time plus dt ns. */
static void *bpf_out_at(struct corecap_kernel_events *k, const struct kbpf_rec *r, uint16_t type,
			uint16_t size, int tp, int64_t dt)
{
	void *o = out_reserve(k, type, size, r->cpu,
			      r->time_ns + (uint64_t)k->clock_offset_ns + (uint64_t)dt);

	if (o)
		k->stats.records[tp]++;
	return o;
}

static void *bpf_out(struct corecap_kernel_events *k, const struct kbpf_rec *r, uint16_t type,
		     uint16_t size, int tp)
{
	return bpf_out_at(k, r, type, size, tp, 0);
}

/*
 * The futex call's entry a switch or waking ring record carries
 * (KBPF_WITH_ENTER), thread tid's, 1 ns before the record: it was its
 * own ring record just before the switch or waking until the programs
 * folded it in, and a reader orders the run's records by time.
 */
static void bpf_futex_enter(struct corecap_kernel_events *k, const struct kbpf_rec *r, int32_t tid,
			    const struct kbpf_futex_enter *f)
{
	struct corecap_krec_futex_enter *fe = bpf_out_at(k, r, CORECAP_KREC_FUTEX_ENTER,
							 sizeof(*fe), CORECAP_KTP_FUTEX_ENTER, -1);

	if (!fe)
		return;
	fe->tid = tid;
	fe->op = f->op;
	fe->val = f->val;
	fe->uaddr = f->uaddr;
	fe->uaddr2 = f->uaddr2;
	fe->utime = f->utime;
	fe->val3 = f->val3;
}

/* The end of thread tid's futex call (KBPF_WITH_EXIT), 1 ns after the
 * record, its result unknown: the programs see the call before it returns
 * (ret stays 0). */
static void bpf_futex_exit(struct corecap_kernel_events *k, const struct kbpf_rec *r, int32_t tid)
{
	struct corecap_krec_futex_exit *fx =
		bpf_out_at(k, r, CORECAP_KREC_FUTEX_EXIT, sizeof(*fx), CORECAP_KTP_FUTEX_EXIT, 1);

	if (!fx)
		return;
	fx->tid = tid;
	fx->flags = CORECAP_KFUTEX_RESULT_UNKNOWN;
}

/* A switch record's fields from ring record r. */
static void switch_fill(struct corecap_kernel_events *k, const struct kbpf_rec *r,
			struct corecap_krec_switch *o)
{
	bool preempted;

	o->prev_tid = r->tid;
	o->next_tid = r->sw.next_tid;
	o->prev_state =
		reported_state(r->sw.prev_state, r->sw.prev_exit_state, r->flags & KBPF_PREEMPT);
	o->prev_state_char = (uint8_t)state_char(o->prev_state, &preempted);
	o->flags = ((r->flags & KBPF_PREV_TARGET) ? CORECAP_KSWITCH_PREV_TARGET : 0) |
		   ((r->flags & KBPF_NEXT_TARGET) ? CORECAP_KSWITCH_NEXT_TARGET : 0) |
		   (preempted ? CORECAP_KSWITCH_PREEMPTED : 0);
	if (!(r->flags & KBPF_NEXT_TARGET))
		kernel_holders_meet(&k->holders, r->sw.next_tid);
}

static void on_bpf_switch(struct corecap_kernel_events *k, const struct kbpf_rec *r)
{
	struct corecap_krec_switch *o;

	/* In time order: the entry, the switch, the end. */
	if (r->flags & KBPF_WITH_ENTER)
		bpf_futex_enter(k, r, r->tid, &r->sw.futex);
	if ((o = bpf_out(k, r, CORECAP_KREC_SWITCH, sizeof(*o), CORECAP_KTP_SWITCH)))
		switch_fill(k, r, o);
	if (r->flags & KBPF_WITH_EXIT)
		bpf_futex_exit(k, r, r->sw.next_tid);
}

static void on_bpf_fork(struct corecap_kernel_events *k, const struct kbpf_rec *r)
{
	struct corecap_krec_fork *o =
		bpf_out(k, r, CORECAP_KREC_FORK, sizeof(*o), CORECAP_KTP_FORK);

	if (!o)
		return;
	o->parent_tid = r->tid;
	o->child_tid = r->fork.child_tid;
	memcpy(o->child_comm, r->fork.child_comm, sizeof(o->child_comm) - 1);
	if (r->flags & KBPF_SAME) {
		o->flags = CORECAP_KFORK_SAME_PROCESS;
		add_tid(k, r->fork.child_tid);
	}
}

/* One record of the ring, rewritten as the run's (on_sample's work for perf). */
static void on_bpf(void *ctx, const struct kbpf_rec *r, size_t size)
{
	struct corecap_kernel_events *k = ctx;
	struct corecap_krec_waking *w;
	struct corecap_krec_exit *x;

	k->bpf_drained += size;
	if (r->cpu >= (uint32_t)k->nr_cpus)
		return;
	switch (r->kind) {
	case KBPF_SWITCH:
		on_bpf_switch(k, r);
		break;
	case KBPF_WAKING:
		if (r->flags & KBPF_WITH_ENTER)
			bpf_futex_enter(k, r, r->tid, &r->waking.futex);
		if ((w = bpf_out(k, r, CORECAP_KREC_WAKING, sizeof(*w), CORECAP_KTP_WAKING))) {
			w->tid = r->waking.woken_tid;
			w->waker_tid = r->tid;
			w->target_cpu = (int32_t)r->waking.target_cpu;
			w->flags = (r->flags & KBPF_IRQ) ? CORECAP_KWAKING_IRQ : 0;
		}
		if (r->flags & KBPF_WITH_EXIT)
			bpf_futex_exit(k, r, r->tid);
		break;
	case KBPF_FORK:
		on_bpf_fork(k, r);
		break;
	case KBPF_EXIT:
		if (!(x = bpf_out(k, r, CORECAP_KREC_EXIT, sizeof(*x), CORECAP_KTP_EXIT)))
			break;
		x->tid = r->tid;
		x->flags = (r->flags & KBPF_GROUP_DEAD) ? CORECAP_KEXIT_GROUP_DEAD : 0;
		memcpy(x->comm, r->exit.comm, sizeof(x->comm) - 1);
		break;
	case KBPF_STACK: {
		const struct kbpf_stack *st = (const void *)r;
		int kind = r->copy.kind == KBPF_STACK_FUTEX ? STACK_FUTEX
			   : r->copy.kind == KBPF_STACK_CPU ? STACK_CPU
							    : STACK_SWITCH;

		if (kind == STACK_CPU) {
			if (size >= sizeof(*st))
				store_stack(k, kind, r->tid, r->cpu,
					    r->time_ns + (uint64_t)k->clock_offset_ns,
					    (const uint64_t *)st->regs, st->stack,
					    sizeof(st->stack), r->copy.bytes);
			break;
		}
		/* Stamped with its record's time: matched by construction. */
		if (size >= sizeof(*st) &&
		    store_stack(k, kind, r->tid, r->cpu, r->time_ns + (uint64_t)k->clock_offset_ns,
				(const uint64_t *)st->regs,
				st->stack, sizeof(st->stack), r->copy.bytes))
			k->stacks[k->n_stacks - 1].matched = true;
		break;
	}
	}
}

struct rec_pos {
	uint32_t cpu;
	uint16_t size;
	uint64_t time_ns;
	size_t off;
};

static int cmp_pos(const void *a, const void *b)
{
	const struct rec_pos *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off; /* stable */
}

/*
 * The records from out[from] on, sorted by CPU, then time: the one ring
 * holds every CPU's records in the order they were reserved, and
 * events.bin keeps each CPU's records in time order and together, as a
 * drain of the perf rings writes them. Left as they are when memory runs
 * short (the reader then sorts; only its spans grow).
 */
static void sort_out(struct corecap_kernel_events *k, size_t from)
{
	size_t n = 0, len = k->out_len - from;
	struct rec_pos *v;
	unsigned char *tmp;

	for (size_t off = from; off < k->out_len;
	     off += ((struct corecap_krec *)(k->out + off))->size)
		n++;
	if (n < 2)
		return;
	v = malloc(n * sizeof(*v));
	tmp = malloc(len);
	if (v && tmp) {
		size_t i = 0, at = 0;

		for (size_t off = from; off < k->out_len; i++) {
			const struct corecap_krec *h = (const void *)(k->out + off);

			v[i] = (struct rec_pos){h->cpu, h->size, h->time_ns, off};
			off += h->size;
		}
		qsort(v, n, sizeof(*v), cmp_pos);
		for (i = 0; i < n; i++) {
			memcpy(tmp + at, k->out + v[i].off, v[i].size);
			at += v[i].size;
		}
		memcpy(k->out + from, tmp, len);
	}
	free(v);
	free(tmp);
}

/* The programs' lost records since the last look, as LOST records. */
static void bpf_losses(struct corecap_kernel_events *k, const struct kbpf_counts *c)
{
	uint64_t now = corecap_now_ns(), unreadable = 0, oncpu_lost = 0;

	for (int i = 0; i < k->nr_cpus; i++) {
		uint64_t lost = c[i].lost > k->stats.lost_per_cpu[i]
					? c[i].lost - k->stats.lost_per_cpu[i]
					: 0;
		struct corecap_krec_lost *r;

		unreadable += c[i].stack_failed[0] + c[i].stack_failed[1];
		oncpu_lost += c[i].cpu_failed;
		if (!lost)
			continue;
		k->stats.lost_total += lost;
		k->stats.lost_per_cpu[i] += lost;
		if ((r = out_reserve(k, CORECAP_KREC_LOST, sizeof(*r), (uint32_t)i, now)))
			r->lost = lost;
	}
	k->stats.stacks_unreadable = unreadable;
	k->stats.oncpu_lost = oncpu_lost;
}

static void drain_bpf(struct corecap_kernel_events *k)
{
	size_t from = k->out_len;
	int ret;

	k->bpf_drained = 0;
	ret = corecap_kernel_bpf_drain(k->bpf, on_bpf, k);
	if (ret < 0 && !k->stats.write_error) {
		corecap_warn("kernel events: cannot read the eBPF ring buffer: %s", strerror(-ret));
		k->stats.write_error = true;
	}
	/* Read once per drain, for the losses here and the periods after. */
	k->bpf_counts_read = corecap_kernel_bpf_counts(k->bpf, k->bpf_counts, k->nr_cpus) == 0;
	if (k->bpf_counts_read)
		bpf_losses(k, k->bpf_counts);
	sort_out(k, from);
}

/* Stack periods under eBPF: adjust_periods' rule, with one period for all
 * CPUs (the programs count every CPU's hits alike) and the burst bound
 * enforced by the programs themselves, per CPU and tick. The counts are
 * the drain's just before (reader_main). */
static void adjust_bpf(struct corecap_kernel_events *k, uint64_t interval_ns)
{
	if (interval_ns > 0 && k->bpf_counts_read) {
		for (int kind = 0; kind < STACK_KINDS; kind++) {
			uint64_t seen = 0;

			for (int i = 0; i < k->nr_cpus; i++)
				seen += k->bpf_counts[i].seen[kind];
			k->bpf_period[kind] =
				(uint32_t)next_period(seen - k->bpf_seen[kind], interval_ns, 1,
						      kind, k->bpf_period[kind]);
			k->bpf_seen[kind] = seen;
		}
	}
	corecap_kernel_bpf_set_stacks(
		k->bpf, k->bpf_period[STACK_FUTEX], k->bpf_period[STACK_SWITCH],
		(uint32_t)burst_limit(k, STACK_FUTEX), (uint32_t)burst_limit(k, STACK_SWITCH));
}

/* HOLDER records: for the threads met since the last pass, or (again)
 * for every one whose name changed since it was written (an exec after
 * the collector first looked). */
static void name_holders(struct corecap_kernel_events *k, bool again)
{
	struct kernel_holders *h = &k->holders;
	size_t n = again ? h->n : h->n_fresh;

	for (size_t i = 0; i < n; i++) {
		int32_t tid = again ? h->tid[i] : h->fresh[i], tgid;
		long at = again ? (long)i : kernel_holders_find(h, tid);
		struct corecap_krec_holder *r;
		char comm[16];

		if (at < 0 || !kernel_holders_lookup(tid, comm, &tgid) ||
		    !memcmp(comm, h->comm[at], sizeof(comm)))
			continue;
		if (!(r = out_reserve(k, CORECAP_KREC_HOLDER, sizeof(*r), 0, corecap_now_ns())))
			break;
		r->tid = tid;
		r->tgid = tgid;
		memcpy(r->comm, comm, sizeof(r->comm));
		memcpy(h->comm[at], comm, sizeof(comm));
		k->stats.holders++;
	}
	h->n_fresh = 0;
}

static void drain_all(struct corecap_kernel_events *k)
{
	if (k->bpf)
		drain_bpf(k);
	for (int c = 0; c < k->nr_cpus && !k->bpf; c++)
		drain_cpu(k, c);
	name_holders(k, false);
	out_flush(k);
}

static void window_start(struct corecap_kernel_events *k)
{
	uint64_t t = __atomic_exchange_n(&k->window_start_ns, 0, __ATOMIC_ACQ_REL);
	struct corecap_krec_window *w;

	if (t && (w = out_reserve(k, CORECAP_KREC_WINDOW, sizeof(*w), 0, t)))
		w->what = CORECAP_KWINDOW_START;
}

static void *reader_main(void *arg)
{
	struct corecap_kernel_events *k = arg;
	struct pollfd *pfd = calloc((size_t)k->nr_cpus, sizeof(*pfd));

	for (int c = 0; pfd && c < k->nr_cpus; c++) {
		pfd[c].fd = k->cpus[c].online ? k->cpus[c].ring_fd : -1;
		pfd[c].events = POLLIN;
	}
	while (!__atomic_load_n(&k->stop, __ATOMIC_ACQUIRE)) {
		/* The eBPF ring wakes nobody: when the last drain found it an
		 * eighth full, the next comes sooner, before it overruns. */
		int wait_ms = k->bpf && k->bpf_drained > k->ring_bytes / 8 ? DRAIN_BUSY_MS
									   : DRAIN_TIMEOUT_MS;
		uint64_t t;

		if (pfd)
			poll(pfd, (nfds_t)k->nr_cpus, wait_ms);
		else
			usleep((useconds_t)wait_ms * 1000);
		window_start(k);
		drain_all(k);
		t = corecap_now_ns();
		if (t >= k->next_rescan_ns) {
			scan_tasks(k);
			k->next_rescan_ns = t + RESCAN_NS;
		}
		follow_new_threads(k, CORECAP_KTRACK_FORK, true);
		if (t >= k->next_adjust_ns) {
			if (k->bpf)
				adjust_bpf(k, t - (k->next_adjust_ns - ADJUST_NS));
			else
				adjust_periods(k, t - (k->next_adjust_ns - ADJUST_NS));
			k->next_adjust_ns = t + ADJUST_NS;
		}
		out_flush(k);
	}
	window_start(k);
	drain_all(k);
	name_holders(k, true);
	out_flush(k);
	free(pfd);
	return NULL;
}

void corecap_kernel_events_set_oncpu(struct corecap_kernel_events *k, unsigned hz)
{
	k->oncpu_hz = hz;
}

/*
 * perf: a cpu-clock event per CPU into the CPU's ring, sampling whatever
 * runs there (a cpu-clock sample has no tracepoint filter; the reader
 * keeps the target's), with the user registers and stack; eBPF: the same
 * event with on_cpu_clock attached, which keeps the target's in the
 * kernel. A sampler that cannot start leaves the run without on-CPU
 * stacks, and says so: the rest of the kernel events go on.
 */
static void start_oncpu(struct corecap_kernel_events *k)
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

int corecap_kernel_events_start(struct corecap_kernel_events *k)
{
	int ret = 0;

	/* Threads created since init(), their filters, then the events. */
	scan_tasks(k);
	k->tids_changed = true;
	follow_new_threads(k, CORECAP_KTRACK_START, false);
	if (k->bpf) {
		char why[512];

		k->bpf_period[STACK_FUTEX] = k->bpf_period[STACK_SWITCH] = INITIAL_PERIOD;
		adjust_bpf(k, 0);
		if ((ret = corecap_kernel_bpf_attach(k->bpf, why, sizeof(why))) < 0) {
			corecap_warn("kernel events: %s", why);
			return ret;
		}
	}
	for (int c = 0; c < k->nr_cpus && !k->bpf; c++)
		for (int ev = 0; ev < EV_N && k->cpus[c].online; ev++)
			ioctl(k->cpus[c].fd[ev], PERF_EVENT_IOC_ENABLE, 0);
	if (k->oncpu_hz)
		start_oncpu(k);
	out_flush(k);
	k->next_rescan_ns = corecap_now_ns() + RESCAN_NS;
	k->next_adjust_ns = corecap_now_ns() + ADJUST_NS;
	ret = -pthread_create(&k->reader, NULL, reader_main, k);
	if (ret == 0)
		k->reader_running = true;
	return ret;
}

void corecap_kernel_events_window(struct corecap_kernel_events *k, uint32_t what, uint64_t time_ns)
{
	struct corecap_krec_window *w;

	if (k->events_fd < 0)
		return;
	if (k->reader_running) {
		__atomic_store_n(&k->window_start_ns, time_ns, __ATOMIC_RELEASE);
		return;
	}
	w = out_reserve(k, CORECAP_KREC_WINDOW, sizeof(*w), 0, time_ns);
	if (w)
		w->what = what;
	out_flush(k);
}

void corecap_kernel_events_stop(struct corecap_kernel_events *k)
{
	if (!k->cpus || k->stopped)
		return;
	k->stopped = true;
	corecap_kernel_bpf_detach(k->bpf);
	for (int c = 0; c < k->nr_cpus && !k->bpf; c++) {
		for (int ev = 0; ev < EV_N && k->cpus[c].online; ev++)
			ioctl(k->cpus[c].fd[ev], PERF_EVENT_IOC_DISABLE, 0);
		if (k->cpus[c].clock_fd >= 0)
			ioctl(k->cpus[c].clock_fd, PERF_EVENT_IOC_DISABLE, 0);
	}
	if (k->reader_running) {
		__atomic_store_n(&k->stop, 1, __ATOMIC_RELEASE);
		pthread_join(k->reader, NULL);
		k->reader_running = false;
	}
	if (k->stats.lost_total) {
		corecap_warn("kernel events: %llu records lost (ring buffers overran); the run's "
			     "kernel figures are incomplete",
			     (unsigned long long)k->stats.lost_total);
		k->stats.complete = false;
	}
	if (k->stats.write_error) {
		corecap_warn("kernel events: '%s/%s' could not be written whole", k->rd->path,
			     CORECAP_KERNEL_EVENTS_FILE);
		k->stats.complete = false;
	}
	close_cpus(k);
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
 * unwound even one frame is counted (oncpu_failed), not written.
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
		fprintf(f, "%" PRIu64 "\t%d\t0\t", rs.time_ns, (int)rs.tid);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s%" PRIx64, i ? " " : "", frames[i]);
		fputc('\n', f);
		k->stats.oncpu_written++;
	}
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
	ret = write_file_header(fd, CORECAP_KERNEL_MAGIC_STACKS, k,
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
		ret = write_all(fd, r, r->h.size);
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

int corecap_kernel_events_release(struct corecap_kernel_events *k)
{
	int ret = 0;

	corecap_kernel_events_stop(k);
	if (k->events_fd >= 0 && close(k->events_fd) < 0)
		ret = -EIO;
	if (k->raw_fd >= 0)
		close(k->raw_fd);
	k->events_fd = k->raw_fd = -1;
	if (k->stats.write_error)
		ret = -EIO;
	corecap_kernel_bpf_close(k->bpf);
	k->bpf = NULL;
	free(k->bpf_counts);
	k->bpf_counts = NULL;
	free(k->cpus);
	free(k->copy);
	free(k->tids);
	free(k->out);
	free(k->stacks);
	free(k->tracked);
	k->tracked = NULL;
	kernel_holders_release(&k->holders);
	free(k->stats.lost_per_cpu);
	k->stats.lost_per_cpu = NULL;
	k->cpus = NULL;
	k->copy = NULL;
	k->tids = NULL;
	k->out = NULL;
	k->stacks = NULL;
	return ret;
}
