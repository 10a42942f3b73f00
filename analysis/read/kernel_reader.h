/*
 * kernel_reader: a run's kernel records, RUN/kernel/events.bin and
 * RUN/kernel/stacks.bin (layouts: common/include/corecap/kernel_format.h),
 * read whole and validated before anything uses them.
 *
 * What it guarantees once loaded:
 *  - every record in `recs` is one of the known types, lies wholly inside
 *    the file, is at least as large as its struct, has a CPU below the
 *    header's nr_cpus, tids in 1..CORECAP_KERNEL_MAX_TID (0 only where the
 *    idle task is meant: a switch's prev or next, a waker; -1 for a waker
 *    perf could not name, from an interrupt), and a time within
 *    KERNEL_TIME_SLACK_NS of the recording window;
 *  - `recs` is sorted by time, records of equal time in file order (the
 *    file is ordered per CPU only);
 *  - every stack in `stacks` has a known kind, nframes <= 128 and a size
 *    that holds its frames, sorted by (tid, event_time_ns, kind);
 *  - records of unknown types (a later revision) are skipped and counted,
 *    so is a trailing fragment (a collector killed mid-write).
 * Anything else (bad magic, version, header, a record that breaks one of
 * the rules) is an error naming the file, the offset and the cause: a
 * hostile file never crashes the reader and never gives figures.
 * Records point into the file buffers, which stay owned by the struct.
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

struct kernel_reader {
	struct corecap_kfile_header hdr;
	unsigned char *ev_buf, *st_buf; /* the files as read */
	size_t ev_bytes, st_bytes;
	const struct corecap_krec **recs; /* known records, sorted by time */
	size_t n_recs;
	const struct corecap_krec_stack **stacks; /* sorted by (tid, event_time_ns, kind) */
	size_t n_stacks;
	bool has_stacks; /* stacks.bin was there */
	uint64_t lost;	 /* records the rings dropped (lost records) */
	uint64_t unknown_records, trailing_bytes;
	uint64_t counts[CORECAP_KREC_TRACK + 1]; /* records by type */
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

#endif
