/* The kernel source's record writer (kernel_writer.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <corecap/kernel_format.h>
#include <corecap/kernel_v2.h>
#include <corecap/kernel_v3.h>
#include "kernel_events.h"
#include "kernel_writer.h"
#include "util/mono_clock.h"
#include "util/proc_stat.h"

static void thread_comm(pid_t pid, pid_t tid, char comm[16])
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	corecap_read_comm(path, comm);
}

/* Output buffer: whole records, flushed with one write(2). */

void *kernel_out_reserve(struct corecap_kernel_events *k, uint16_t type, uint16_t size,
			 uint32_t cpu, uint64_t time_ns)
{
	struct corecap_krec *h;

	if (k->out_len + size > k->out_cap) {
		size_t cap = k->out_cap ? 2 * k->out_cap : (1u << 20);
		unsigned char *p;

		while (cap < k->out_len + size)
			cap *= 2;
		p = realloc(k->out, cap);
		if (!p)
			return NULL;
		k->out = p;
		k->out_cap = cap;
	}
	h = (struct corecap_krec *)(k->out + k->out_len);
	memset(h, 0, size);
	h->type = type;
	h->size = size;
	h->cpu = cpu;
	h->time_ns = time_ns;
	k->out_len += size;
	return h;
}

int kernel_write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* buf grown to hold need bytes: 0, or -ENOMEM (buf as it was). */
static int grow(unsigned char **buf, size_t *cap, size_t need)
{
	unsigned char *p;

	if (need <= *cap)
		return 0;
	if (!(p = realloc(*buf, need)))
		return -ENOMEM;
	*buf = p;
	*cap = need;
	return 0;
}

/*
 * The records are built in version 1's layout, where the producers fill
 * them in and the eBPF drain sorts them, encoded in version 2's
 * (corecap/kernel_v2.h: blocks of narrower records, about half the
 * bytes) and written in version 3's (corecap/kernel_v3.h): the blocks of
 * one pass in one zstd frame (cut at CORECAP_KZFRAME_RAW_MAX), each
 * frame written whole with one write(2), so a killed collector still
 * leaves whole frames.
 */
void kernel_out_flush(struct corecap_kernel_events *k)
{
	size_t n, done = 0;

	if (k->out_len == 0)
		return;
	if (k->stats.write_error ||
	    grow(&k->enc, &k->enc_cap, CORECAP_KV2_ENCODE_RATIO * k->out_len + 16) ||
	    (!k->zctx && !(k->zctx = ZSTD_createCCtx()))) {
		k->stats.write_error = true;
		k->out_len = 0;
		return;
	}
	n = corecap_kv2_encode(k->out, k->out_len, k->enc);
	while (done < n && !k->stats.write_error) {
		size_t cut = corecap_kv3_cut(k->enc + done, n - done, CORECAP_KZFRAME_RAW_MAX);
		const char *why = "";
		size_t z;

		if (!cut || grow(&k->zbuf, &k->zbuf_cap, corecap_kv3_frame_bound(cut)) ||
		    !(z = corecap_kv3_compress(k->zctx, CORECAP_KV3_LEVEL, k->enc + done, cut,
					       k->zbuf, &why)) ||
		    kernel_write_all(k->events_fd, k->zbuf, z)) {
			k->stats.write_error = true;
			break;
		}
		k->stats.events_bytes += z;
		done += cut;
	}
	k->out_len = 0;
}

/* What kernel_out_flush keeps between passes, freed. */
void kernel_out_release(struct corecap_kernel_events *k)
{
	free(k->enc);
	k->enc = NULL;
	k->enc_cap = 0;
	free(k->zbuf);
	k->zbuf = NULL;
	k->zbuf_cap = 0;
	ZSTD_freeCCtx(k->zctx);
	k->zctx = NULL;
}

void kernel_track(struct corecap_kernel_events *k, pid_t tid, uint32_t reason)
{
	struct corecap_krec_track *t =
		kernel_out_reserve(k, CORECAP_KREC_TRACK, sizeof(*t), 0, corecap_now_ns());

	if (!t)
		return;
	t->tid = tid;
	t->reason = reason;
	thread_comm(k->pid, tid, t->comm);
	k->stats.track++;
}

int kernel_write_file_header(int fd, uint64_t magic, const struct corecap_kernel_events *k,
			     uint32_t stack_user_bytes)
{
	struct corecap_kfile_header h = {
		.magic = magic,
		/* events.bin in blocks (kernel_out_flush); stacks.bin as it was */
		.version = magic == CORECAP_KERNEL_MAGIC_EVENTS ? CORECAP_KERNEL_FORMAT_VERSION
								: CORECAP_KERNEL_FORMAT_V1,
		.header_bytes = sizeof(h),
		.pid = (uint32_t)k->pid,
		.nr_cpus = (uint32_t)k->nr_cpus,
		.clock_id = CORECAP_KERNEL_CLOCK_MONOTONIC,
		.flags = k->stats.kernel_filter ? CORECAP_KFILE_KERNEL_FILTER : 0,
		.created_ns = corecap_now_ns(),
		.stack_user_bytes = stack_user_bytes,
	};

	return kernel_write_all(fd, &h, sizeof(h));
}

char kernel_state_char(int64_t state, bool *preempted)
{
	static const char letters[] = "SDTtXZPI";
	uint64_t v = (uint64_t)state;

	*preempted = (v & 0x100) != 0;
	if ((v & 0xff) == 0)
		return 'R';
	for (int b = 0; b < 8; b++)
		if (v & (1u << b))
			return letters[b];
	return '?';
}

/* HOLDER records: for the threads met since the last pass, or (again)
 * for every one whose name changed since it was written (an exec after
 * the collector first looked). */
void kernel_name_holders(struct corecap_kernel_events *k, bool again)
{
	struct kernel_holders *h = &k->holders;
	size_t n = again ? h->n : h->n_fresh;

	for (size_t i = 0; i < n; i++) {
		int32_t tid = again ? h->tid[i] : h->fresh[i], tgid;
		long at = again ? (long)i : kernel_holders_find(h, tid);
		struct corecap_krec_holder *r;
		char comm[16];

		if (at < 0 || !kernel_holders_lookup(tid, comm, &tgid) ||
		    !memcmp(comm, h->comm[at], sizeof(comm)))
			continue;
		if (!(r = kernel_out_reserve(k, CORECAP_KREC_HOLDER, sizeof(*r), 0,
					     corecap_now_ns())))
			break;
		r->tid = tid;
		r->tgid = tgid;
		memcpy(r->comm, comm, sizeof(r->comm));
		memcpy(h->comm[at], comm, sizeof(comm));
		k->stats.holders++;
	}
	h->n_fresh = 0;
}
