/*
 * wall_samples: RUN/wall.samples, the wall-clock sampler's stacks
 * (docs/run-directory.md): one line per thread per sample,
 * "time_ns<TAB>tid<TAB>stop_ns<TAB>ip0 ip1 ..." with ip0 innermost, in hex
 * without 0x. Read streaming: each well-formed line is handed to a
 * callback and forgotten, so memory does not grow with the file. Lines
 * that do not parse are counted (bad_lines) and skipped, never guessed.
 */
#ifndef CORECAP_WALL_SAMPLES_H
#define CORECAP_WALL_SAMPLES_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#define WALL_MAX_DEPTH 256
/* The longest line read: the sampler writes at most 128 frames (about 2.3
 * KiB); a longer line is not its, and an error. */
#define WALL_SAMPLES_MAX_LINE (64u << 10)

struct wall_sample {
	uint64_t time_ns, stop_ns;
	int32_t tid;
	size_t depth;
	const uint64_t *ips; /* innermost first; valid during the callback */
};

/* Returns 0, or a negative errno that stops the reading. */
typedef int (*wall_sample_fn)(void *ctx, const struct wall_sample *s);

struct wall_samples {
	uint64_t lines, samples, bad_lines, truncated_stacks;
	bool torn_last_line; /* the file ends mid-line; that line is dropped */
	uint64_t ips[WALL_MAX_DEPTH];
};

void corecap_wall_samples_init(struct wall_samples *w);
/*
 * Reads path, calling fn for each sample. A last line without its newline
 * (the collector was killed while writing it) is dropped and
 * torn_last_line set. 0; -ENOENT when the file does
 * not exist; another negative errno with *err (malloc'd, naming the file):
 * the file over its bound (read/run_file.h), a line longer than
 * WALL_SAMPLES_MAX_LINE or a NUL byte among others.
 */
int corecap_wall_samples_read(struct wall_samples *w, const char *path, wall_sample_fn fn,
			      void *ctx, char **err);
void corecap_wall_samples_release(struct wall_samples *w);

#endif
