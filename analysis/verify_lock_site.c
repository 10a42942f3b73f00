/*
 * corecap_verify_lock_site (corecap/analysis.h): the lock that report and
 * stat name `name`, looked up in a live process for corecap verify. The
 * shim's lock table holds every lock contended at least once, with the
 * site of its first contention; the name is the symbolizer's for the
 * lock's address, as stat's lock table prints it (read/symbolizer.h), so
 * the name a user copies from either reaches the same lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <corecap/analysis.h>
#include <corecap/stats_layout.h>
#include <corecap/stats_path.h>

#include "read/symbolizer.h"

/* A consistent copy of pid's live counters in *out (malloc'd), or a negative errno. */
static int copy_counters(pid_t pid, void **out, char *why, size_t why_size)
{
	char what[CORECAP_STATS_PATH_MAX], cause[256];
	size_t bytes = 0;
	void *map, *buf;
	int fd, ret;

	fd = corecap_stats_open(pid, O_RDONLY, &bytes, what, sizeof(what), cause, sizeof(cause));
	if (fd < 0) {
		snprintf(why, why_size, "cannot read the shim's locks of process %d ('%s'): %s",
			 (int)pid, what, cause);
		return fd;
	}
	map = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	ret = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (ret < 0) {
		snprintf(why, why_size, "cannot map '%s': %s", what, strerror(-ret));
		return ret;
	}
	/* calloc: the compiler cannot see that a copy that succeeded filled it. */
	buf = calloc(1, bytes);
	ret = buf ? corecap_stats_copy(buf, map, bytes, 100) : -ENOMEM;
	munmap(map, bytes);
	if (ret == 0 && !corecap_stats_valid(buf, bytes))
		ret = -EINVAL;
	if (ret < 0) {
		snprintf(why, why_size, "cannot copy the shim's counters of process %d: %s",
			 (int)pid,
			 ret == -EINVAL ? "not a stats file of a version corecap reads"
					: strerror(-ret));
		free(buf);
		return ret;
	}
	*out = buf;
	return 0;
}

int corecap_verify_lock_site(pid_t pid, const char *name, uint64_t *lock, uint64_t *site, char *why,
			     size_t why_size)
{
	const struct corecap_stats_header *h;
	struct symbolizer sym;
	char maps[64], *err = NULL;
	unsigned hits = 0, sites = 0;
	void *buf = NULL;
	int ret;

	ret = copy_counters(pid, &buf, why, why_size);
	if (ret < 0)
		return ret;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	ret = corecap_symbolizer_init(&sym, maps, NULL, NULL, &err);
	if (ret < 0) {
		snprintf(why, why_size, "cannot name the locks of process %d: %s", (int)pid,
			 err ? err : strerror(-ret));
		free(err);
		free(buf);
		return ret;
	}
	h = buf;
	for (uint32_t i = 0; i < h->max_locks; i++) {
		const struct corecap_stats_lock *e = corecap_stats_lock_at(buf, i);

		if (!e->addr || strcmp(corecap_symbolizer_name(&sym, e->addr, false), name) != 0)
			continue;
		/* One delay site: locks of one name first contended at one site are one answer. */
		if (!hits || e->first_site != *site)
			sites++;
		hits++;
		*lock = e->addr;
		*site = e->first_site;
	}
	corecap_symbolizer_release(&sym);
	free(buf);
	if (!hits) {
		snprintf(why, why_size,
			 "process %d has no contended lock named '%s' (the shim lists a lock once "
			 "it was contended; 'corecap stat -p %d' names them)",
			 (int)pid, name, (int)pid);
		return -ENOENT;
	}
	if (sites > 1) {
		snprintf(why, why_size,
			 "%u locks named '%s' were first contended at %u different sites: give "
			 "the site, FUNCTION+0xOFF, as report or stat prints it",
			 hits, name, sites);
		return -EEXIST;
	}
	return 0;
}
