#include "shim_stats.h"

#include <corecap/stats_layout.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/u64map.h"
#include "run_file.h"

/* A version 1 file is about 2 MiB; a copy far larger is not one. */
#define SHIM_STATS_MAX_BYTES (256ull << 20)

void corecap_shim_stats_init(struct shim_stats *s)
{
	*s = (struct shim_stats){0};
}

void corecap_shim_stats_release(struct shim_stats *s)
{
	free(s->locks);
	free(s->sites);
	*s = (struct shim_stats){0};
}

static int read_copy(const char *path, void **buf, size_t *len, char **err)
{
	int fd = corecap_run_file_open(path), ret = 0;
	struct stat st;
	ssize_t n;
	size_t got = 0;

	*buf = NULL;
	if (fd == -ENOENT)
		return -ENOENT;
	if (fd < 0) {
		if (asprintf(err, "'%s': %s", path, corecap_run_file_strerror(-fd)) < 0)
			*err = NULL;
		return fd;
	}
	if (fstat(fd, &st) || st.st_size <= 0 || (uint64_t)st.st_size > SHIM_STATS_MAX_BYTES) {
		ret = -EINVAL;
		goto out;
	}
	*buf = malloc((size_t)st.st_size);
	if (!*buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size &&
	       (n = read(fd, (char *)*buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	*len = got;
	if (!corecap_stats_valid(*buf, got))
		ret = -EINVAL;
out:
	if (ret && ret != -ENOENT &&
	    (ret == -EINVAL ? asprintf(err, "'%s': not a corecap stats file of version %d", path,
				       CORECAP_STATS_VERSION)
			    : asprintf(err, "'%s': %s", path, strerror(-ret))) < 0)
		*err = NULL;
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	return ret;
}

static uint64_t delta(uint64_t end, uint64_t begin)
{
	return end >= begin ? end - begin : end;
}

/* Site deltas, matched by address between the two copies. */
static int load_sites(struct shim_stats *s, const void *b, const void *e)
{
	const struct corecap_stats_header *hb = b, *he = e;
	struct u64map in_begin;
	int ret = 0;

	corecap_u64map_init(&in_begin);
	for (uint32_t i = 0; i < hb->max_sites; i++) {
		const struct corecap_stats_site *st = corecap_stats_site_at(b, i);
		uint64_t *v;

		if (!st->addr)
			continue;
		v = corecap_u64map_upsert(&in_begin, st->addr, NULL);
		if (!v) {
			ret = -ENOMEM;
			goto out;
		}
		*v = i;
	}
	s->sites = calloc(he->max_sites ? he->max_sites : 1, sizeof(*s->sites));
	if (!s->sites) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < he->max_sites; i++) {
		const struct corecap_stats_site *st = corecap_stats_site_at(e, i), *st0 = NULL;
		struct shim_site_delta *d;
		uint64_t *v;

		if (!st->addr)
			continue;
		v = corecap_u64map_find(&in_begin, st->addr);
		if (v)
			st0 = corecap_stats_site_at(b, (uint32_t)*v);
		d = &s->sites[s->n_sites++];
		d->addr = st->addr;
		d->kind = (uint8_t)st->kind;
		d->acquisitions = delta(st->acquisitions, st0 ? st0->acquisitions : 0);
		d->contentions = delta(st->contentions, st0 ? st0->contentions : 0);
		d->wait_ns = delta(st->wait_ns, st0 ? st0->wait_ns : 0);
		d->holds = delta(st->holds, st0 ? st0->holds : 0);
		d->hold_ns = delta(st->hold_ns, st0 ? st0->hold_ns : 0);
	}
out:
	corecap_u64map_release(&in_begin);
	return ret;
}

static void load_io(struct shim_stats *s, const void *b, const void *e)
{
	const struct corecap_stats_header *hb = b, *he = e;
	struct corecap_stats_counters tb, te;

	corecap_stats_totals(b, &tb);
	corecap_stats_totals(e, &te);
	for (int c = 0; c < CORECAP_IO_CLASSES; c++) {
		struct shim_io_delta *d = &s->io[c];

		d->calls = delta(te.io_calls[c], tb.io_calls[c]);
		d->ns = delta(te.io_ns[c], tb.io_ns[c]);
		d->bytes = delta(te.io_bytes[c], tb.io_bytes[c]);
		d->sync_calls = delta(te.sync_calls[c], tb.sync_calls[c]);
		d->sync_ns = delta(te.sync_ns[c], tb.sync_ns[c]);
		d->aio_done = delta(te.aio_done[c], tb.aio_done[c]);
		d->aio_ns = delta(te.aio_ns[c], tb.aio_ns[c]);
		d->aio_bytes = delta(te.aio_bytes[c], tb.aio_bytes[c]);
	}
	s->aio_untimed =
		delta(he->aio_untracked + he->aio_unmatched, hb->aio_untracked + hb->aio_unmatched);
}

int corecap_shim_stats_diff(struct shim_stats *s, const void *b, const void *e)
{
	const struct corecap_stats_header *hb = b, *he = e;
	struct u64map in_begin;
	int ret = 0;

	corecap_u64map_init(&in_begin);
	s->pid = he->pid;
	s->hold_sample_every = he->hold_sample_every;
	s->locks_dropped = delta(he->locks_dropped, hb->locks_dropped);
	s->holds_dropped = delta(he->holds_dropped, hb->holds_dropped);
	s->sites_dropped = delta(he->sites_dropped, hb->sites_dropped);
	s->threads_dropped = delta(he->threads_dropped, hb->threads_dropped);
	{
		struct corecap_stats_counters t0, t1;

		corecap_stats_totals(b, &t0);
		corecap_stats_totals(e, &t1);
		for (int k = 0; k < CORECAP_IO_CLASSES; k++)
			s->io_calls += delta(t1.io_calls[k], t0.io_calls[k]);
		s->contentions = delta(t1.contentions, t0.contentions);
		s->lock_wait_ns = delta(t1.lock_wait_ns, t0.lock_wait_ns);
		s->cond_waits = delta(t1.cond_waits, t0.cond_waits);
		s->cond_wait_ns = delta(t1.cond_wait_ns, t0.cond_wait_ns);
	}
	load_io(s, b, e);
	for (uint32_t i = 0; i < hb->max_locks; i++) {
		const struct corecap_stats_lock *l = corecap_stats_lock_at(b, i);
		uint64_t *v;

		if (!l->addr)
			continue;
		v = corecap_u64map_upsert(&in_begin, l->addr, NULL);
		if (!v) {
			ret = -ENOMEM;
			goto out;
		}
		*v = i;
	}
	s->locks = calloc(he->max_locks ? he->max_locks : 1, sizeof(*s->locks));
	if (!s->locks) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < he->max_locks; i++) {
		const struct corecap_stats_lock *l = corecap_stats_lock_at(e, i), *l0 = NULL;
		struct shim_lock_delta *d;
		uint64_t *v;

		if (!l->addr)
			continue;
		v = corecap_u64map_find(&in_begin, l->addr);
		if (v)
			l0 = corecap_stats_lock_at(b, (uint32_t)*v);
		d = &s->locks[s->n_locks++];
		d->addr = l->addr;
		d->kind = (uint8_t)l->kind;
		d->hot_since_ns = l->hot_since_ns;
		d->first_site = l->first_site;
		d->acquisitions = delta(l->acquisitions, l0 ? l0->acquisitions : 0);
		d->contentions = delta(l->contentions, l0 ? l0->contentions : 0);
		d->wait_ns = delta(l->wait_ns, l0 ? l0->wait_ns : 0);
		d->holds = delta(l->holds, l0 ? l0->holds : 0);
		d->hold_ns = delta(l->hold_ns, l0 ? l0->hold_ns : 0);
	}
	ret = load_sites(s, b, e);
out:
	corecap_u64map_release(&in_begin);
	return ret;
}

int corecap_shim_stats_load(struct shim_stats *s, const char *begin_path, const char *end_path,
			    char **err)
{
	void *b = NULL, *e = NULL;
	size_t blen, elen;
	const struct corecap_stats_header *hb, *he;
	int ret;

	*err = NULL;
	ret = read_copy(begin_path, &b, &blen, err);
	if (!ret)
		ret = read_copy(end_path, &e, &elen, err);
	if (ret)
		goto out;
	hb = b;
	he = e;
	if (hb->pid != he->pid) {
		if (asprintf(err, "'%s' and '%s' belong to different processes (%d, %d)",
			     begin_path, end_path, hb->pid, he->pid) < 0)
			*err = NULL;
		ret = -EINVAL;
		goto out;
	}
	ret = corecap_shim_stats_diff(s, b, e);
out:
	free(b);
	free(e);
	return ret;
}
