#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <corecap/stats_layout.h>
#include <corecap/stats_path.h>

#include <corecap/diag.h>
#include "run_dir.h"
#include "stats_snapshot.h"

void corecap_stats_snapshot_init(struct corecap_stats_snapshot *ss, pid_t pid)
{
	memset(ss, 0, sizeof(*ss));
	corecap_stats_path(pid, ss->path, sizeof(ss->path));
	ss->present = access(ss->path, F_OK) == 0;
}

int corecap_stats_snapshot_take(struct corecap_stats_snapshot *ss, struct corecap_run_dir *rd,
				const char *name)
{
	void *map = MAP_FAILED;
	void *copy = NULL;
	struct stat st;
	size_t len = 0;
	int ret = 0;
	int in, out;

	in = open(ss->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0) {
		ret = -errno;
		corecap_error("cannot open the shim's counters '%s': %s", ss->path,
			      strerror(errno));
		goto out;
	}
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct corecap_stats_header)) {
		ret = -EINVAL;
		corecap_error("'%s' is not a corecap counters file", ss->path);
		goto out_close_in;
	}
	len = (size_t)st.st_size & ~(size_t)7;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, in, 0);
	copy = malloc(len);
	if (map == MAP_FAILED || !copy) {
		ret = map == MAP_FAILED ? -errno : -ENOMEM;
		corecap_error("cannot map '%s': %s", ss->path, strerror(-ret));
		goto out_free;
	}
	ret = corecap_stats_copy(copy, map, len, 200);
	if (ret == -EAGAIN) {
		ss->torn++;
		corecap_warn("the shim's counters '%s' kept changing; no consistent copy for %s",
			     ss->path, name);
		goto out_free;
	}
	if (ret < 0 || !corecap_stats_valid(copy, len)) {
		ret = -EINVAL;
		corecap_error("'%s' is not a corecap counters file of version %d", ss->path,
			      CORECAP_STATS_VERSION);
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
	if (map != MAP_FAILED)
		munmap(map, len);
out_close_in:
	close(in);
out:
	return ret;
}
