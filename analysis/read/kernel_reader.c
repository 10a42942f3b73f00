#include "kernel_reader.h"
#include <corecap/diag.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger files are not a recording of this tool (about 10 MB/s at 10k IOPS). */
#define KERNEL_FILE_MAX_BYTES (8ull << 30)
#define KERNEL_MAX_CPUS	      65536

void corecap_kernel_reader_init(struct kernel_reader *k)
{
	*k = (struct kernel_reader){0};
}

void corecap_kernel_reader_release(struct kernel_reader *k)
{
	free(k->ev_buf);
	free(k->st_buf);
	free(k->recs);
	free(k->stacks);
	*k = (struct kernel_reader){0};
}

/* Reads the whole file into a malloc'd buffer (8-aligned: malloc's). */
static int slurp(const char *path, unsigned char **buf, size_t *len, char **err)
{
	struct stat st;
	size_t got = 0;
	int fd, ret = 0;

	/* O_NONBLOCK: a FIFO in place of the file must not block the open (docs/robustness.md). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT
				       : corecap_err(err, -errno, "cannot open '%s': %s", path,
						     strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		ret = corecap_err(err, -EINVAL, "cannot read '%s': %s", path,
				  S_ISREG(st.st_mode) ? strerror(errno) : "not a regular file");
		goto out;
	}
	if ((uint64_t)st.st_size > KERNEL_FILE_MAX_BYTES) {
		ret = corecap_err(err, -EFBIG,
				  "cannot read '%s': %lld bytes, more than a recording holds", path,
				  (long long)st.st_size);
		goto out;
	}
	*buf = malloc((size_t)st.st_size + 8);
	if (!*buf) {
		ret = corecap_err(err, -ENOMEM, "cannot read '%s': out of memory", path);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = corecap_err(err, n < 0 ? -errno : -EIO, "cannot read '%s': %s", path,
					  n < 0 ? strerror(errno) : "file shrank while read");
			goto out;
		}
		got += (size_t)n;
	}
	*len = got;
out:
	close(fd);
	return ret;
}

static int check_header(const unsigned char *buf, size_t len, uint64_t magic, const char *path,
			struct corecap_kfile_header *h, char **err)
{
	if (len < sizeof(*h))
		return corecap_err(err, -EINVAL, "'%s': %zu bytes, shorter than its 64-byte header",
				   path, len);
	memcpy(h, buf, sizeof(*h));
	if (h->magic != magic)
		return corecap_err(err, -EINVAL, "'%s': not a corecap kernel file (bad magic)",
				   path);
	if (h->version != CORECAP_KERNEL_FORMAT_VERSION)
		return corecap_err(err, -EINVAL, "'%s': unsupported kernel format version %u", path,
				   h->version);
	if (h->header_bytes < sizeof(*h) || h->header_bytes % 8 || h->header_bytes > len)
		return corecap_err(err, -EINVAL, "'%s': bad header size %u", path, h->header_bytes);
	if (h->clock_id != CORECAP_KERNEL_CLOCK_MONOTONIC)
		return corecap_err(err, -EINVAL, "'%s': clock %u, not CLOCK_MONOTONIC", path,
				   h->clock_id);
	if (!h->nr_cpus || h->nr_cpus > KERNEL_MAX_CPUS)
		return corecap_err(err, -EINVAL, "'%s': implausible CPU count %u", path,
				   h->nr_cpus);
	return 0;
}

static const uint16_t min_size[CORECAP_KREC_TRACK + 1] = {
	[CORECAP_KREC_SWITCH] = sizeof(struct corecap_krec_switch),
	[CORECAP_KREC_WAKING] = sizeof(struct corecap_krec_waking),
	[CORECAP_KREC_FUTEX_ENTER] = sizeof(struct corecap_krec_futex_enter),
	[CORECAP_KREC_FUTEX_EXIT] = sizeof(struct corecap_krec_futex_exit),
	[CORECAP_KREC_FORK] = sizeof(struct corecap_krec_fork),
	[CORECAP_KREC_EXIT] = sizeof(struct corecap_krec_exit),
	[CORECAP_KREC_LOST] = sizeof(struct corecap_krec_lost),
	[CORECAP_KREC_WINDOW] = sizeof(struct corecap_krec_window),
	[CORECAP_KREC_TRACK] = sizeof(struct corecap_krec_track),
};

static bool tid_ok(int32_t tid, bool idle_ok)
{
	return (idle_ok ? tid >= 0 : tid > 0) && tid <= CORECAP_KERNEL_MAX_TID;
}

/* The tids of a known record; NULL when they are valid. */
static const char *bad_tids(const struct corecap_krec *r)
{
	switch (r->type) {
	case CORECAP_KREC_SWITCH: {
		const struct corecap_krec_switch *s = (const void *)r;

		return tid_ok(s->prev_tid, true) && tid_ok(s->next_tid, true) ? NULL : "bad tid";
	}
	case CORECAP_KREC_WAKING: {
		const struct corecap_krec_waking *w = (const void *)r;

		/* The waker may be the idle task (0), or unknown (-1: perf's tid of an
		 * interrupt's sample), for a wake-up from an interrupt. */
		return tid_ok(w->tid, false) && (w->waker_tid == -1 || tid_ok(w->waker_tid, true))
			       ? NULL
			       : "bad tid";
	}
	case CORECAP_KREC_FUTEX_ENTER:
		return tid_ok(((const struct corecap_krec_futex_enter *)(const void *)r)->tid,
			      false)
			       ? NULL
			       : "bad tid";
	case CORECAP_KREC_FUTEX_EXIT:
		return tid_ok(((const struct corecap_krec_futex_exit *)(const void *)r)->tid, false)
			       ? NULL
			       : "bad tid";
	case CORECAP_KREC_FORK: {
		const struct corecap_krec_fork *f = (const void *)r;

		return tid_ok(f->parent_tid, false) && tid_ok(f->child_tid, false) ? NULL
										   : "bad tid";
	}
	case CORECAP_KREC_EXIT:
		return tid_ok(((const struct corecap_krec_exit *)(const void *)r)->tid, false)
			       ? NULL
			       : "bad tid";
	case CORECAP_KREC_TRACK:
		return tid_ok(((const struct corecap_krec_track *)(const void *)r)->tid, false)
			       ? NULL
			       : "bad tid";
	case CORECAP_KREC_WINDOW: {
		uint32_t what = ((const struct corecap_krec_window *)(const void *)r)->what;

		return what == CORECAP_KWINDOW_START || what == CORECAP_KWINDOW_END
			       ? NULL
			       : "bad window mark";
	}
	default:
		return NULL;
	}
}

static int cmp_rec(const void *a, const void *b)
{
	const struct corecap_krec *x = *(const struct corecap_krec *const *)a;
	const struct corecap_krec *y = *(const struct corecap_krec *const *)b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	/* Same time: file order (the pointers' order), so that the sort is stable. */
	return x < y ? -1 : x > y;
}

/* True if record x goes before y: earlier, or at the same time first in the file. */
static bool rec_before(const struct corecap_krec *x, const struct corecap_krec *y)
{
	return x->time_ns != y->time_ns ? x->time_ns < y->time_ns : x < y;
}

static const struct corecap_krec *rec_at(const unsigned char *buf, uint32_t word)
{
	return (const void *)(buf + (size_t)word * 8);
}

/* cmp_rec on records given as words into the buffer ctx. */
static int cmp_word(const void *a, const void *b, void *ctx)
{
	const struct corecap_krec *x = rec_at(ctx, *(const uint32_t *)a);
	const struct corecap_krec *y = rec_at(ctx, *(const uint32_t *)b);

	return cmp_rec(&x, &y);
}

/*
 * Sorts k->recs (in file order) as cmp_rec does, by merging each CPU's
 * records, which the collector writes in time order per ring: a linear
 * pass with a min over the rings' heads instead of an n log n sort (2-4%
 * of a report's CPU on a kernel-heavy run). A record earlier than the one
 * before it on its ring (the collector's window marks) goes to one more
 * run, sorted on its own. Each run is in (time, file) order, so the merge
 * is the sort's order exactly. 0, or -1 (more than MERGE_MAX_RUNS runs,
 * or memory short): the caller sorts then.
 */
#define MERGE_MAX_RUNS 16
static int merge_by_cpu(struct kernel_reader *k)
{
	uint32_t nc = k->hdr.nr_cpus, run[MERGE_MAX_RUNS], n_run = 0;
	size_t n = k->n_recs, *start = calloc((size_t)nc + 2, sizeof(*start)), *at;
	/* Each run's records as 8-byte words into ev_buf: half a pointer array. */
	uint32_t *by_run = k->ev_bytes / 8 <= UINT32_MAX ? malloc(n * sizeof(*by_run)) : NULL;
	uint64_t *last;
	int ret = -1;

	at = calloc((size_t)nc + 2, sizeof(*at));
	last = calloc((size_t)nc + 1, sizeof(*last));
	if (!start || !by_run || !at || !last)
		goto out;
	/* Run nc holds the strays; pass 0 counts each run, pass 1 fills them. */
	for (int pass = 0; pass < 2; pass++) {
		memset(last, 0, ((size_t)nc + 1) * sizeof(*last));
		for (size_t i = 0; i < n; i++) {
			const struct corecap_krec *r = k->recs[i];
			uint32_t c = r->time_ns < last[r->cpu] ? nc : r->cpu;

			if (c != nc)
				last[c] = r->time_ns;
			if (pass)
				by_run[at[c]++] =
					(uint32_t)(((const unsigned char *)r - k->ev_buf) / 8);
			else
				start[c + 1]++;
		}
		if (!pass) {
			for (uint32_t c = 0; c <= nc; c++)
				start[c + 1] += start[c];
			memcpy(at, start, ((size_t)nc + 2) * sizeof(*at));
		}
	}
	for (uint32_t c = 0; c <= nc; c++)
		if (start[c + 1] > start[c]) {
			if (n_run == MERGE_MAX_RUNS)
				goto out;
			run[n_run++] = c;
		}
	if (start[nc + 1] > start[nc])
		qsort_r(by_run + start[nc], start[nc + 1] - start[nc], sizeof(*by_run), cmp_word,
			k->ev_buf);
	memcpy(at, start, ((size_t)nc + 2) * sizeof(*at));
	for (size_t i = 0; i < n; i++) {
		uint32_t best = UINT32_MAX;

		for (uint32_t j = 0; j < n_run; j++) {
			uint32_t c = run[j];

			if (at[c] < start[c + 1] &&
			    (best == UINT32_MAX || rec_before(rec_at(k->ev_buf, by_run[at[c]]),
							      rec_at(k->ev_buf, by_run[at[best]]))))
				best = c;
		}
		k->recs[i] = rec_at(k->ev_buf, by_run[at[best]++]);
	}
	ret = 0;
out:
	free(last);
	free(at);
	free(by_run);
	free(start);
	return ret;
}

static bool time_ok(uint64_t t, uint64_t ws, uint64_t we)
{
	if (!we)
		return true;
	return t + KERNEL_TIME_SLACK_NS >= ws && t <= we + KERNEL_TIME_SLACK_NS;
}

static int walk_events(struct kernel_reader *k, const char *path, uint64_t ws, uint64_t we,
		       char **err)
{
	size_t off = k->hdr.header_bytes, cap = 0;

	while (off < k->ev_bytes) {
		const struct corecap_krec *r = (const void *)(k->ev_buf + off);
		const char *why;

		if (k->ev_bytes - off < sizeof(*r) || r->size > k->ev_bytes - off) {
			/* A collector killed mid-write: the fragment is ignored. */
			k->trailing_bytes = k->ev_bytes - off;
			break;
		}
		if (r->size < sizeof(*r) || r->size % 8)
			return corecap_err(err, -EINVAL, "'%s': record at offset %zu: bad size %u",
					   path, off, r->size);
		if (r->type > CORECAP_KREC_TRACK || !min_size[r->type]) {
			k->unknown_records++;
			off += r->size;
			continue;
		}
		if (r->size < min_size[r->type])
			return corecap_err(
				err, -EINVAL,
				"'%s': record at offset %zu: type %u of %u bytes, expected at "
				"least %u",
				path, off, r->type, r->size, min_size[r->type]);
		if (r->cpu >= k->hdr.nr_cpus)
			return corecap_err(err, -EINVAL, "'%s': record at offset %zu: CPU %u of %u",
					   path, off, r->cpu, k->hdr.nr_cpus);
		if ((why = bad_tids(r)))
			return corecap_err(err, -EINVAL, "'%s': record at offset %zu (type %u): %s",
					   path, off, r->type, why);
		if (!time_ok(r->time_ns, ws, we))
			return corecap_err(
				err, -EINVAL,
				"'%s': record at offset %zu: time %llu ns lies far outside the "
				"recording window",
				path, off, (unsigned long long)r->time_ns);
		if (k->n_recs == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			const struct corecap_krec **v = realloc(k->recs, ncap * sizeof(*v));

			if (!v)
				return corecap_err(err, -ENOMEM, "'%s': out of memory", path);
			k->recs = v;
			cap = ncap;
		}
		k->recs[k->n_recs++] = r;
		k->counts[r->type]++;
		if (r->type == CORECAP_KREC_LOST)
			k->lost += ((const struct corecap_krec_lost *)(const void *)r)->lost;
		off += r->size;
	}
	if (k->n_recs && merge_by_cpu(k))
		qsort(k->recs, k->n_recs, sizeof(*k->recs), cmp_rec);
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct corecap_krec_stack *x = *(const struct corecap_krec_stack *const *)a;
	const struct corecap_krec_stack *y = *(const struct corecap_krec_stack *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->event_time_ns != y->event_time_ns)
		return x->event_time_ns < y->event_time_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int walk_stacks(struct kernel_reader *k, const char *path, uint64_t ws, uint64_t we,
		       char **err)
{
	struct corecap_kfile_header h;
	size_t off, cap = 0;
	int ret;

	ret = check_header(k->st_buf, k->st_bytes, CORECAP_KERNEL_MAGIC_STACKS, path, &h, err);
	if (ret)
		return ret;
	if (h.pid != k->hdr.pid)
		return corecap_err(err, -EINVAL, "'%s': stacks of pid %u, events of pid %u", path,
				   h.pid, k->hdr.pid);
	for (off = h.header_bytes; off < k->st_bytes;) {
		const struct corecap_krec_stack *s = (const void *)(k->st_buf + off);

		if (k->st_bytes - off < sizeof(s->h) || s->h.size > k->st_bytes - off)
			break; /* a trailing fragment */
		if (s->h.size < sizeof(s->h) || s->h.size % 8)
			return corecap_err(err, -EINVAL, "'%s': record at offset %zu: bad size %u",
					   path, off, s->h.size);
		if (s->h.type != CORECAP_KREC_STACK) {
			k->unknown_records++;
			off += s->h.size;
			continue;
		}
		if (s->h.size < sizeof(*s))
			return corecap_err(err, -EINVAL,
					   "'%s': stack at offset %zu: %u bytes, expected at "
					   "least %zu",
					   path, off, s->h.size, sizeof(*s));
		if (s->nframes > CORECAP_KERNEL_MAX_FRAMES ||
		    s->h.size < sizeof(*s) + 8u * s->nframes)
			return corecap_err(
				err, -EINVAL,
				"'%s': stack at offset %zu: %u frames in a record of %u bytes",
				path, off, s->nframes, s->h.size);
		if ((s->kind != CORECAP_KSTACK_FUTEX && s->kind != CORECAP_KSTACK_SWITCH) ||
		    !tid_ok(s->tid, false))
			return corecap_err(err, -EINVAL,
					   "'%s': stack at offset %zu: bad kind %u or tid %d", path,
					   off, s->kind, s->tid);
		if (!time_ok(s->h.time_ns, ws, we))
			return corecap_err(
				err, -EINVAL,
				"'%s': stack at offset %zu: time %llu ns lies far outside the "
				"recording window",
				path, off, (unsigned long long)s->h.time_ns);
		if (k->n_stacks == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			const struct corecap_krec_stack **v = realloc(k->stacks, ncap * sizeof(*v));

			if (!v)
				return corecap_err(err, -ENOMEM, "'%s': out of memory", path);
			k->stacks = v;
			cap = ncap;
		}
		k->stacks[k->n_stacks++] = s;
		off += s->h.size;
	}
	if (k->n_stacks)
		qsort(k->stacks, k->n_stacks, sizeof(*k->stacks), cmp_stack);
	return 0;
}

int corecap_kernel_reader_load(struct kernel_reader *k, const char *run_dir, uint64_t ws,
			       uint64_t we, char **err)
{
	char *ev_path = NULL, *st_path = NULL;
	int ret;

	*err = NULL;
	if (asprintf(&ev_path, "%s/%s", run_dir, CORECAP_KERNEL_EVENTS_FILE) < 0 ||
	    asprintf(&st_path, "%s/%s", run_dir, CORECAP_KERNEL_STACKS_FILE) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	ret = slurp(ev_path, &k->ev_buf, &k->ev_bytes, err);
	if (!ret)
		ret = check_header(k->ev_buf, k->ev_bytes, CORECAP_KERNEL_MAGIC_EVENTS, ev_path,
				   &k->hdr, err);
	if (!ret)
		ret = walk_events(k, ev_path, ws, we, err);
	if (ret)
		goto out;
	ret = slurp(st_path, &k->st_buf, &k->st_bytes, err);
	if (ret == -ENOENT) {
		ret = 0;
		goto out;
	}
	if (!ret) {
		k->has_stacks = true;
		ret = walk_stacks(k, st_path, ws, we, err);
	}
out:
	free(ev_path);
	free(st_path);
	return ret;
}

/* A copy of n bytes in a malloc'd, 8-aligned buffer, as slurp() gives. */
static int copy_in(const unsigned char *data, size_t n, unsigned char **buf, size_t *len)
{
	*buf = malloc(n + 8);
	if (!*buf)
		return -ENOMEM;
	if (n)
		memcpy(*buf, data, n);
	*len = n;
	return 0;
}

int corecap_kernel_reader_load_buffers(struct kernel_reader *k, const unsigned char *ev,
				       size_t n_ev, const unsigned char *st, size_t n_st,
				       uint64_t ws, uint64_t we, char **err)
{
	int ret;

	*err = NULL;
	ret = copy_in(ev, n_ev, &k->ev_buf, &k->ev_bytes);
	if (!ret)
		ret = check_header(k->ev_buf, k->ev_bytes, CORECAP_KERNEL_MAGIC_EVENTS,
				   CORECAP_KERNEL_EVENTS_FILE, &k->hdr, err);
	if (!ret)
		ret = walk_events(k, CORECAP_KERNEL_EVENTS_FILE, ws, we, err);
	if (ret || !st)
		return ret;
	ret = copy_in(st, n_st, &k->st_buf, &k->st_bytes);
	if (!ret) {
		k->has_stacks = true;
		ret = walk_stacks(k, CORECAP_KERNEL_STACKS_FILE, ws, we, err);
	}
	return ret;
}

const struct corecap_krec_stack *corecap_kernel_reader_stack(const struct kernel_reader *k,
							     int32_t tid, uint64_t event_time_ns,
							     uint16_t kind)
{
	size_t lo = 0, hi = k->n_stacks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct corecap_krec_stack *s = k->stacks[mid];

		if (s->tid < tid ||
		    (s->tid == tid && (s->event_time_ns < event_time_ns ||
				       (s->event_time_ns == event_time_ns && s->kind < kind))))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < k->n_stacks && k->stacks[lo]->tid == tid &&
	    k->stacks[lo]->event_time_ns == event_time_ns && k->stacks[lo]->kind == kind)
		return k->stacks[lo];
	return NULL;
}

const uint64_t *corecap_kernel_stack_frames(const struct corecap_krec_stack *s)
{
	return (const uint64_t *)(const void *)(s + 1);
}
