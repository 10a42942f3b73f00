/*
 * gperf_profile: gperftools' legacy CPU profile, the binary file
 * libprofiler writes (CPUPROFILE), read without pprof:
 *
 *   header   0, n (header words after this one, >= 3), version (0),
 *            sampling period in us, n - 3 words of padding
 *   records  count, depth, pc[0] .. pc[depth - 1]   (pc[0] innermost)
 *   trailer  0, 1, 0
 *   maps     the profiled process's /proc/self/maps, as text, to the end
 *
 * Every word ("slot") is 32 or 64 bits in the writer's byte order; both
 * are detected from the first header words as pprof does (a 64-bit
 * profile starts with 8 zero bytes). A loaded profile guarantees: every
 * record lies wholly inside the file, its depth is 1..GPERF_MAX_DEPTH,
 * the trailer was seen, and `total` is the sum of the counts. Anything
 * else (a short file, a text or heap profile, a record running past the
 * end, a missing trailer) is refused with an error saying what and where;
 * nothing of a refused file is kept.
 *
 * corecap_gperf_profile_normalize() then applies pprof's address rules
 * (google-pprof's ReadCPUProfile and RemoveUninterestingFrames), so that
 * the stacks match what `google-pprof --collapsed` prints: caller PCs
 * minus one (the call instruction, not the return address), addresses
 * above 0x7fffffffffffffff dropped (fake entries), and a second frame
 * common to every stack (the profiler's signal frame) removed.
 */
#ifndef CORECAP_GPERF_PROFILE_H
#define CORECAP_GPERF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* pprof rejects deeper stacks as corrupt; libprofiler writes at most 64. */
#define GPERF_MAX_DEPTH (1u << 16)

struct gperf_sample {
	uint64_t count;
	uint32_t depth;
	size_t first; /* index of pc[0] in gperf_profile.pcs */
};

struct gperf_profile {
	unsigned slot_bytes; /* 4 or 8 */
	bool big_endian;
	uint64_t version, period_us;
	struct gperf_sample *samples;
	size_t n_samples;
	uint64_t *pcs; /* all records' PCs, innermost first per record */
	size_t n_pcs;
	uint64_t total; /* sum of counts */
	char *maps;	/* the maps text, NUL-terminated ("" when absent) */
	size_t maps_len;
	bool normalized;
	uint64_t removed_second_pcs; /* rounds of the common-second-frame rule */
};

void corecap_gperf_profile_init(struct gperf_profile *p);
void corecap_gperf_profile_release(struct gperf_profile *p);
/*
 * Parses a profile held in memory. 0, or -EINVAL (not a profile, or
 * corrupt) / -ENOMEM with *err (malloc'd) saying what, and where, without
 * the file's name (the caller adds it).
 */
int corecap_gperf_profile_parse(struct gperf_profile *p, const void *buf, size_t len, char **err);
/* Reads and parses path; *err names the file and the cause. */
int corecap_gperf_profile_load(struct gperf_profile *p, const char *path, char **err);
/* Applies pprof's address rules (see above) once; idempotent. */
void corecap_gperf_profile_normalize(struct gperf_profile *p);
/* Writes the maps text to a new private temporary file; its path in *path. */
int corecap_gperf_profile_write_maps(const struct gperf_profile *p, char **path, char **err);

#endif
