#include "io_limit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The line of text starting "major:minor " (its first byte after the blank); NULL if none. */
static const char *device_line(const char *text, unsigned major, unsigned minor, const char *from)
{
	char key[32];
	size_t n = (size_t)snprintf(key, sizeof(key), "%u:%u ", major, minor);

	for (const char *line = from ? from : text; line && *line;) {
		const char *end = strchr(line, '\n');

		if (strncmp(line, key, n) == 0)
			return line + n;
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

/* "key=value" pairs up to the line's end; value "max" is 0 (none). */
static int pairs(const char *p, const char *const *keys, size_t n_keys, uint64_t *vals)
{
	while (*p && *p != '\n') {
		size_t klen = strcspn(p, "= \n");
		const char *v = p + klen;
		uint64_t x = 0;
		size_t k;

		if (*v != '=')
			return -EINVAL;
		v++;
		if (strncmp(v, "max", 3) == 0)
			v += 3;
		else if (!corecap_cgroup_u64(v, &v, &x))
			return -EINVAL;
		if (*v != ' ' && *v != '\n' && *v != '\0')
			return -EINVAL;
		for (k = 0; k < n_keys; k++)
			if (strlen(keys[k]) == klen && strncmp(p, keys[k], klen) == 0)
				vals[k] = x;
		p = *v == ' ' ? v + 1 : v;
	}
	return 0;
}

/* The line of major:minor's four keys' values, 0 ("max" or absent) for none: 0, -ENOENT, -EINVAL. */
static int device_pairs(const char *text, unsigned major, unsigned minor,
			const char *const keys[4], uint64_t v[4])
{
	const char *p = device_line(text, major, minor, NULL);

	if (!p)
		return -ENOENT;
	memset(v, 0, 4 * sizeof(*v));
	return pairs(p, keys, 4, v);
}

int corecap_io_max_parse(const char *text, unsigned major, unsigned minor,
			 struct corecap_io_limit *l)
{
	static const char *const keys[] = {"riops", "wiops", "rbps", "wbps"};
	uint64_t v[4];
	int ret = device_pairs(text, major, minor, keys, v);

	if (ret)
		return ret;
	l->iops[0] = v[0];
	l->iops[1] = v[1];
	l->bps[0] = v[2];
	l->bps[1] = v[3];
	return 0;
}

int corecap_io_stat_parse(const char *text, unsigned major, unsigned minor, uint64_t ios[2],
			  uint64_t bytes[2])
{
	static const char *const keys[] = {"rios", "wios", "rbytes", "wbytes"};
	uint64_t v[4];
	int ret = device_pairs(text, major, minor, keys, v);

	if (ret)
		return ret;
	ios[0] = v[0];
	ios[1] = v[1];
	bytes[0] = v[2];
	bytes[1] = v[3];
	return 0;
}

int corecap_blkio_device_parse(const char *text, unsigned major, unsigned minor, uint64_t *v)
{
	const char *p = device_line(text, major, minor, NULL);

	if (!p)
		return -ENOENT;
	if (!corecap_cgroup_u64(p, &p, v) || (*p != '\n' && *p != '\0'))
		return -EINVAL;
	return 0;
}

int corecap_blkio_rw_parse(const char *text, unsigned major, unsigned minor, uint64_t rw[2])
{
	static const char *const ops[] = {"Read ", "Write "};
	bool found[2] = {false, false};

	for (const char *p = device_line(text, major, minor, NULL); p;) {
		const char *end;

		for (int k = 0; k < 2; k++)
			if (strncmp(p, ops[k], strlen(ops[k])) == 0) {
				if (!corecap_cgroup_u64(p + strlen(ops[k]), &end, &rw[k]) ||
				    (*end != '\n' && *end != '\0'))
					return -EINVAL;
				found[k] = true;
			}
		end = strchr(p, '\n');
		p = end ? device_line(text, major, minor, end + 1) : NULL;
	}
	return found[0] && found[1] ? 0 : -ENOENT;
}

/* The tightest (smallest non-zero) of two limits. */
static void tighter(uint64_t *have, uint64_t v, bool *took)
{
	if (v && (!*have || v < *have)) {
		*have = v;
		*took = true;
	}
}

/* One cgroup's limits (rel: its path under the mount); -ENOENT: no controller there. */
static int limits_of(int root, bool v1, const char *rel, unsigned major, unsigned minor,
		     struct corecap_io_limit *l, bool *took)
{
	static const char *const v1_files[] = {
		"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device",
		"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device"};
	char buf[CORECAP_CGROUP_FILE_MAX], file[CORECAP_CGROUP_PATH_MAX + 48];
	struct corecap_io_limit here = {0};
	uint64_t v[4] = {0};
	ssize_t n;
	int ret;

	if (!v1) {
		snprintf(file, sizeof(file), "%s/io.max", rel);
		n = corecap_cgroup_read(root, file, buf, sizeof(buf));
		if (n < 0)
			return (int)n;
		ret = corecap_io_max_parse(buf, major, minor, &here);
		if (ret == -ENOENT)
			return 0;
		if (ret)
			return ret;
		v[0] = here.iops[0], v[1] = here.iops[1], v[2] = here.bps[0], v[3] = here.bps[1];
	} else {
		for (int k = 0; k < 4; k++) {
			snprintf(file, sizeof(file), "%s/%s", rel, v1_files[k]);
			n = corecap_cgroup_read(root, file, buf, sizeof(buf));
			if (n < 0)
				return (int)n;
			ret = corecap_blkio_device_parse(buf, major, minor, &v[k]);
			if (ret && ret != -ENOENT)
				return ret;
		}
	}
	tighter(&l->iops[0], v[0], took);
	tighter(&l->iops[1], v[1], took);
	tighter(&l->bps[0], v[2], took);
	tighter(&l->bps[1], v[3], took);
	return 0;
}

/* The daemon's own cgroup's counts on the device (rel: its path under the mount). */
static void counts_of(int root, bool v1, const char *rel, unsigned major, unsigned minor,
		      struct corecap_io_limit *l)
{
	char buf[CORECAP_CGROUP_FILE_MAX], file[CORECAP_CGROUP_PATH_MAX + 48];

	if (!v1) {
		snprintf(file, sizeof(file), "%s/io.stat", rel[0] ? rel : ".");
		l->has_counts = corecap_cgroup_read(root, file, buf, sizeof(buf)) >= 0 &&
				corecap_io_stat_parse(buf, major, minor, l->ios, l->bytes) == 0;
		return;
	}
	snprintf(file, sizeof(file), "%s/blkio.throttle.io_serviced", rel[0] ? rel : ".");
	l->has_counts = corecap_cgroup_read(root, file, buf, sizeof(buf)) >= 0 &&
			corecap_blkio_rw_parse(buf, major, minor, l->ios) == 0;
	snprintf(file, sizeof(file), "%s/blkio.throttle.io_service_bytes", rel[0] ? rel : ".");
	l->has_counts = l->has_counts && corecap_cgroup_read(root, file, buf, sizeof(buf)) >= 0 &&
			corecap_blkio_rw_parse(buf, major, minor, l->bytes) == 0;
}

int corecap_io_limit_read(pid_t pid, unsigned major, unsigned minor, struct corecap_io_limit *l)
{
	char path[CORECAP_CGROUP_PATH_MAX], hier[64];
	bool v1 = false;
	int root, ret;

	*l = (struct corecap_io_limit){0};
	ret = corecap_cgroup_of(pid, "blkio", &v1, hier, sizeof(hier), path, sizeof(path));
	if (ret)
		return ret;
	root = corecap_cgroup_open(v1, hier);
	if (root < 0)
		return root;
	counts_of(root, v1, path + 1, major, minor, l);
	/* The cgroup, then each parent; the root cgroup has no limits of its own in v2. */
	for (char *slash; path[1] && (slash = strrchr(path, '/'));) {
		bool took = false;

		ret = limits_of(root, v1, path + 1, major, minor, l, &took);
		if (ret == -ENOENT)
			ret = 0; /* no io controller enabled at this level */
		else if (ret)
			break;
		if (took) {
			l->file = v1 ? "blkio.throttle" : "io.max";
			snprintf(l->cgroup, sizeof(l->cgroup), "%s", path);
		}
		if (slash == path)
			break;
		*slash = '\0';
	}
	close(root);
	return ret;
}
