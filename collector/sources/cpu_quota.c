#include "cpu_quota.h"
#include "util/cgroup_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The end of a one-number or one-line file: an optional newline, then nothing. */
static bool at_end(const char *p)
{
	return p[0] == '\0' || (p[0] == '\n' && p[1] == '\0');
}

int corecap_cpu_max_parse(const char *text, uint64_t *quota_us, uint64_t *period_us)
{
	const char *p = text;
	uint64_t q = 0, per;

	if (strncmp(p, "max", 3) == 0)
		p += 3;
	else if (!corecap_cgroup_u64(p, &p, &q) || q == 0)
		return -EINVAL;
	if (*p != ' ' || !corecap_cgroup_u64(p + 1, &p, &per) || per == 0 || !at_end(p))
		return -EINVAL;
	*quota_us = q;
	*period_us = per;
	return 0;
}

int corecap_cfs_quota_parse(const char *quota, const char *period, uint64_t *quota_us,
			    uint64_t *period_us)
{
	const char *p;
	uint64_t q = 0, per;

	if (strncmp(quota, "-1", 2) == 0 && at_end(quota + 2))
		q = 0;
	else if (!corecap_cgroup_u64(quota, &p, &q) || q == 0 || !at_end(p))
		return -EINVAL;
	if (!corecap_cgroup_u64(period, &p, &per) || per == 0 || !at_end(p))
		return -EINVAL;
	*quota_us = q;
	*period_us = per;
	return 0;
}

/* One cgroup's quota (rel: its path under the mount, no leading '/'); -ENOENT: no controller. */
static int quota_of(int root, bool v1, const char *rel, uint64_t *quota, uint64_t *period)
{
	char buf[CORECAP_CGROUP_FILE_MAX], buf2[CORECAP_CGROUP_FILE_MAX], file[CORECAP_CGROUP_PATH_MAX + 32];
	ssize_t n;

	snprintf(file, sizeof(file), "%s/%s", rel, v1 ? "cpu.cfs_quota_us" : "cpu.max");
	n = corecap_cgroup_read(root, file, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (!v1)
		return corecap_cpu_max_parse(buf, quota, period);
	snprintf(file, sizeof(file), "%s/cpu.cfs_period_us", rel);
	n = corecap_cgroup_read(root, file, buf2, sizeof(buf2));
	if (n < 0)
		return (int)n;
	return corecap_cfs_quota_parse(buf, buf2, quota, period);
}

int corecap_cpu_quota_read(pid_t pid, struct corecap_cpu_quota *q)
{
	char path[CORECAP_CGROUP_PATH_MAX], hier[64];
	double tightest = 0;
	bool v1 = false;
	int root, ret;

	*q = (struct corecap_cpu_quota){0};
	ret = corecap_cgroup_of(pid, "cpu", &v1, hier, sizeof(hier), path, sizeof(path));
	if (ret)
		return ret;
	root = corecap_cgroup_open(v1, hier);
	if (root < 0)
		return root;
	q->file = v1 ? "cpu.cfs_quota_us" : "cpu.max";
	/* The cgroup, then each parent; the root cgroup has no quota of its own in v2. */
	for (char *slash; path[1] && (slash = strrchr(path, '/'));) {
		uint64_t quota, period;

		ret = quota_of(root, v1, path + 1, &quota, &period);
		if (ret == -ENOENT) {
			ret = 0; /* no cpu controller enabled at this level */
		} else if (ret) {
			break;
		} else if (quota && (!tightest || (double)quota / (double)period < tightest)) {
			tightest = (double)quota / (double)period;
			q->quota_us = quota;
			q->period_us = period;
			snprintf(q->cgroup, sizeof(q->cgroup), "%s", path);
		}
		if (slash == path)
			break;
		*slash = '\0';
	}
	close(root);
	return ret;
}
