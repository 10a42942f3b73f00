/*
 * fuzz_util: what every harness needs to hand libFuzzer's bytes to a
 * reader that takes a path, the way corecap's commands call it. The
 * bytes go into a memfd (a regular file in memory: no disk, no temp files
 * left behind by a crash) and the reader opens /proc/self/fd/N. Each
 * slot is one file; a harness with two inputs (stats-begin, stats-end)
 * uses two slots.
 */
#ifndef CORECAP_FUZZ_UTIL_H
#define CORECAP_FUZZ_UTIL_H

#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FUZZ_SLOTS 4

/* The path of a file holding exactly data[0..size), in slot (0..3). */
static inline const char *fuzz_file(int slot, const uint8_t *data, size_t size)
{
	static int fds[FUZZ_SLOTS] = {-1, -1, -1, -1};
	static char paths[FUZZ_SLOTS][32];

	if (fds[slot] < 0) {
		fds[slot] = memfd_create("corecap-fuzz", MFD_CLOEXEC);
		if (fds[slot] < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(paths[slot], sizeof(paths[slot]), "/proc/self/fd/%d", fds[slot]);
	}
	if (ftruncate(fds[slot], 0) != 0 ||
	    (size && pwrite(fds[slot], data, size, 0) != (ssize_t)size)) {
		perror("memfd write");
		abort();
	}
	return paths[slot];
}

/* data as a NUL-terminated string (malloc'd; embedded NULs stay). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Splits data at the first occurrence of sep: two inputs in one (maps and
 * buildids.tsv, stats-begin and stats-end). Without sep, both halves are
 * the whole input.
 */
static inline void fuzz_split(const uint8_t *data, size_t size, const char *sep, const uint8_t **a,
			      size_t *na, const uint8_t **b, size_t *nb)
{
	size_t k = strlen(sep);

	for (size_t i = 0; i + k <= size; i++)
		if (memcmp(data + i, sep, k) == 0) {
			*a = data;
			*na = i;
			*b = data + i + k;
			*nb = size - i - k;
			return;
		}
	*a = *b = data;
	*na = *nb = size;
}

/*
 * The harnesses of a cache file guarded by a hash in the 8 bytes before
 * its last 8 (the run cache's, the OpTracker history's): data[1..size)
 * copied (malloc'd, *len bytes), its hash made right by hash when data[0]'s
 * bit 0 is set, so that what the hash guards is fuzzed too.
 */
static inline uint8_t *fuzz_hashed_copy(const uint8_t *data, size_t size, size_t *len,
					uint64_t (*hash)(const unsigned char *, size_t))
{
	uint8_t *b;

	*len = size - 1;
	b = malloc(*len ? *len : 1);
	if (!b)
		abort();
	memcpy(b, data + 1, *len);
	if ((data[0] & 1) && *len >= 16) {
		uint64_t h = htole64(hash(b, *len - 16));

		memcpy(b + *len - 16, &h, 8);
	}
	return b;
}

#endif
