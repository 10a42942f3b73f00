/* hash: FNV-1a, used to map an object name to its PG and to a store stripe. */
#ifndef REFOSD_HASH_H
#define REFOSD_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t hash_name(const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#endif /* REFOSD_HASH_H */
