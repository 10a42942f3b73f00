/*
 * RUN/kernel/events.bin and RUN/kernel/stacks.bin (read/kernel_reader.c),
 * as `report` loads them, from their bytes (corecap_kernel_reader_load_buffers:
 * the same checks as from the files): the input is events.bin, then
 * KERNEL_SEP, then stacks.bin (without the separator: no stacks.bin). Loaded with
 * no window (times unchecked) and with a window around the header's
 * creation time; every record and stack the reader accepts is then read
 * whole (the records through a cursor, in time order), and each stack looked up again by its key.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h" /* fuzz_split */
#include "read/kernel_reader.h"

#define KERNEL_SEP "\n--stacks.bin--\n"

static volatile uint64_t sink; /* what was read, so that nothing is optimized away */

static void load(const uint8_t *ev, size_t n_ev, const uint8_t *st, size_t n_st, uint64_t ws,
		 uint64_t we)
{
	struct kernel_reader k;
	uint64_t sum = 0;
	char *err = NULL;

	corecap_kernel_reader_init(&k);
	if (corecap_kernel_reader_load_buffers(&k, ev, n_ev, st, n_st, ws, we, &err) == 0) {
		struct kernel_cursor c;
		const struct corecap_krec *r;
		size_t n = 0;

		if (corecap_kernel_cursor_open(&c, &k) == 0) {
			while (corecap_kernel_cursor_next(&c, &r) == 1) {
				const unsigned char *b = (const unsigned char *)r;

				for (size_t j = 0; j < r->size; j++)
					sum += b[j];
				n++;
			}
			if (n != k.n_recs)
				abort(); /* every record accepted is given once */
			corecap_kernel_cursor_close(&c);
		}
		for (size_t i = 0; i < k.n_stacks; i++) {
			const struct corecap_krec_stack *s = k.stacks[i].s;
			const uint64_t *f = corecap_kernel_stack_frames(s);

			if (k.stacks[i].tid != s->tid || k.stacks[i].event_time_ns != s->event_time_ns ||
			    k.stacks[i].kind != s->kind)
				abort(); /* the index's keys are its stacks' */

			for (uint32_t j = 0; j < s->nframes; j++)
				sum += f[j];
			if (corecap_kernel_reader_stack(&k, s->tid, s->event_time_ns, s->kind) ==
			    NULL)
				abort(); /* an accepted stack must be found by its own key */
		}
	}
	sink += sum;
	free(err);
	corecap_kernel_reader_release(&k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *ev, *st;
	size_t n_ev, n_st;
	uint64_t created = 0;

	fuzz_split(data, size, KERNEL_SEP, &ev, &n_ev, &st, &n_st);
	if (st == ev) /* no separator: a run without stacks.bin */
		st = NULL, n_st = 0;
	load(ev, n_ev, st, n_st, 0, 0);
	if (n_ev >= offsetof(struct corecap_kfile_header, created_ns) + sizeof(created))
		memcpy(&created, ev + offsetof(struct corecap_kfile_header, created_ns),
		       sizeof(created));
	if (created > 1000000000u && created < UINT64_MAX - 10000000000u)
		load(ev, n_ev, st, n_st, created, created + 10000000000u);
	return 0;
}
