#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <corecap/stats_layout.h>
#include <corecap/stats_path.h>

#include <corecap/diag.h>
#include "util/run_dir.h"
#include "stats_snapshot.h"

/*
 * Opens pid's counters (corecap/stats_path.h: through the daemon itself,
 * checked for seals, owner and size) and maps them: the seal against
 * shrinking is what makes a mapping safe to read (no SIGBUS path), and
 * the mapping is what corecap_stats_copy() needs to read each counter
 * whole. 0, or -errno with the cause in why.
 */
static int map_counters(struct corecap_stats_snapshot *ss, const void **map, size_t *len, char *why,
			size_t cap)
{
	void *m;
	int fd;

	fd = corecap_stats_open(ss->pid, O_RDONLY, len, ss->path, sizeof(ss->path), why, cap);
	if (fd < 0)
		return fd;
	m = mmap(NULL, *len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(why, cap, "%s", strerror(errno));
		return -errno;
	}
	*map = m;
	return 0;
}

void corecap_stats_snapshot_init(struct corecap_stats_snapshot *ss, pid_t pid)
{
	char legacy[CORECAP_STATS_PATH_MAX], why[256];
	const void *map;
	size_t len;
	uid_t owner;
	int ret;

	memset(ss, 0, sizeof(*ss));
	ss->pid = pid;
	if (corecap_stats_legacy_file(pid, legacy, sizeof(legacy), &owner))
		corecap_warn("ignoring '%s' (owner uid %u): corecap reads the shim's counters "
			     "from process %d itself, never from a file",
			     legacy, (unsigned)owner, (int)pid);
	ret = map_counters(ss, &map, &len, why, sizeof(why));
	if (ret == 0) {
		munmap((void *)(uintptr_t)map, len);
		ss->present = true;
	} else if (ret != -ENOENT) {
		corecap_warn("ignoring the shim's counters of process %d: cannot use '%s': %s",
			     (int)pid, ss->path, why);
	}
}

int corecap_stats_snapshot_take(struct corecap_stats_snapshot *ss, struct corecap_run_dir *rd,
				const char *name)
{
	const void *map = NULL;
	void *copy = NULL;
	char why[256];
	size_t len = 0;
	int ret, out;

	ret = map_counters(ss, &map, &len, why, sizeof(why));
	if (ret < 0) {
		corecap_error("cannot read the shim's counters '%s': %s", ss->path, why);
		goto out;
	}
	copy = malloc(len);
	if (!copy) {
		ret = -ENOMEM;
		corecap_error("cannot copy '%s': %s", ss->path, strerror(ENOMEM));
		goto out_unmap;
	}
	ret = corecap_stats_copy(copy, map, len, 200);
	if (ret == -EAGAIN) {
		ss->torn++;
		corecap_warn("the shim's counters '%s' kept changing; no consistent copy for %s",
			     ss->path, name);
		goto out_free;
	}
	if (ret < 0 || !corecap_stats_valid(copy, len) ||
	    ((const struct corecap_stats_header *)copy)->pid != ss->pid) {
		ret = -EINVAL;
		corecap_error("'%s' is not the counters of process %d (corecap stats version %d)",
			      ss->path, (int)ss->pid, CORECAP_STATS_VERSION);
		goto out_free;
	}
	ret = corecap_run_dir_create_file(rd, name, &out);
	if (ret < 0)
		goto out_free;
	ret = corecap_write_all(out, copy, len);
	if (ret < 0)
		corecap_error("cannot write '%s/%s': %s", rd->path, name, strerror(-ret));
	if (close(out) < 0 && ret == 0)
		ret = -errno;
	if (ret < 0) {
		unlinkat(rd->dirfd, name, 0);
		goto out_free;
	}
	ss->bytes = len;
	ss->copies++;
out_free:
	free(copy);
out_unmap:
	munmap((void *)(uintptr_t)map, len);
out:
	return ret;
}
