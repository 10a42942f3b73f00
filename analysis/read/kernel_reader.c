#include "kernel_reader.h"
#include "run_file.h"
#include "../util/grow.h"
#include "../util/heap.h"
#include <corecap/diag.h>
#include <corecap/kernel_v2.h>
#include <corecap/kernel_v3.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KERNEL_MAX_CPUS 65536
/* The loading pass's buffer, and each CPU stream's: more than a record's
 * largest size (65535 bytes). */
#define SCAN_BYTES   (1u << 20)
#define STREAM_BYTES (128u << 10)
/* Marks and strays kept in memory, at most (about one per thread). */
#define SIDE_MAX (1u << 20)

void corecap_kernel_reader_init(struct kernel_reader *k)
{
	*k = (struct kernel_reader){0};
	k->ev_fd = -1;
}

void corecap_kernel_reader_release(struct kernel_reader *k)
{
	if (k->ev_fd >= 0)
		close(k->ev_fd);
	free(k->ev_path);
	free(k->ev_mem);
	if (k->spans)
		for (uint32_t c = 0; c < k->hdr.nr_cpus; c++)
			free(k->spans[c].v);
	free(k->spans);
	for (size_t i = 0; i < k->n_side; i++)
		free(k->side[i].r);
	free(k->side);
	free(k->st_buf);
	free(k->stacks);
	free(k->stack_bits);
	corecap_kernel_reader_init(k);
}

/*
 * Reads the whole file into a malloc'd buffer (8-aligned: malloc's), once
 * its first 8 bytes are magic: a file of another kind costs no allocation
 * of its size. Its size is bounded by read/run_file.h's table.
 */
static int slurp(const char *path, uint64_t magic, unsigned char **buf, size_t *len, char **err)
{
	struct stat st;
	uint64_t head;
	size_t got = 0;
	int fd, ret = 0;

	fd = corecap_run_file_open(path);
	if (fd < 0)
		return fd == -ENOENT ? -ENOENT
				     : corecap_err(err, fd == -ENOTREG_RUN_FILE ? -EINVAL : fd,
						   "cannot read '%s': %s", path,
						   corecap_run_file_strerror(-fd));
	if (fstat(fd, &st) != 0) {
		ret = corecap_err(err, -errno, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (st.st_size >= (off_t)sizeof(head) &&
	    (pread(fd, &head, sizeof(head), 0) != (ssize_t)sizeof(head) || head != magic)) {
		ret = corecap_err(err, -EINVAL, "'%s': not a corecap kernel file (bad magic)",
				  path);
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
	/* events.bin: version 1, 2 (blocks, decoded into 1's records) or 3
	 * (zstd frames of 2's blocks); stacks.bin: 1. */
	if (h->version != CORECAP_KERNEL_FORMAT_V1 &&
	    ((h->version != CORECAP_KERNEL_FORMAT_V2 &&
	      h->version != CORECAP_KERNEL_FORMAT_VERSION) ||
	     magic != CORECAP_KERNEL_MAGIC_EVENTS))
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

static const uint16_t min_size[KERNEL_REC_TYPES] = {
	[CORECAP_KREC_SWITCH] = sizeof(struct corecap_krec_switch),
	[CORECAP_KREC_WAKING] = sizeof(struct corecap_krec_waking),
	[CORECAP_KREC_FUTEX_ENTER] = sizeof(struct corecap_krec_futex_enter),
	[CORECAP_KREC_FUTEX_EXIT] = sizeof(struct corecap_krec_futex_exit),
	[CORECAP_KREC_FORK] = sizeof(struct corecap_krec_fork),
	[CORECAP_KREC_EXIT] = sizeof(struct corecap_krec_exit),
	[CORECAP_KREC_LOST] = sizeof(struct corecap_krec_lost),
	[CORECAP_KREC_WINDOW] = sizeof(struct corecap_krec_window),
	[CORECAP_KREC_TRACK] = sizeof(struct corecap_krec_track),
	[CORECAP_KREC_HOLDER] = sizeof(struct corecap_krec_holder),
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
	case CORECAP_KREC_HOLDER: {
		const struct corecap_krec_holder *h = (const void *)r;

		return tid_ok(h->tid, false) && tid_ok(h->tgid, false) ? NULL : "bad tid";
	}
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

static bool time_ok(uint64_t t, uint64_t ws, uint64_t we)
{
	if (!we)
		return true;
	return t + KERNEL_TIME_SLACK_NS >= ws && t <= we + KERNEL_TIME_SLACK_NS;
}

/* The collector's own marks: written on CPU 0's ring's behalf at the
 * collector's time, not in that ring's order. Kept in memory. */
static bool side_type(uint16_t type)
{
	return type == CORECAP_KREC_WINDOW || type == CORECAP_KREC_TRACK ||
	       type == CORECAP_KREC_HOLDER;
}

/* Up to len bytes of events.bin at off into buf: how many, or -errno. */
static ssize_t ev_read(const struct kernel_reader *k, uint64_t off, unsigned char *buf, size_t len)
{
	if (off >= k->ev_bytes)
		return 0;
	if (len > k->ev_bytes - off)
		len = (size_t)(k->ev_bytes - off);
	if (k->ev_mem) {
		memcpy(buf, k->ev_mem + off, len);
		return (ssize_t)len;
	}
	for (;;) {
		ssize_t n = pread(k->ev_fd, buf, len, (off_t)off);

		if (n >= 0 || errno != EINTR)
			return n < 0 ? -errno : n;
	}
}

/* A window of events.bin in a fixed buffer. */
struct win {
	unsigned char *buf;
	size_t cap, len;
	uint64_t base; /* file offset of buf[0] */
};

/* win_get's refill: the bytes from off moved to the buffer's start, the
 * rest read until need bytes are there. */
static int __attribute__((noinline))
win_fill(const struct kernel_reader *k, struct win *w, uint64_t off, size_t need, uint64_t limit)
{
	if (off >= w->base && off <= w->base + w->len) {
		size_t keep = (size_t)(w->base + w->len - off);

		memmove(w->buf, w->buf + (off - w->base), keep);
		w->len = keep;
	} else {
		w->len = 0;
	}
	w->base = off;
	while (w->len < need) {
		uint64_t want = limit - (w->base + w->len);
		ssize_t n;

		if (want > w->cap - w->len)
			want = w->cap - w->len;
		n = ev_read(k, w->base + w->len, w->buf + w->len, (size_t)want);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EIO;
		w->len += (size_t)n;
	}
	return 0;
}

/*
 * Points *p at `need` bytes of events.bin at off, reading ahead up to
 * limit (need <= limit - off <= cap). 0, -EIO when the file has fewer
 * bytes than it had (it shrank), or another negative errno. Inline: it
 * runs twice for every record of each pass, and mostly finds the bytes
 * already there.
 */
static inline int win_get(const struct kernel_reader *k, struct win *w, uint64_t off, size_t need,
			  uint64_t limit, const unsigned char **p)
{
	if (off < w->base || off + need > w->base + w->len) {
		int ret = win_fill(k, w, off, need, limit);

		if (ret)
			return ret;
	}
	*p = w->buf + (off - w->base);
	return 0;
}

/* check_rec's verdict on a record that is not plainly valid. */
static int __attribute__((noinline))
check_rec_slow(const struct kernel_reader *k, const struct corecap_krec *r, uint64_t off,
	       const char *path, char **err)
{
	const char *why;

	if (r->size < sizeof(*r) || r->size % 8)
		return corecap_err(err, -EINVAL, "'%s': record at offset %llu: bad size %u", path,
				   (unsigned long long)off, r->size);
	if (r->type >= KERNEL_REC_TYPES || !min_size[r->type])
		return 1;
	if (r->size < min_size[r->type])
		return corecap_err(err, -EINVAL,
				   "'%s': record at offset %llu: type %u of %u bytes, expected at "
				   "least %u",
				   path, (unsigned long long)off, r->type, r->size,
				   min_size[r->type]);
	if (r->cpu >= k->hdr.nr_cpus)
		return corecap_err(err, -EINVAL, "'%s': record at offset %llu: CPU %u of %u", path,
				   (unsigned long long)off, r->cpu, k->hdr.nr_cpus);
	if ((why = bad_tids(r)))
		return corecap_err(err, -EINVAL, "'%s': record at offset %llu (type %u): %s", path,
				   (unsigned long long)off, r->type, why);
	if (!time_ok(r->time_ns, k->ws, k->we))
		return corecap_err(err, -EINVAL,
				   "'%s': record at offset %llu: time %llu ns lies far outside the "
				   "recording window",
				   path, (unsigned long long)off, (unsigned long long)r->time_ns);
	return 0;
}

/*
 * The checks of one record r at off: 0, 1 when its type is unknown (to
 * skip), or a negative errno with *err naming the file, offset and cause.
 * The valid record's tests inline (each pass checks every record), the
 * rest in check_rec_slow.
 */
static inline int check_rec(const struct kernel_reader *k, const struct corecap_krec *r,
			    uint64_t off, const char *path, char **err)
{
	if (r->size >= sizeof(*r) && !(r->size % 8) && r->type < KERNEL_REC_TYPES &&
	    min_size[r->type] && r->size >= min_size[r->type] && r->cpu < k->hdr.nr_cpus &&
	    !bad_tids(r) && time_ok(r->time_ns, k->ws, k->we))
		return 0;
	return check_rec_slow(k, r, off, path, err);
}

/* Keeps a copy of record r (at off) in memory. */
static int add_side(struct kernel_reader *k, const struct corecap_krec *r, uint64_t off)
{
	struct corecap_krec *copy;

	if (k->n_side == SIDE_MAX)
		return -E2BIG;
	if (corecap_grow((void **)&k->side, &k->cap_side, k->n_side + 1, sizeof(*k->side)))
		return -ENOMEM;
	if (!(copy = malloc(r->size)))
		return -ENOMEM;
	memcpy(copy, r, r->size);
	k->side[k->n_side++] = (struct kernel_side_rec){off, copy};
	return 0;
}

/* Halves the index: each CPU's spans joined in pairs. */
static void join_spans(struct kernel_reader *k)
{
	for (uint32_t c = 0; c < k->hdr.nr_cpus; c++) {
		struct kernel_cpu_spans *s = &k->spans[c];
		size_t n = 0;

		for (size_t i = 0; i < s->len; i += 2, n++)
			s->v[n] = (struct kernel_span){
				s->v[i].start, i + 1 < s->len ? s->v[i + 1].end : s->v[i].end};
		s->len = n;
	}
	k->joins++;
}

/* Record r at off, of CPU c, goes to c's stream: into its index. */
static int add_to_span(struct kernel_reader *k, uint32_t c, bool same_span, uint64_t off,
		       uint64_t end, size_t *n_spans)
{
	struct kernel_cpu_spans *s = &k->spans[c];

	if (same_span && s->len) {
		s->v[s->len - 1].end = end;
		return 0;
	}
	if ((*n_spans + 1) * sizeof(struct kernel_span) > KERNEL_INDEX_MAX_BYTES) {
		join_spans(k);
		*n_spans = 0;
		for (uint32_t i = 0; i < k->hdr.nr_cpus; i++)
			*n_spans += k->spans[i].len;
	}
	if (corecap_grow((void **)&s->v, &s->cap, s->len + 1, sizeof(*s->v)))
		return -ENOMEM;
	s->v[s->len++] = (struct kernel_span){off, end};
	(*n_spans)++;
	return 0;
}

/* (time, file offset) order: a stable sort by time. */
static bool before(const struct corecap_krec *x, uint64_t x_off, const struct corecap_krec *y,
		   uint64_t y_off)
{
	return x->time_ns != y->time_ns ? x->time_ns < y->time_ns : x_off < y_off;
}

static int cmp_side(const void *a, const void *b)
{
	const struct kernel_side_rec *x = a, *y = b;

	if (before(x->r, x->off, y->r, y->off))
		return -1;
	return before(y->r, y->off, x->r, x->off);
}

/* Where the loading pass is: the CPU of the span last added to, and the
 * spans of every CPU in all. */
struct index_pos {
	uint32_t cur;
	size_t n_spans;
};

/* The loading pass's start: no spans yet (the index's per-CPU lists made). */
static int index_start(struct kernel_reader *k, struct index_pos *ip)
{
	*ip = (struct index_pos){.cur = UINT32_MAX};
	k->spans = calloc(k->hdr.nr_cpus, sizeof(*k->spans));
	return k->spans ? 0 : -ENOMEM;
}

/*
 * The loading pass's work on one record r at off, checked (known: of a
 * known type, else skipped and counted): counted, and either indexed in
 * its CPU's spans or (a mark, or earlier than its CPU's previous record)
 * copied aside. A CPU's stream is then in time order by construction.
 */
static int index_rec(struct kernel_reader *k, const struct corecap_krec *r, uint64_t off,
		     bool known, struct index_pos *ip, const char *path, char **err)
{
	int ret;

	if (!known) {
		k->unknown_records++;
		return 0;
	}
	if (side_type(r->type) || r->time_ns < k->spans[r->cpu].last_ns) {
		if ((ret = add_side(k, r, off)))
			return corecap_err(err, ret, "'%s': %s", path,
					   ret == -E2BIG ? "too many records out of time order"
							 : "out of memory");
	} else {
		k->spans[r->cpu].last_ns = r->time_ns;
		if ((ret = add_to_span(k, r->cpu, ip->cur == r->cpu, off, off + r->size,
				       &ip->n_spans)))
			return corecap_err(err, ret, "'%s': out of memory", path);
		ip->cur = r->cpu;
	}
	k->n_recs++;
	k->counts[r->type]++;
	if (r->type == CORECAP_KREC_LOST)
		k->lost += ((const struct corecap_krec_lost *)(const void *)r)->lost;
	return 0;
}

/* The loading pass's end: the records end at end, the side copies sorted. */
static void index_end(struct kernel_reader *k, uint64_t end)
{
	k->ev_end = end;
	if (k->n_side > 1)
		qsort(k->side, k->n_side, sizeof(*k->side), cmp_side);
}

/*
 * The loading pass over a version-1 events.bin: every record checked and
 * indexed (index_rec). Versions 2 and 3 are indexed as they are decoded
 * (put_block), in the same pass.
 */
static int walk_events(struct kernel_reader *k, const char *path, char **err)
{
	struct win w = {.cap = SCAN_BYTES};
	uint64_t off = k->hdr.header_bytes;
	struct index_pos ip;
	int ret = 0;

	w.buf = malloc(SCAN_BYTES);
	if (index_start(k, &ip) || !w.buf) {
		ret = corecap_err(err, -ENOMEM, "'%s': out of memory", path);
		goto out;
	}
	w.base = off;
	while (off < k->ev_bytes) {
		const struct corecap_krec *r;
		const unsigned char *p;
		uint64_t left = k->ev_bytes - off;

		if (left < sizeof(*r))
			goto trailing;
		if ((ret = win_get(k, &w, off, sizeof(*r), k->ev_bytes, &p)))
			goto io;
		r = (const void *)p;
		if (r->size > left)
			goto trailing;
		if ((ret = win_get(k, &w, off, r->size < sizeof(*r) ? sizeof(*r) : r->size,
				   k->ev_bytes, &p)))
			goto io;
		r = (const void *)p;
		ret = check_rec(k, r, off, path, err);
		if (ret < 0 || (ret = index_rec(k, r, off, ret == 0, &ip, path, err)))
			goto out;
		off += r->size;
	}
	goto done;
trailing:
	/* A collector killed mid-write: the fragment is ignored. */
	k->trailing_bytes = k->ev_bytes - off;
done:
	index_end(k, off);
	goto out;
io:
	ret = corecap_err(err, ret, "cannot read '%s': %s", path,
			  ret == -EIO ? "file shrank while read" : strerror(-ret));
out:
	free(w.buf);
	return ret;
}

/* Opens events.bin for the cursors: a regular file within its bound (read/run_file.h), its size. */
static int open_events(struct kernel_reader *k, const char *path, char **err)
{
	struct stat st;

	k->ev_fd = corecap_run_file_open(path);
	if (k->ev_fd < 0) {
		int ret = k->ev_fd;

		k->ev_fd = -1;
		return ret == -ENOENT ? -ENOENT
				      : corecap_err(err, ret == -ENOTREG_RUN_FILE ? -EINVAL : ret,
						    "cannot read '%s': %s", path,
						    corecap_run_file_strerror(-ret));
	}
	if (fstat(k->ev_fd, &st) != 0)
		return corecap_err(err, -errno, "cannot read '%s': %s", path, strerror(errno));
	k->ev_bytes = (uint64_t)st.st_size;
	return 0;
}

/* Where decode_blocks puts the records: a private file, or memory. */
struct v2_sink {
	int fd;		    /* -1: memory */
	unsigned char *mem; /* memory: all of it; a file: what waits for write(2) */
	size_t len, cap;
	uint64_t bytes; /* written in all */
};

/* A decoded block at least this large goes to a file sink without a copy. */
#define SINK_DIRECT_BYTES (64u << 10)

/* len bytes of p to fd: 0 or -errno. */
static int write_all(int fd, const unsigned char *p, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* A file sink's buffered bytes written out: 0 or -errno. */
static int kernel_write_sink(struct v2_sink *o)
{
	int ret = write_all(o->fd, o->mem, o->len);

	if (!ret)
		o->len = 0;
	return ret;
}

static int sink_put(struct v2_sink *o, const void *p, size_t n)
{
	int ret;

	if (o->fd >= 0 && (o->len + n > o->cap || n >= SINK_DIRECT_BYTES) &&
	    (ret = kernel_write_sink(o)))
		return ret;
	/* A large block (the decoding buffer's) is written from where it is:
	 * copying it into the buffer first cost a pass over every record. */
	if (o->fd >= 0 && n >= SINK_DIRECT_BYTES) {
		if ((ret = write_all(o->fd, p, n)))
			return ret;
		o->bytes += n;
		return 0;
	}
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : SCAN_BYTES;
		unsigned char *m;

		while (cap < o->len + n)
			cap *= 2;
		if (!(m = realloc(o->mem, cap)))
			return -ENOMEM;
		o->mem = m;
		o->cap = cap;
	}
	memcpy(o->mem + o->len, p, n);
	o->len += n;
	o->bytes += n;
	return 0;
}

/* A private file for the decoded records, gone when closed: in TMPDIR. */
static int v2_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	char *tmpl;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (asprintf(&tmpl, "%s/corecap-kernel-XXXXXX", dir) < 0)
		return -ENOMEM;
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	else
		fd = -errno;
	free(tmpl);
	return fd;
}

/* What decode_blocks carries from block to block: the sink, the decoding
 * buffer, the loading pass's place, the unknown items counted. */
struct v2_decode {
	struct v2_sink o;
	unsigned char *dec;
	struct index_pos ip;
	uint64_t unknown;
};

/*
 * One version-2 block (size bytes at p, whole) decoded into version 1's
 * records, each checked as version 1's are, indexed where it lands in the
 * sink (the loading pass: index_rec), and put in the sink; where names it
 * in the errors ("block at offset N", or the frame's).
 */
static int put_block(struct kernel_reader *k, const unsigned char *p, size_t size, uint64_t err_off,
		     const char *where, struct v2_decode *v, const char *path, char **err)
{
	const char *why = "";
	size_t dlen, why_off;
	long n = corecap_kv2_decode_block(p, size, v->dec, &dlen, &v->unknown, &why, &why_off);
	int ret;

	if (n <= 0)
		return corecap_err(err, -EINVAL, "'%s': %s: %s at %zu", path, where,
				   n ? why : "block cut short", why_off);
	for (size_t d = 0; d < dlen;) {
		const struct corecap_krec *r = (const void *)(v->dec + d);

		if ((ret = check_rec(k, r, err_off, path, err)) < 0)
			return -EINVAL;
		if ((ret = index_rec(k, r, v->o.bytes + d, ret == 0, &v->ip, path, err)))
			return ret;
		d += r->size;
	}
	if ((ret = sink_put(&v->o, v->dec, dlen)))
		return corecap_err(err, ret, "'%s': cannot decode it: %s", path, strerror(-ret));
	return 0;
}

/* Version 2's blocks from the file at k->hdr.header_bytes into o. */
static int walk_v2(struct kernel_reader *k, const char *path, struct v2_decode *v, char **err)
{
	struct win w = {.cap = SCAN_BYTES};
	uint64_t off = k->hdr.header_bytes;
	int ret = 0;

	if (!(w.buf = malloc(SCAN_BYTES)))
		return corecap_err(err, -ENOMEM, "'%s': out of memory", path);
	w.base = off;
	while (off < k->ev_bytes) {
		uint64_t left = k->ev_bytes - off;
		const unsigned char *p;
		char where[64];
		uint16_t type;
		uint32_t size;

		if (left < sizeof(struct corecap_kblock))
			break; /* a trailing fragment */
		if ((ret = win_get(k, &w, off, sizeof(struct corecap_kblock), k->ev_bytes, &p)))
			goto io;
		memcpy(&type, p, sizeof(type));
		memcpy(&size, p + 4, sizeof(size));
		if (size < sizeof(struct corecap_kblock) || size % 8 || size > CORECAP_KBLOCK_MAX) {
			ret = corecap_err(err, -EINVAL, "'%s': block at offset %llu: bad size %u",
					  path, (unsigned long long)off, size);
			goto out;
		}
		if (size > left)
			break;
		if (type != CORECAP_KREC_BLOCK) { /* a later revision's item */
			v->unknown++;
			off += size;
			continue;
		}
		if ((ret = win_get(k, &w, off, size, k->ev_bytes, &p)))
			goto io;
		snprintf(where, sizeof(where), "block at offset %llu", (unsigned long long)off);
		if ((ret = put_block(k, p, size, off, where, v, path, err)))
			goto out;
		off += size;
	}
	k->trailing_bytes = k->ev_bytes - off;
	goto out;
io:
	ret = corecap_err(err, ret, "cannot read '%s': %s", path,
			  ret == -EIO ? "file shrank while read" : strerror(-ret));
out:
	free(w.buf);
	return ret;
}

/*
 * Version 3's frames from the file at k->hdr.header_bytes into o: each
 * frame's header checked (corecap/kernel_v3.h) before its bytes are read
 * and its content decompressed (at most CORECAP_KZFRAME_RAW_MAX), then
 * its blocks decoded as version 2's; a trailing partial frame is left
 * out and counted, as a trailing partial block of version 2.
 */
static int walk_v3(struct kernel_reader *k, const char *path, struct v2_decode *v, char **err)
{
	uint64_t off = k->hdr.header_bytes;
	unsigned char *z = NULL, *raw = NULL;
	size_t z_cap = 0, raw_cap = 0;
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	int ret = 0;

	if (!dc)
		return corecap_err(err, -ENOMEM, "'%s': out of memory", path);
	while (off < k->ev_bytes) {
		uint64_t left = k->ev_bytes - off;
		unsigned char head[sizeof(struct corecap_kzframe)];
		size_t want = left < sizeof(head) ? (size_t)left : sizeof(head);
		struct corecap_kzframe f;
		const char *why = "";
		ssize_t n = ev_read(k, off, head, want);
		int c;

		if (n < 0 || (size_t)n != want) {
			ret = n < 0 ? (int)n : -EIO;
			goto io;
		}
		c = corecap_kv3_frame_check(head, left, &f, &why);
		if (c < 0) {
			ret = corecap_err(err, -EINVAL, "'%s': frame at offset %llu: %s", path,
					  (unsigned long long)off, why);
			goto out;
		}
		if (c == 0)
			break; /* a trailing partial frame */
		if (f.size > z_cap) {
			free(z);
			if (!(z = malloc(z_cap = f.size)))
				goto nomem;
		}
		if (f.raw_bytes > raw_cap) {
			free(raw);
			if (!(raw = malloc(raw_cap = f.raw_bytes)))
				goto nomem;
		}
		if ((n = ev_read(k, off, z, f.size)) != (ssize_t)f.size) {
			ret = n < 0 ? (int)n : -EIO;
			goto io;
		}
		if (corecap_kv3_decompress(dc, z, &f, raw, &why)) {
			ret = corecap_err(err, -EINVAL, "'%s': frame at offset %llu: %s", path,
					  (unsigned long long)off, why);
			goto out;
		}
		for (size_t b = 0; b < f.raw_bytes;) {
			char where[96];
			uint16_t type;
			uint32_t size;

			snprintf(where, sizeof(where), "frame at offset %llu, block at %zu",
				 (unsigned long long)off, b);
			if (f.raw_bytes - b < sizeof(struct corecap_kblock)) {
				ret = corecap_err(err, -EINVAL, "'%s': %s: a block cut short", path,
						  where);
				goto out;
			}
			memcpy(&type, raw + b, sizeof(type));
			memcpy(&size, raw + b + 4, sizeof(size));
			if (size < sizeof(struct corecap_kblock) || size % 8 ||
			    size > CORECAP_KBLOCK_MAX || size > f.raw_bytes - b) {
				ret = corecap_err(err, -EINVAL, "'%s': %s: bad size %u", path,
						  where, size);
				goto out;
			}
			if (type != CORECAP_KREC_BLOCK) {
				v->unknown++; /* a later revision's item, as in version 2 */
			} else if ((ret = put_block(k, raw + b, size, off, where, v, path, err))) {
				goto out;
			}
			b += size;
		}
		off += f.size;
	}
	k->trailing_bytes = k->ev_bytes - off;
	goto out;
nomem:
	ret = corecap_err(err, -ENOMEM, "'%s': out of memory", path);
	goto out;
io:
	ret = corecap_err(err, ret, "cannot read '%s': %s", path,
			  ret == -EIO ? "file shrank while read" : strerror(-ret));
out:
	ZSTD_freeDCtx(dc);
	free(z);
	free(raw);
	return ret;
}

/*
 * events.bin of version 2 or 3: its blocks decoded (corecap/kernel_v2.h;
 * version 3's decompressed first, corecap/kernel_v3.h) into version 1's
 * records, each checked as version 1's are (the errors name the offset
 * of its block, or frame, in the file) and indexed as it is decoded (the
 * loading pass, in the same walk), into a private file in TMPDIR (loaded
 * from buffers: memory), which then stands for events.bin: the cursors
 * read version 1 alone. Memory stays flat: a block (version 3: a frame, at
 * most 8 MiB) at a time; the disk holds the decoded records meanwhile.
 */
static int decode_blocks(struct kernel_reader *k, const char *path, char **err)
{
	struct v2_decode v = {.o = {.fd = -1}};
	struct corecap_kfile_header h = k->hdr;
	int ret = 0;

	v.dec = malloc(CORECAP_KV2_DECODE_RATIO * CORECAP_KBLOCK_MAX);
	if (!v.dec || index_start(k, &v.ip)) {
		ret = corecap_err(err, -ENOMEM, "'%s': out of memory", path);
		goto out;
	}
	if (!k->ev_mem && (v.o.fd = v2_tmpfile()) < 0) {
		ret = corecap_err(err, v.o.fd, "'%s': cannot create a file to decode it into: %s",
				  path, strerror(-v.o.fd));
		goto out;
	}
	h.header_bytes = sizeof(h);
	if ((ret = sink_put(&v.o, &h, sizeof(h))))
		goto sink;
	ret = k->hdr.version == CORECAP_KERNEL_FORMAT_V2 ? walk_v2(k, path, &v, err)
							 : walk_v3(k, path, &v, err);
	if (ret)
		goto out;
	k->unknown_records += v.unknown;
	if (v.o.fd >= 0) {
		if ((ret = kernel_write_sink(&v.o)))
			goto sink;
		close(k->ev_fd);
		k->ev_fd = v.o.fd;
		v.o.fd = -1;
	} else {
		free(k->ev_mem);
		k->ev_mem = v.o.mem;
		v.o.mem = NULL;
	}
	k->ev_bytes = v.o.bytes;
	k->hdr.header_bytes = sizeof(h);
	index_end(k, k->ev_bytes);
	goto out;
sink:
	ret = corecap_err(err, ret, "'%s': cannot decode it: %s", path, strerror(-ret));
out:
	if (v.o.fd >= 0)
		close(v.o.fd);
	free(v.o.mem);
	free(v.dec);
	return ret;
}

/* The header of events.bin, then its records (k->ev_fd or k->ev_mem set). */
static int load_events(struct kernel_reader *k, const char *path, char **err)
{
	unsigned char h[sizeof(struct corecap_kfile_header)];
	ssize_t n = ev_read(k, 0, h, sizeof(h));
	int ret;

	if (n < 0)
		return corecap_err(err, (int)n, "cannot read '%s': %s", path, strerror((int)-n));
	if ((uint64_t)n < sizeof(h) && (uint64_t)n < k->ev_bytes)
		return corecap_err(err, -EIO, "cannot read '%s': file shrank while read", path);
	/* Its sizes checked against the file's. */
	if ((ret = check_header(h, (size_t)k->ev_bytes, CORECAP_KERNEL_MAGIC_EVENTS, path, &k->hdr,
				err)))
		return ret;
	if (k->hdr.version != CORECAP_KERNEL_FORMAT_V1)
		return decode_blocks(k, path, err);
	return walk_events(k, path, err);
}

/* The bit of a stack's key in stack_bits. */
static uint64_t stack_bit(const struct kernel_reader *k, int32_t tid, uint64_t event_time_ns,
			  uint16_t kind)
{
	uint64_t h =
		(event_time_ns ^ ((uint64_t)(uint32_t)tid << 32) ^ kind) * 0x9E3779B97F4A7C15ull;

	return h >> (64 - k->stack_bits_log2);
}

static bool stack_bit_set(const struct kernel_reader *k, int32_t tid, uint64_t event_time_ns,
			  uint16_t kind)
{
	uint64_t b = stack_bit(k, tid, event_time_ns, kind);

	return k->stack_bits[b / 64] >> (b % 64) & 1;
}

/* stack_bits for the stacks loaded: 0 or -ENOMEM. */
static int index_stacks(struct kernel_reader *k)
{
	uint32_t log2 = 6;

	if (!k->n_stacks)
		return 0;
	while (log2 < 40 && (1ull << log2) < 16 * (uint64_t)k->n_stacks)
		log2++;
	if (!(k->stack_bits = calloc((size_t)1 << (log2 - 6), sizeof(*k->stack_bits))))
		return -ENOMEM;
	k->stack_bits_log2 = log2;
	for (size_t i = 0; i < k->n_stacks; i++) {
		const struct kernel_stack_ref *r = &k->stacks[i];
		uint64_t b = stack_bit(k, r->tid, r->event_time_ns, (uint16_t)r->kind);

		k->stack_bits[b / 64] |= 1ull << (b % 64);
	}
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct kernel_stack_ref *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->event_time_ns != y->event_time_ns)
		return x->event_time_ns < y->event_time_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->s < y->s ? -1 : x->s > y->s;
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
			struct kernel_stack_ref *v = realloc(k->stacks, ncap * sizeof(*v));

			if (!v)
				return corecap_err(err, -ENOMEM, "'%s': out of memory", path);
			k->stacks = v;
			cap = ncap;
		}
		k->stacks[k->n_stacks++] =
			(struct kernel_stack_ref){s->event_time_ns, s->tid, s->kind, s};
		off += s->h.size;
	}
	if (k->n_stacks)
		qsort(k->stacks, k->n_stacks, sizeof(*k->stacks), cmp_stack);
	return index_stacks(k) ? corecap_err(err, -ENOMEM, "'%s': out of memory", path) : 0;
}

int corecap_kernel_reader_load(struct kernel_reader *k, const char *run_dir, uint64_t ws,
			       uint64_t we, char **err)
{
	char *st_path = NULL;
	int ret;

	*err = NULL;
	k->ws = ws;
	k->we = we;
	if (asprintf(&k->ev_path, "%s/%s", run_dir, CORECAP_KERNEL_EVENTS_FILE) < 0 ||
	    asprintf(&st_path, "%s/%s", run_dir, CORECAP_KERNEL_STACKS_FILE) < 0) {
		k->ev_path = NULL;
		ret = -ENOMEM;
		goto out;
	}
	ret = open_events(k, k->ev_path, err);
	if (!ret)
		ret = load_events(k, k->ev_path, err);
	if (ret)
		goto out;
	ret = slurp(st_path, CORECAP_KERNEL_MAGIC_STACKS, &k->st_buf, &k->st_bytes, err);
	if (ret == -ENOENT) {
		ret = 0;
		goto out;
	}
	if (!ret) {
		k->has_stacks = true;
		ret = walk_stacks(k, st_path, ws, we, err);
	}
out:
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
	size_t len = 0;
	int ret;

	*err = NULL;
	k->ws = ws;
	k->we = we;
	ret = copy_in(ev, n_ev, &k->ev_mem, &len);
	k->ev_bytes = len;
	if (!ret)
		ret = load_events(k, CORECAP_KERNEL_EVENTS_FILE, err);
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

	if (!k->stack_bits || !stack_bit_set(k, tid, event_time_ns, kind))
		return NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kernel_stack_ref *s = &k->stacks[mid];

		if (s->tid < tid ||
		    (s->tid == tid && (s->event_time_ns < event_time_ns ||
				       (s->event_time_ns == event_time_ns && s->kind < kind))))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < k->n_stacks && k->stacks[lo].tid == tid &&
	    k->stacks[lo].event_time_ns == event_time_ns && k->stacks[lo].kind == kind)
		return k->stacks[lo].s;
	return NULL;
}

const uint64_t *corecap_kernel_stack_frames(const struct corecap_krec_stack *s)
{
	return (const uint64_t *)(const void *)(s + 1);
}

/* Cursors. */

/* Moves CPU c's stream to its next record (in its spans, in file order,
 * neither a mark nor a stray): 0 (s->head NULL at the end) or -errno. */
static int stream_next(const struct kernel_reader *k, struct kernel_cpu_stream *s, uint32_t c)
{
	const struct kernel_cpu_spans *sp = &k->spans[c];
	struct win w = {s->buf, STREAM_BYTES, s->len, s->base};
	uint64_t off = s->head ? s->head_off + s->head->size : 0;
	int ret = 0;

	s->head = NULL;
	while (s->span < sp->len) {
		const struct kernel_span *span = &sp->v[s->span];
		const struct corecap_krec *r;
		const unsigned char *p;
		char *why = NULL;

		if (off < span->start)
			off = span->start;
		if (off >= span->end) {
			s->span++;
			continue;
		}
		if (span->end > k->ev_end || span->end - off < sizeof(*r) ||
		    (ret = win_get(k, &w, off, sizeof(*r), span->end, &p)))
			break;
		r = (const void *)p;
		if (r->size < sizeof(*r) || r->size > span->end - off ||
		    (ret = win_get(k, &w, off, r->size, span->end, &p)))
			break;
		r = (const void *)p;
		/* Checked again: the file may have changed since it was loaded;
		 * records decoded from version 2 or 3 were checked as they were
		 * decoded, into a file no other process can name (or memory), so
		 * only their types are told apart again. */
		if (k->hdr.version != CORECAP_KERNEL_FORMAT_V1)
			ret = r->type < KERNEL_REC_TYPES && min_size[r->type] ? 0 : 1;
		else
			ret = check_rec(k, r, off,
					k->ev_path ? k->ev_path : CORECAP_KERNEL_EVENTS_FILE, &why);
		if (why)
			free(why);
		if (ret < 0)
			break;
		if (ret == 0 && r->cpu == c && !side_type(r->type) && r->time_ns >= s->last_ns) {
			s->last_ns = r->time_ns;
			s->head = r;
			s->head_off = off;
			break;
		}
		ret = 0;
		off += r->size;
	}
	s->len = w.len;
	s->base = w.base;
	if (ret < 0 || (!s->head && s->span < sp->len))
		return ret < 0 && ret != -EINVAL ? ret : -EIO;
	return 0;
}

static bool heap_less(const void *ctx, uint32_t a, uint32_t b)
{
	const struct kernel_cursor *c = ctx;

	return before(c->cpu[a].head, c->cpu[a].head_off, c->cpu[b].head, c->cpu[b].head_off);
}

static void heap_down(struct kernel_cursor *c, uint32_t i)
{
	corecap_heap_down(c->heap, c->n_heap, i, heap_less, c);
}

int corecap_kernel_cursor_open(struct kernel_cursor *c, const struct kernel_reader *k)
{
	uint32_t nc = k->hdr.nr_cpus;
	int ret;

	*c = (struct kernel_cursor){.k = k, .from = -2};
	if (!k->spans)
		return 0; /* nothing loaded */
	c->cpu = calloc(nc, sizeof(*c->cpu));
	c->heap = calloc(nc, sizeof(*c->heap));
	if (!c->cpu || !c->heap) {
		corecap_kernel_cursor_close(c);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nc; i++) {
		struct kernel_cpu_stream *s = &c->cpu[i];

		if (!k->spans[i].len)
			continue;
		if (!(s->buf = malloc(STREAM_BYTES))) {
			corecap_kernel_cursor_close(c);
			return -ENOMEM;
		}
		if ((ret = stream_next(k, s, i))) {
			corecap_kernel_cursor_close(c);
			return ret;
		}
		if (s->head)
			c->heap[c->n_heap++] = i;
	}
	for (uint32_t i = c->n_heap / 2; i-- > 0;)
		heap_down(c, i);
	return 0;
}

int corecap_kernel_cursor_next(struct kernel_cursor *c, const struct corecap_krec **r)
{
	const struct kernel_reader *k = c->k;
	const struct kernel_side_rec *side;
	int ret;

	if (c->from >= 0) {
		if ((ret = stream_next(k, &c->cpu[c->from], (uint32_t)c->from)))
			return ret;
		if (!c->cpu[c->from].head)
			c->heap[0] = c->heap[--c->n_heap];
		heap_down(c, 0);
	} else if (c->from == -1) {
		c->next_side++;
	}
	side = c->next_side < k->n_side ? &k->side[c->next_side] : NULL;
	if (c->n_heap) {
		const struct kernel_cpu_stream *s = &c->cpu[c->heap[0]];

		if (!side || before(s->head, s->head_off, side->r, side->off)) {
			c->from = (int)c->heap[0];
			*r = s->head;
			c->off = s->head_off;
			c->given++;
			return 1;
		}
	}
	if (side) {
		c->from = -1;
		*r = side->r;
		c->off = side->off;
		c->given++;
		return 1;
	}
	c->from = -2;
	/* Fewer records than loading counted: the file changed. */
	return c->given == k->n_recs ? 0 : -EIO;
}

void corecap_kernel_cursor_close(struct kernel_cursor *c)
{
	if (c->cpu)
		for (uint32_t i = 0; i < c->k->hdr.nr_cpus; i++)
			free(c->cpu[i].buf);
	free(c->cpu);
	free(c->heap);
	*c = (struct kernel_cursor){.from = -2};
}

int corecap_kernel_reader_each(const struct kernel_reader *k,
			       int (*fn)(void *ctx, const struct corecap_krec *r), void *ctx)
{
	struct kernel_cursor c;
	const struct corecap_krec *r;
	int ret = corecap_kernel_cursor_open(&c, k);

	while (!ret && (ret = corecap_kernel_cursor_next(&c, &r)) == 1)
		ret = fn(ctx, r);
	corecap_kernel_cursor_close(&c);
	return ret;
}
