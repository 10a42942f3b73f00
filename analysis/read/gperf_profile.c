#include "gperf_profile.h"
#include <corecap/diag.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_file.h"
#include "../util/grow.h"

/* A profile is read whole; this bounds what a garbage path can make us allocate. */
#define GPERF_MAX_FILE_BYTES ((size_t)1 << 32)

struct slot_reader {
	const unsigned char *buf;
	size_t len;
	unsigned bytes;
	bool big_endian;
};

static uint64_t slot_at(const struct slot_reader *r, size_t idx)
{
	const unsigned char *s = r->buf + idx * r->bytes;
	uint64_t v = 0;

	if (r->big_endian)
		for (unsigned i = 0; i < r->bytes; i++)
			v = v << 8 | s[i];
	else
		for (unsigned i = r->bytes; i-- > 0;)
			v = v << 8 | s[i];
	return v;
}

static size_t n_slots(const struct slot_reader *r)
{
	return r->len / r->bytes;
}

void corecap_gperf_profile_init(struct gperf_profile *p)
{
	*p = (struct gperf_profile){0};
}

void corecap_gperf_profile_release(struct gperf_profile *p)
{
	free(p->samples);
	free(p->pcs);
	free(p->maps);
	corecap_gperf_profile_init(p);
}

/* Finds word size and byte order from the first header words, as pprof does. */
static int detect_layout(struct slot_reader *r, char **err)
{
	static const unsigned char zero[8];
	const unsigned char *b = r->buf;

	if (r->len == 0)
		return corecap_err(err, -EINVAL, "empty file");
	if (r->len >= 13 && memcmp(b, "heap profile:", 13) == 0)
		return corecap_err(err, -EINVAL, "a heap profile, not a CPU profile");
	if (r->len >= 3 && memcmp(b, "---", 3) == 0)
		return corecap_err(
			err, -EINVAL,
			"a text or symbolized profile; only the binary CPU profile is read");
	if (r->len < 8)
		return corecap_err(err, -EINVAL, "truncated header (%zu bytes)", r->len);
	if (memcmp(b, zero, 8) == 0) {
		r->bytes = 8;
		if (r->len < 16)
			return corecap_err(err, -EINVAL, "truncated header (%zu bytes)", r->len);
		if (memcmp(b + 12, zero, 4) == 0)
			r->big_endian = false;
		else if (memcmp(b + 8, zero, 4) == 0)
			r->big_endian = true;
		else
			return corecap_err(err, -EINVAL, "not a CPU profile (header size >= 2^32)");
	} else {
		r->bytes = 4;
		if (memcmp(b, zero, 4) != 0)
			return corecap_err(err, -EINVAL,
					   "not a CPU profile (its first word is not 0)");
		if (memcmp(b + 6, zero, 2) == 0)
			r->big_endian = false;
		else if (memcmp(b + 4, zero, 2) == 0)
			r->big_endian = true;
		else
			return corecap_err(err, -EINVAL, "not a CPU profile (header size >= 2^16)");
	}
	return 0;
}

int corecap_gperf_profile_parse(struct gperf_profile *p, const void *buf, size_t len, char **err)
{
	struct slot_reader r = {.buf = buf, .len = len};
	struct gperf_profile out = {0};
	size_t cap_samples = 0, cap_pcs = 0, i, n, maps_off;
	uint64_t hdr_words;
	bool trailer = false;
	int ret;

	*err = NULL;
	ret = detect_layout(&r, err);
	if (ret)
		return ret;
	n = n_slots(&r);
	out.slot_bytes = r.bytes;
	out.big_endian = r.big_endian;
	hdr_words = slot_at(&r, 1);
	if (hdr_words < 3 || hdr_words > 1u << 16)
		return corecap_err(err, -EINVAL,
				   "corrupt header (%" PRIu64 " header words; expected 3)",
				   hdr_words);
	if (n < 2 + hdr_words)
		return corecap_err(err, -EINVAL, "truncated header (%zu bytes)", len);
	out.version = slot_at(&r, 2);
	out.period_us = slot_at(&r, 3);
	if (out.version > UINT32_MAX || out.period_us > UINT32_MAX)
		return corecap_err(err, -EINVAL,
				   "corrupt header (version %" PRIu64 ", period %" PRIu64 " us)",
				   out.version, out.period_us);
	i = 2 + hdr_words;
	while (i < n) {
		uint64_t count, depth;

		if (i + 2 > n)
			break;
		count = slot_at(&r, i);
		depth = slot_at(&r, i + 1);
		if (depth == 0 || depth > GPERF_MAX_DEPTH) {
			ret = corecap_err(err, -EINVAL,
					  "corrupt sample record at byte %zu (stack depth %" PRIu64
					  ")",
					  i * r.bytes, depth);
			goto out_free;
		}
		if (i + 2 + depth > n) {
			ret = corecap_err(err, -EINVAL,
					  "truncated sample record at byte %zu (depth %" PRIu64
					  ", %zu bytes left)",
					  i * r.bytes, depth, len - i * r.bytes);
			goto out_free;
		}
		/* As pprof: a first PC of 0 ends the data (libprofiler writes 0 1 0). */
		if (slot_at(&r, i + 2) == 0) {
			i += 2 + depth;
			trailer = true;
			break;
		}
		if (corecap_grow((void **)&out.samples, &cap_samples, out.n_samples + 1,
				 sizeof(*out.samples)) ||
		    corecap_grow((void **)&out.pcs, &cap_pcs, out.n_pcs + depth,
				 sizeof(*out.pcs))) {
			ret = corecap_err(err, -ENOMEM, "out of memory after %zu samples",
					  out.n_samples);
			goto out_free;
		}
		out.samples[out.n_samples++] =
			(struct gperf_sample){count, (uint32_t)depth, out.n_pcs};
		for (uint64_t j = 0; j < depth; j++)
			out.pcs[out.n_pcs++] = slot_at(&r, i + 2 + j);
		out.total += count;
		i += 2 + depth;
	}
	if (!trailer) {
		ret = corecap_err(
			err, -EINVAL,
			"truncated: no end-of-data trailer (0 1 0) after %zu sample records "
			"(%zu bytes)",
			out.n_samples, len);
		goto out_free;
	}
	maps_off = i * r.bytes;
	out.maps_len = len - maps_off;
	out.maps = malloc(out.maps_len + 1);
	if (!out.maps) {
		ret = corecap_err(err, -ENOMEM, "out of memory for the maps text");
		goto out_free;
	}
	memcpy(out.maps, (const char *)buf + maps_off, out.maps_len);
	out.maps[out.maps_len] = '\0';
	corecap_gperf_profile_release(p);
	*p = out;
	return 0;
out_free:
	corecap_gperf_profile_release(&out);
	return ret;
}

int corecap_gperf_profile_load(struct gperf_profile *p, const char *path, char **err)
{
	struct stat st;
	unsigned char *buf = NULL;
	size_t got = 0;
	char *why = NULL;
	int fd, ret = 0;

	*err = NULL;
	/* A FIFO in its place must not block the open: run_file refuses it at once. */
	fd = corecap_run_file_open(path);
	if (fd < 0)
		return corecap_err(err, fd == -ENOTREG_RUN_FILE ? -EINVAL : fd,
				   "cannot read profile '%s': %s", path,
				   corecap_run_file_strerror(-fd));
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		corecap_err(err, ret, "cannot read profile '%s': %s", path, strerror(-ret));
		goto out_close_fd;
	}
	if ((uint64_t)st.st_size > GPERF_MAX_FILE_BYTES) {
		ret = corecap_err(err, -EFBIG, "cannot read profile '%s': larger than 4 GiB", path);
		goto out_close_fd;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		ret = corecap_err(err, -ENOMEM, "cannot read profile '%s': out of memory", path);
		goto out_close_fd;
	}
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			ret = -errno;
			corecap_err(err, ret, "cannot read profile '%s': %s", path, strerror(-ret));
			goto out_free_buf;
		}
		if (k == 0)
			break; /* the file shrank: parse what is there */
		got += (size_t)k;
	}
	ret = corecap_gperf_profile_parse(p, buf, got, &why);
	if (ret)
		corecap_err(err, ret, "cannot read profile '%s': %s", path,
			    why ? why : "out of memory");
	free(why);
out_free_buf:
	free(buf);
out_close_fd:
	close(fd);
	return ret;
}

/* pprof's IsSecondPcAlwaysTheSame: the PC profiler frames leave on every stack. */
static bool second_pc_always_same(const struct gperf_profile *p, uint64_t *pc)
{
	bool have = false;

	for (size_t s = 0; s < p->n_samples; s++) {
		const struct gperf_sample *smp = &p->samples[s];

		if (smp->depth < 2)
			return false;
		if (!have) {
			*pc = p->pcs[smp->first + 1];
			have = true;
		} else if (*pc != p->pcs[smp->first + 1]) {
			return false;
		}
	}
	return have;
}

static void remove_pc(struct gperf_profile *p, struct gperf_sample *smp, uint32_t at)
{
	uint64_t *pcs = p->pcs + smp->first;

	memmove(pcs + at, pcs + at + 1, (smp->depth - at - 1) * sizeof(*pcs));
	smp->depth--;
}

void corecap_gperf_profile_normalize(struct gperf_profile *p)
{
	uint64_t second;

	if (p->normalized)
		return;
	p->normalized = true;
	/* A caller's PC is a return address: step back into the call instruction. */
	for (size_t s = 0; s < p->n_samples; s++)
		for (uint32_t j = 1; j < p->samples[s].depth; j++)
			p->pcs[p->samples[s].first + j]--;
	/*
	 * The same second PC on every stack is an artifact of measurement
	 * (a frame the profiler's signal handler pushed): pprof deletes it,
	 * and the next one too when it only repeats the top PC.
	 */
	while (second_pc_always_same(p, &second)) {
		p->removed_second_pcs++;
		for (size_t s = 0; s < p->n_samples; s++) {
			struct gperf_sample *smp = &p->samples[s];
			uint64_t *pcs = p->pcs + smp->first;

			remove_pc(p, smp, 1);
			if (smp->depth > 2 && pcs[1] + 1 == pcs[0])
				remove_pc(p, smp, 1);
		}
	}
}

int corecap_gperf_profile_write_maps(const struct gperf_profile *p, char **path, char **err)
{
	const char *dir = getenv("TMPDIR");
	size_t done = 0;
	int fd, ret = 0;

	*err = NULL;
	if (asprintf(path, "%s/corecap-maps-XXXXXX", dir && *dir ? dir : "/tmp") < 0) {
		*path = NULL;
		return corecap_err(err, -ENOMEM, "out of memory");
	}
	fd = mkstemp(*path);
	if (fd < 0) {
		ret = -errno;
		corecap_err(err, ret, "cannot create '%s': %s", *path, strerror(-ret));
		goto out_free_path;
	}
	while (done < p->maps_len) {
		ssize_t k = write(fd, p->maps + done, p->maps_len - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			ret = -errno;
			corecap_err(err, ret, "cannot write '%s': %s", *path, strerror(-ret));
			unlink(*path);
			close(fd);
			goto out_free_path;
		}
		done += (size_t)k;
	}
	close(fd);
	return 0;
out_free_path:
	free(*path);
	*path = NULL;
	return ret;
}
