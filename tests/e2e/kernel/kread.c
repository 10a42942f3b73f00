/*
 * kernel_read RUN [UADDR | --records]: a small reader of RUN/kernel/events.bin and
 * stacks.bin for the kernel source's tests, written against
 * corecap/kernel_format.h alone. Prints "key value..." lines:
 *   header <version> <pid> <nr_cpus>      records <type> <count>
 *   lost <total>                          window <start_ns> <end_ns>
 *   wait <tid> <count> <sum_ns>           futex waits on UADDR (if given), paired
 *   waits_total <count> <sum_ns> <waiters>
 *   woken_by <tid> <waker_tid> <irq>      per wait on UADDR, the waker of the waiter (irq 1:
 *                                         the waking came from an interrupt)
 *   irq_wakings <tid> <count>             wakings of tid from an interrupt, outside waits on UADDR
 *   wakings <tid> <waker_tid> <count>     wakings of tid by a thread (not an interrupt), per
 *                                         waker (the first 4; "wakings <tid> other <count>"
 *                                         for the rest)
 *   thread <tid> <running_ns> <runnable_ns> <r_outs> <s_outs>   from switches
 *   stacks <count> <matched> <ok> <truncated> <no_cfi> <failed> <max_depth> <median_depth>
 *   stack <tid> <kind> <status> <hex frames...>   each stack
 *   error <sentence>                      a file that breaks the format (exit 1)
 *   rec <cpu> <time_ns> <type> <tid>      --records: each record in file order (no other line
 *                                         but header), tid the first int32 after its header
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/kernel_format.h>
#include <corecap/kernel_v2.h>
#include <corecap/kernel_v3.h>

struct rec {
	const struct corecap_krec *h;
	size_t seq;
};

struct tstate {
	int32_t tid;
	uint64_t in_ns, out_ns; /* last switch-in, last switch-out */
	bool running, runnable;
	uint64_t running_ns, runnable_ns, r_outs, s_outs;
	uint64_t enter_ns; /* open futex wait on UADDR, 0: none */
	bool enter_wait;
	uint64_t wait_count, wait_ns;
	int32_t last_waker;
	bool last_irq;
	uint64_t irq_wakings;
	int32_t waker[4];
	uint64_t by_waker[4], by_other;
};

/* A waking of t by thread waker counted. */
static void count_waker(struct tstate *t, int32_t waker)
{
	for (int i = 0; i < 4; i++) {
		if (!t->by_waker[i])
			t->waker[i] = waker;
		if (t->waker[i] == waker) {
			t->by_waker[i]++;
			return;
		}
	}
	t->by_other++;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* The records of a file, checked against the format; NULL and a message on error. */
static struct rec *walk(const unsigned char *buf, size_t len, uint64_t magic, size_t *n_out,
			const struct corecap_kfile_header **hdr)
{
	const struct corecap_kfile_header *h = (const void *)buf;
	struct rec *v = NULL;
	size_t n = 0, cap = 0, off;

	if (len < sizeof(*h) || h->magic != magic ||
	    (h->version != CORECAP_KERNEL_FORMAT_V1 &&
	     ((h->version != CORECAP_KERNEL_FORMAT_V2 &&
	       h->version != CORECAP_KERNEL_FORMAT_VERSION) ||
	      magic != CORECAP_KERNEL_MAGIC_EVENTS)) ||
	    h->header_bytes < sizeof(*h) || h->header_bytes > len) {
		printf("error bad file header\n");
		return NULL;
	}
	*hdr = h;
	if (h->version == CORECAP_KERNEL_FORMAT_VERSION && magic == CORECAP_KERNEL_MAGIC_EVENTS) {
		/* Version 3: its frames decompressed into version 2's blocks, then as 2. */
		unsigned char *v2 = NULL;
		size_t v2len = h->header_bytes, v2cap = 0;
		ZSTD_DCtx *dc = ZSTD_createDCtx();

		for (off = h->header_bytes; dc && off < len;) {
			struct corecap_kzframe f;
			const char *why = "";
			int c = corecap_kv3_frame_check(buf + off, len - off, &f, &why);

			if (c == 0)
				break; /* a trailing partial frame */
			if (c > 0 && v2len + f.raw_bytes > v2cap) {
				v2cap = 2 * (v2len + f.raw_bytes);
				if (!(v2 = realloc(v2, v2cap)))
					return NULL;
			}
			if (c < 0 || corecap_kv3_decompress(dc, buf + off, &f, v2 + v2len, &why)) {
				printf("error frame at offset %zu: %s\n", off, why);
				return NULL;
			}
			v2len += f.raw_bytes;
			off += f.size;
		}
		ZSTD_freeDCtx(dc);
		if (!v2 && !(v2 = malloc(v2len)))
			return NULL;
		memcpy(v2, buf, h->header_bytes);
		buf = v2;
		len = v2len;
	}
	if (h->version != CORECAP_KERNEL_FORMAT_V1 && magic == CORECAP_KERNEL_MAGIC_EVENTS) {
		/* Version 2: its blocks decoded into version 1's records (kept: v points into
		 * them). */
		unsigned char *dec = malloc(CORECAP_KV2_DECODE_RATIO * (len + CORECAP_KBLOCK_MAX));
		size_t dlen = h->header_bytes;
		uint64_t unknown = 0;

		if (!dec)
			return NULL;
		memcpy(dec, buf, h->header_bytes);
		for (off = h->header_bytes; off < len;) {
			const char *why = "";
			size_t n_dec, why_off;
			long b = corecap_kv2_decode_block(buf + off, len - off, dec + dlen, &n_dec,
							  &unknown, &why, &why_off);

			if (b < 0) {
				printf("error block at offset %zu: %s at %zu\n", off, why, why_off);
				return NULL;
			}
			if (b == 0)
				break; /* a trailing fragment */
			dlen += n_dec;
			off += (size_t)b;
		}
		buf = dec;
		len = dlen;
	}
	for (off = h->header_bytes; off + sizeof(struct corecap_krec) <= len;) {
		const struct corecap_krec *r = (const void *)(buf + off);

		if (r->size < sizeof(*r) || r->size % 8 || off + r->size > len)
			break; /* a trailing fragment */
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			v = realloc(v, cap * sizeof(*v));
		}
		v[n].h = r;
		v[n].seq = n;
		n++;
		off += r->size;
	}
	*n_out = n;
	return v ? v : calloc(1, sizeof(*v));
}

static int by_time(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->h->time_ns != y->h->time_ns)
		return x->h->time_ns < y->h->time_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct tstate *thread_of(struct tstate **v, size_t *n, int32_t tid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].tid == tid)
			return &(*v)[i];
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].tid = tid;
	return &(*v)[(*n)++];
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

int main(int argc, char **argv)
{
	char path[4096];
	const struct corecap_kfile_header *h;
	uint64_t uaddr = argc > 2 ? strtoull(argv[2], NULL, 16) : 0;
	uint64_t counts[32] = {0}, lost = 0, win_start = 0, win_end = 0;
	uint64_t total_waits = 0, total_wait_ns = 0;
	struct tstate *ts = NULL;
	size_t n_ts = 0, n = 0, len = 0;
	unsigned char *buf;
	struct rec *v;

	if (argc < 2) {
		fprintf(stderr, "usage: kernel_read RUN [UADDR | --records]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/%s", argv[1], CORECAP_KERNEL_EVENTS_FILE);
	buf = slurp(path, &len);
	if (!buf) {
		printf("error cannot read %s: %s\n", path, strerror(errno));
		return 1;
	}
	v = walk(buf, len, CORECAP_KERNEL_MAGIC_EVENTS, &n, &h);
	if (!v)
		return 1;
	printf("header %u %u %u\n", h->version, h->pid, h->nr_cpus);
	if (argc > 2 && !strcmp(argv[2], "--records")) {
		/* Each record in file order (version 2: as decoded): its first i32 after the
		 * header. */
		for (size_t i = 0; i < n; i++) {
			int32_t tid = 0;

			if (v[i].h->size >= sizeof(*v[i].h) + 4)
				memcpy(&tid, v[i].h + 1, sizeof(tid));
			printf("rec %u %llu %u %d\n", v[i].h->cpu,
			       (unsigned long long)v[i].h->time_ns, v[i].h->type, tid);
		}
		return 0;
	}
	qsort(v, n, sizeof(*v), by_time);
	for (size_t i = 0; i < n; i++) {
		const struct corecap_krec *r = v[i].h;

		counts[r->type < 32 ? r->type : 0]++;
		switch (r->type) {
		case CORECAP_KREC_WINDOW: {
			const struct corecap_krec_window *w = (const void *)r;

			if (w->what == CORECAP_KWINDOW_START)
				win_start = r->time_ns;
			else
				win_end = r->time_ns;
			break;
		}
		case CORECAP_KREC_LOST:
			lost += ((const struct corecap_krec_lost *)r)->lost;
			break;
		case CORECAP_KREC_SWITCH: {
			const struct corecap_krec_switch *s = (const void *)r;

			if (s->flags & CORECAP_KSWITCH_PREV_TARGET) {
				struct tstate *t = thread_of(&ts, &n_ts, s->prev_tid);

				if (t->running && win_start)
					t->running_ns += r->time_ns - t->in_ns;
				t->running = false;
				t->runnable = s->prev_state_char == 'R';
				t->out_ns = r->time_ns;
				if (win_start) {
					t->r_outs += s->prev_state_char == 'R';
					t->s_outs += s->prev_state_char != 'R';
				}
			}
			if (s->flags & CORECAP_KSWITCH_NEXT_TARGET) {
				struct tstate *t = thread_of(&ts, &n_ts, s->next_tid);

				if (t->runnable && win_start)
					t->runnable_ns += r->time_ns - t->out_ns;
				t->runnable = false;
				t->running = true;
				t->in_ns = r->time_ns;
			}
			break;
		}
		case CORECAP_KREC_WAKING: {
			const struct corecap_krec_waking *w = (const void *)r;
			struct tstate *t = thread_of(&ts, &n_ts, w->tid);

			if (t->enter_ns) {
				t->last_waker = w->waker_tid;
				t->last_irq = (w->flags & CORECAP_KWAKING_ANY_IRQ) != 0;
			} else if (w->flags & CORECAP_KWAKING_ANY_IRQ) {
				t->irq_wakings++;
			}
			if (!(w->flags & CORECAP_KWAKING_ANY_IRQ))
				count_waker(t, w->waker_tid);
			break;
		}
		case CORECAP_KREC_FUTEX_ENTER: {
			const struct corecap_krec_futex_enter *f = (const void *)r;
			struct tstate *t = thread_of(&ts, &n_ts, f->tid);

			t->enter_ns = uaddr && f->uaddr == uaddr && CORECAP_FUTEX_IS_WAIT(f->op)
					      ? r->time_ns
					      : 0;
			t->last_waker = 0;
			t->last_irq = false;
			break;
		}
		case CORECAP_KREC_FUTEX_EXIT: {
			const struct corecap_krec_futex_exit *f = (const void *)r;
			struct tstate *t = thread_of(&ts, &n_ts, f->tid);

			if (t->enter_ns) {
				t->wait_count++;
				t->wait_ns += r->time_ns - t->enter_ns;
				if (t->last_waker)
					printf("woken_by %d %d %d\n", (int)t->tid, (int)t->last_waker,
					       (int)t->last_irq);
			}
			t->enter_ns = 0;
			break;
		}
		}
	}
	for (int t = 1; t < 32; t++)
		if (counts[t])
			printf("records %d %llu\n", t, (unsigned long long)counts[t]);
	printf("lost %llu\n", (unsigned long long)lost);
	printf("window %llu %llu\n", (unsigned long long)win_start, (unsigned long long)win_end);
	for (size_t i = 0; i < n_ts; i++) {
		struct tstate *t = &ts[i];

		if (uaddr && t->wait_count) {
			printf("wait %d %llu %llu\n", (int)t->tid,
			       (unsigned long long)t->wait_count, (unsigned long long)t->wait_ns);
			total_waits += t->wait_count;
			total_wait_ns += t->wait_ns;
		}
		for (int j = 0; j < 4 && t->by_waker[j]; j++)
			printf("wakings %d %d %llu\n", (int)t->tid, (int)t->waker[j],
			       (unsigned long long)t->by_waker[j]);
		if (t->by_other)
			printf("wakings %d other %llu\n", (int)t->tid,
			       (unsigned long long)t->by_other);
		if (t->irq_wakings)
			printf("irq_wakings %d %llu\n", (int)t->tid,
			       (unsigned long long)t->irq_wakings);
		if (t->r_outs + t->s_outs)
			printf("thread %d %llu %llu %llu %llu\n", (int)t->tid,
			       (unsigned long long)t->running_ns,
			       (unsigned long long)t->runnable_ns, (unsigned long long)t->r_outs,
			       (unsigned long long)t->s_outs);
	}
	if (uaddr) {
		size_t waiters = 0;

		for (size_t i = 0; i < n_ts; i++)
			waiters += ts[i].wait_count > 0;
		printf("waits_total %llu %llu %zu\n", (unsigned long long)total_waits,
		       (unsigned long long)total_wait_ns, waiters);
	}
	free(v);
	free(buf);

	snprintf(path, sizeof(path), "%s/%s", argv[1], CORECAP_KERNEL_STACKS_FILE);
	buf = slurp(path, &len);
	if (buf) {
		uint64_t matched = 0, st[4] = {0};
		uint16_t *depth, max = 0;

		v = walk(buf, len, CORECAP_KERNEL_MAGIC_STACKS, &n, &h);
		if (!v)
			return 1;
		depth = calloc(n + 1, sizeof(*depth));
		for (size_t i = 0; i < n; i++) {
			const struct corecap_krec_stack *s = (const void *)v[i].h;

			if (v[i].h->type != CORECAP_KREC_STACK ||
			    v[i].h->size != sizeof(*s) + 8u * s->nframes) {
				printf("error stack record %zu has a wrong size\n", i);
				return 1;
			}
			matched += s->event_time_ns != 0;
			st[s->status == CORECAP_KSTACK_FAILED ? 3 : s->status & 3]++;
			depth[i] = s->nframes;
			printf("stack %d %u %d", (int)s->tid, s->kind, s->status);
			for (unsigned f = 0; f < s->nframes; f++)
				printf(" %llx", (unsigned long long)((const uint64_t *)(s + 1))[f]);
			printf("\n");
			if (s->nframes > max)
				max = s->nframes;
		}
		qsort(depth, n, sizeof(*depth), cmp_u16);
		printf("stacks %zu %llu %llu %llu %llu %llu %u %u\n", n,
		       (unsigned long long)matched, (unsigned long long)st[0],
		       (unsigned long long)st[1], (unsigned long long)st[2],
		       (unsigned long long)st[3], max, n ? depth[n / 2] : 0);
		free(depth);
		free(v);
		free(buf);
	}
	free(ts);
	return 0;
}
