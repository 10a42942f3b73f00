/*
 * aio_table.h: the submission time of each asynchronous I/O in flight,
 * keyed by its iocb's address, so that the thread that reaps it (libaio's
 * io_getevents, often another thread than the submitter's) can time it.
 *
 * A fixed table (AIO_TABLE_SIZE entries, no allocation) with open
 * addressing over a window of AIO_TABLE_PROBES entries from the key's
 * hash. A submission claims an empty entry (or the one its iocb already
 * holds: an iocb resubmitted after a completion nobody matched) with a
 * compare-and-swap of the key to AIO_TABLE_BUSY, fills it, and publishes
 * the key last; a completion takes the entry whose key it finds and frees
 * it with a compare-and-swap back to 0. Lookups scan the whole window, so
 * freeing leaves no hole to mend. A window with no empty entry means the
 * submission is not timed (aio_table_put returns false; the caller counts
 * it): nothing blocks and nothing is evicted.
 */
#ifndef CORECAP_PRELOAD_AIO_TABLE_H
#define CORECAP_PRELOAD_AIO_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#define AIO_TABLE_BITS	 13
#define AIO_TABLE_SIZE	 (1u << AIO_TABLE_BITS)
#define AIO_TABLE_PROBES 16
#define AIO_TABLE_BUSY	 UINT64_C(1) /* an entry being filled; iocbs are 8-aligned */

struct aio_entry {
	uint64_t key;	       /* iocb address; 0 empty; AIO_TABLE_BUSY being written */
	uint64_t submit_ticks; /* tick_clock.h */
	int32_t fd;
	uint8_t io_class; /* enum corecap_io_class */
	uint8_t call;	  /* enum events_io_call: read, write or fsync */
	uint16_t reserved_;
};

struct aio_table {
	struct aio_entry e[AIO_TABLE_SIZE];
};

extern struct aio_table g_aio;

/* Keeps iocb's submission; false if its window is full. */
bool aio_table_put(struct aio_table *t, const void *iocb, uint64_t submit_ticks, int fd,
		   int io_class, int call);

/* Takes iocb's entry out into *out; false if the table has none for it. */
bool aio_table_take(struct aio_table *t, const void *iocb, struct aio_entry *out);

#endif /* CORECAP_PRELOAD_AIO_TABLE_H */
