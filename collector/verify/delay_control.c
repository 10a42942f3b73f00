#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "delay_control.h"
#include <corecap/diag.h>
#include <corecap/stats_path.h>

#include "util/mono_clock.h"

int corecap_delay_control_open(struct corecap_delay_control *dc, pid_t pid)
{
	char why[256];
	int fd, ret;

	memset(dc, 0, sizeof(*dc));
	dc->pid = pid;
	/*
	 * Read-write through the daemon's own descriptor (its user or root
	 * only), sealed against shrinking: the mapping has no SIGBUS path.
	 */
	fd = corecap_stats_open(pid, O_RDWR, &dc->bytes, dc->path, sizeof(dc->path), why,
				sizeof(why));
	if (fd < 0) {
		ret = fd;
		if (ret == -ENOENT)
			corecap_error("process %d has no shim counters (no '" CORECAP_STATS_LINK_FMT
				      "' in '%s'): is it running under the corecap shim?",
				      (int)pid, (int)pid, dc->path);
		else
			corecap_error("cannot open '%s': %s", dc->path, why);
		return ret;
	}
	dc->map = mmap(NULL, dc->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (dc->map == MAP_FAILED) {
		ret = -errno;
		dc->map = NULL;
		corecap_error("cannot map '%s': %s", dc->path, strerror(errno));
		goto out;
	}
	if (!corecap_stats_valid(dc->map, dc->bytes) ||
	    ((const struct corecap_stats_header *)dc->map)->pid != pid) {
		ret = -EINVAL;
		corecap_error("cannot use '%s': not a stats file of this corecap version",
			      dc->path);
		goto out_unmap;
	}
	dc->ctl = corecap_stats_control_at(dc->map);
	if (!dc->ctl) {
		ret = -ENOTSUP;
		corecap_error(
			"cannot use '%s': the shim of process %d has no runtime delay control "
			"(an older shim)",
			dc->path, (int)pid);
		goto out_unmap;
	}
	ret = 0;
	goto out;
out_unmap:
	munmap(dc->map, dc->bytes);
	dc->map = NULL;
out:
	close(fd);
	return ret;
}

static bool other_owner_active(const struct corecap_stats_control *c)
{
	int32_t owner = __atomic_load_n(&c->owner_pid, __ATOMIC_RELAXED);

	return __atomic_load_n(&c->active_site, __ATOMIC_RELAXED) != 0 && owner != getpid() &&
	       owner > 0 && (kill(owner, 0) == 0 || errno == EPERM);
}

static int write_control(struct corecap_delay_control *dc, uint64_t site, uint64_t ns)
{
	for (int i = 0; i < 1000; i++) {
		if (corecap_stats_control_write(dc->ctl, site, ns, (int32_t)getpid(),
						site ? corecap_now_ns() + CORECAP_DELAY_LEASE_NS
						     : 0) == 0)
			return 0;
		usleep(100);
	}
	return -EBUSY;
}

int corecap_delay_control_set(struct corecap_delay_control *dc, uint64_t site, uint64_t ns)
{
	if (site && other_owner_active(dc->ctl))
		return -EBUSY;
	dc->site = site;
	dc->ns = ns;
	return write_control(dc, site, ns);
}

int corecap_delay_control_renew(struct corecap_delay_control *dc)
{
	return dc->site ? write_control(dc, dc->site, dc->ns) : 0;
}

void corecap_delay_control_clear(struct corecap_delay_control *dc)
{
	if (!dc->ctl)
		return;
	dc->site = 0;
	/* One try per 100 us, bounded, with no library call but nanosleep. */
	for (int i = 0; i < 1000; i++) {
		struct timespec pause = {0, 100000};

		if (corecap_stats_control_write(dc->ctl, 0, 0, (int32_t)getpid(), 0) == 0)
			return;
		nanosleep(&pause, NULL);
	}
}

uint64_t corecap_delay_control_seq(const struct corecap_delay_control *dc)
{
	return __atomic_load_n(&dc->ctl->seq, __ATOMIC_ACQUIRE);
}

int corecap_delay_control_wait_applied(struct corecap_delay_control *dc, uint64_t want,
				       unsigned timeout_ms)
{
	for (unsigned i = 0; i < timeout_ms; i++) {
		if (__atomic_load_n(&dc->ctl->applied_seq, __ATOMIC_ACQUIRE) >= want)
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

void corecap_site_counters_read(const struct corecap_delay_control *dc, uint64_t site,
				struct corecap_site_counters *out)
{
	const struct corecap_stats_header *h = dc->map;

	memset(out, 0, sizeof(*out));
	if (!site)
		return; /* 0 marks an empty entry */
	for (uint32_t i = 0; i < h->max_sites; i++) {
		const struct corecap_stats_site *e = corecap_stats_site_at(dc->map, i);

		if (__atomic_load_n(&e->addr, __ATOMIC_ACQUIRE) != site ||
		    e->kind == CORECAP_KIND_COND)
			continue;
		out->found = true;
		out->acquisitions += __atomic_load_n(&e->acquisitions, __ATOMIC_RELAXED);
		out->contentions += __atomic_load_n(&e->contentions, __ATOMIC_RELAXED);
		out->wait_ns += __atomic_load_n(&e->wait_ns, __ATOMIC_RELAXED);
		out->holds += __atomic_load_n(&e->holds, __ATOMIC_RELAXED);
		out->hold_ns += __atomic_load_n(&e->hold_ns, __ATOMIC_RELAXED);
	}
}

void corecap_delay_control_close(struct corecap_delay_control *dc)
{
	if (dc->map) {
		corecap_delay_control_clear(dc);
		munmap(dc->map, dc->bytes);
	}
	dc->map = NULL;
	dc->ctl = NULL;
}

static int parse_hex(const char *text, uint64_t *out)
{
	char *end;

	if (strncmp(text, "0x", 2) != 0 || !text[2])
		return -EINVAL;
	errno = 0;
	*out = strtoull(text + 2, &end, 16);
	return errno || *end ? -EINVAL : 0;
}

int corecap_site_resolve(pid_t pid, const char *spec, uint64_t *addr)
{
	const char *plus = strrchr(spec, '+');
	char maps[64], line[4608];
	uint64_t off;
	size_t len;
	FILE *f;
	int ret = -ENOENT;

	if (strncmp(spec, "0x", 2) == 0)
		return parse_hex(spec, addr);
	if (!plus || plus == spec || parse_hex(plus + 1, &off) < 0)
		return -EINVAL;
	len = (size_t)(plus - spec);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, foff;
		char *path = strchr(line, '/'), *bn, *nl;

		if (!path || sscanf(line, "%llx-%llx %*s %llx", &start, &end, &foff) != 3 || foff)
			continue;
		nl = strchr(path, '\n');
		if (nl)
			*nl = '\0';
		bn = strrchr(path, '/') + 1;
		if (strlen(bn) == len && strncmp(bn, spec, len) == 0) {
			*addr = start + off;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}
