/*
 * kernel_reader: a run's kernel records, RUN/kernel/events.bin and
 * RUN/kernel/stacks.bin (layouts: common/include/corecap/kernel_format.h),
 * validated whole before anything uses them, then streamed.
 *
 * Loading reads events.bin once with a fixed buffer and checks every
 * record; it keeps only what is small: the counts, an index of each CPU's
 * stretches of the file (the collector drains one ring at a time, so a
 * CPU's records come in runs), and the few records out of their CPU's time
 * order (the collector's window and track marks, the other processes'
 * names, strays), copied. A cursor (corecap_kernel_cursor_*) then gives
 * the records in time order:
 * one fixed buffer per CPU, reading that CPU's stretches, merged by a heap
 * over the CPUs' heads. Memory is flat in the trace's length: the buffers,
 * the index (16 bytes a stretch, at most KERNEL_INDEX_MAX_BYTES: beyond,
 * neighbouring stretches of a CPU are joined, which costs reading others'
 * records, never memory) and the marks (about one per thread).
 *
 * What it guarantees once loaded:
 *  - every record a cursor gives is one of the known types, lies wholly
 *    inside the file, is at least as large as its struct, has a CPU below
 *    the header's nr_cpus, tids in 1..CORECAP_KERNEL_MAX_TID (0 only where
 *    the idle task is meant: a switch's prev or next, a waker; -1 for a
 *    waker perf could not name, from an interrupt), and a time within
 *    KERNEL_TIME_SLACK_NS of the recording window;
 *  - a cursor gives them sorted by time, records of equal time in file
 *    order (the file is ordered per CPU only): a stable sort's order;
 *  - every stack in `stacks` has a known kind, nframes <= 128 and a size
 *    that holds its frames, sorted by (tid, event_time_ns, kind);
 *  - records of unknown types (a later revision) are skipped and counted,
 *    so is a trailing fragment (a collector killed mid-write).
 * Anything else (bad magic, version, header, a record that breaks one of
 * the rules) is an error naming the file, the offset and the cause: a
 * hostile file never crashes the reader and never gives figures. A file
 * changed after loading makes a cursor fail (-EIO), never give records
 * that were not checked.
 *
 * events.bin of version 2 (blocks of narrower records, kernel_format.h)
 * is first decoded, a block at a time, into version 1's records in a
 * private unlinked file in $TMPDIR (loaded from buffers: memory), each
 * record checked there as above, the errors naming its block's offset,
 * and indexed as it is written (the same walk: no second read of the
 * file); the cursors read that file as version 1, so both versions give
 * the same records with the same guarantees. Since nothing else can
 * write that file, the cursors check again only a version-1 events.bin's
 * records. The disk holds about twice events.bin's size while the reader
 * is loaded.
 *
 * stacks.bin is the one part read whole: its stacks are looked up by key
 * (futex wait call sites), in no order the file has. It is small: the
 * collector samples stacks at a bounded rate (about 30 KB/s on refosd,
 * 0.2% of events.bin).
 */
#ifndef CORECAP_KERNEL_READER_H
#define CORECAP_KERNEL_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <corecap/kernel_format.h>

/* Records may precede the window (the rings open before it starts) or
 * follow it (drained after it ends); farther than this is not this run. */
#define KERNEL_TIME_SLACK_NS   (60ull * 1000000000ull)
#define CORECAP_KERNEL_MAX_TID 4194304 /* the kernel's PID_MAX_LIMIT */
/* Record types this reader knows are below this; it skips the others. */
#define KERNEL_REC_TYPES (CORECAP_KREC_HOLDER + 1)
/* The index of the CPUs' stretches of events.bin, at most. */
#define KERNEL_INDEX_MAX_BYTES (4u << 20)

/* A stretch [start, end) of events.bin holding records of one CPU. */
struct kernel_span {
	uint64_t start, end;
};

struct kernel_cpu_spans {
	struct kernel_span *v;
	size_t len, cap;
	uint64_t last_ns; /* time of its last record in file order (out-of-order check) */
};

/* A record kept in memory: a mark or a stray, with its file offset. */
struct kernel_side_rec {
	uint64_t off;
	struct corecap_krec *r; /* malloc'd copy */
};

/* A stack of stacks.bin by its key, the key beside it: the lookups' binary
 * search reads the index alone. */
struct kernel_stack_ref {
	uint64_t event_time_ns;
	int32_t tid;
	uint32_t kind;
	const struct corecap_krec_stack *s;
};

struct kernel_reader {
	struct corecap_kfile_header hdr;
	char *ev_path;			/* events.bin, for the cursors' errors */
	int ev_fd;			/* events.bin, read by the cursors; -1 with ev_mem */
	unsigned char *ev_mem;		/* corecap_kernel_reader_load_buffers: the bytes */
	uint64_t ev_bytes;		/* the file's size */
	uint64_t ev_end;		/* the end of its last whole record */
	uint64_t ws, we;		/* the window the times were checked against */
	struct kernel_cpu_spans *spans; /* by CPU */
	struct kernel_side_rec *side;	/* sorted by (time, off) */
	size_t n_side, cap_side;
	unsigned char *st_buf; /* stacks.bin as read */
	size_t st_bytes;
	struct kernel_stack_ref *stacks; /* sorted by (tid, event_time_ns, kind) */
	size_t n_stacks;
	/* A bit per hash of each stack's key (16 bits a stack): most futex
	 * waits have no stack, and a clear bit says so without the search. */
	uint64_t *stack_bits;
	uint32_t stack_bits_log2;
	bool has_stacks; /* stacks.bin was there */
	size_t n_recs;	 /* known records a cursor gives */
	uint64_t lost;	 /* records the rings dropped (lost records) */
	uint64_t unknown_records, trailing_bytes;
	uint64_t counts[KERNEL_REC_TYPES]; /* records by type */
	uint32_t joins; /* times the index was halved (KERNEL_INDEX_MAX_BYTES) */
};

void corecap_kernel_reader_init(struct kernel_reader *k);
/*
 * Loads RUN/kernel/. ws, we: the recording window (we = 0: unknown; times
 * are then not checked). 0; -ENOENT when kernel/events.bin does not exist;
 * another negative errno with *err (malloc'd, naming the file) otherwise.
 * A missing stacks.bin is not an error (has_stacks false).
 */
int corecap_kernel_reader_load(struct kernel_reader *k, const char *run_dir, uint64_t ws,
			       uint64_t we, char **err);
/*
 * The same from the files' bytes (copied; st NULL: no stacks.bin), with
 * the same checks and errors (the fuzz harness's entry).
 */
int corecap_kernel_reader_load_buffers(struct kernel_reader *k, const unsigned char *ev,
				       size_t n_ev, const unsigned char *st, size_t n_st,
				       uint64_t ws, uint64_t we, char **err);
/* The stack of kind `kind` taken at tid's record of time event_time_ns, or NULL. */
const struct corecap_krec_stack *corecap_kernel_reader_stack(const struct kernel_reader *k,
							     int32_t tid, uint64_t event_time_ns,
							     uint16_t kind);
/* A stack's frames (nframes of them, innermost first). */
const uint64_t *corecap_kernel_stack_frames(const struct corecap_krec_stack *s);
void corecap_kernel_reader_release(struct kernel_reader *k);

/* One CPU's records in file order, read through a fixed buffer. */
struct kernel_cpu_stream {
	unsigned char *buf;
	size_t len, pos;		 /* bytes in buf; the head record's place */
	uint64_t base;			 /* file offset of buf[0] */
	size_t span;			 /* the span being read */
	uint64_t last_ns;		 /* out-of-order check, as at loading */
	const struct corecap_krec *head; /* its next record, or NULL: done */
	uint64_t head_off;
};

/* A pass over a loaded reader's records in time order. Several cursors may
 * be open on one reader at once; the reader must outlive them. */
struct kernel_cursor {
	const struct kernel_reader *k;
	struct kernel_cpu_stream *cpu; /* by CPU */
	uint32_t *heap;		       /* CPUs with a head, the earliest first */
	uint32_t n_heap;
	size_t next_side;
	int from; /* where the last record came from: a CPU, -1 side, -2 none */
	size_t given;
	uint64_t off; /* the file offset of the record last given */
};

/* 0 or -ENOMEM. */
int corecap_kernel_cursor_open(struct kernel_cursor *c, const struct kernel_reader *k);
/*
 * The next record in time order: 1 and *r (valid until the next call),
 * 0 at the end, or a negative errno (events.bin unreadable or changed
 * since it was loaded: -EIO).
 */
int corecap_kernel_cursor_next(struct kernel_cursor *c, const struct corecap_krec **r);
void corecap_kernel_cursor_close(struct kernel_cursor *c);
/* One pass: fn(ctx, r) for each record in time order, until fn returns
 * non-zero (returned). 0, or the cursor's or fn's error. */
int corecap_kernel_reader_each(const struct kernel_reader *k,
			       int (*fn)(void *ctx, const struct corecap_krec *r), void *ctx);

#endif
