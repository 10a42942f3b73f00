#include "aio_table.h"
#include "util.h"

struct aio_table g_aio;

static uint32_t home(const void *iocb)
{
	return addr_hash((uint64_t)(uintptr_t)iocb, AIO_TABLE_BITS);
}

static struct aio_entry *at(struct aio_table *t, uint32_t h, uint32_t i)
{
	return &t->e[(h + i) & (AIO_TABLE_SIZE - 1)];
}

/* Claims e (its key from `from` to BUSY), fills it, publishes key. */
static bool claim(struct aio_entry *e, uint64_t from, uint64_t key, uint64_t submit_ticks, int fd,
		  int io_class, int call)
{
	if (!__atomic_compare_exchange_n(&e->key, &from, AIO_TABLE_BUSY, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	__atomic_store_n(&e->submit_ticks, submit_ticks, __ATOMIC_RELAXED);
	__atomic_store_n(&e->fd, fd, __ATOMIC_RELAXED);
	__atomic_store_n(&e->io_class, (uint8_t)io_class, __ATOMIC_RELAXED);
	__atomic_store_n(&e->call, (uint8_t)call, __ATOMIC_RELAXED);
	__atomic_store_n(&e->key, key, __ATOMIC_RELEASE);
	return true;
}

/* Claims the first entry of key's window whose key is `from`. */
static bool claim_in_window(struct aio_table *t, uint64_t from, uint64_t key, uint64_t submit_ticks,
			    int fd, int io_class, int call)
{
	uint32_t h = home((const void *)(uintptr_t)key);

	for (uint32_t i = 0; i < AIO_TABLE_PROBES; i++) {
		struct aio_entry *e = at(t, h, i);

		if (__atomic_load_n(&e->key, __ATOMIC_RELAXED) == from &&
		    claim(e, from, key, submit_ticks, fd, io_class, call))
			return true;
	}
	return false;
}

bool aio_table_put(struct aio_table *t, const void *iocb, uint64_t submit_ticks, int fd,
		   int io_class, int call)
{
	uint64_t key = (uint64_t)(uintptr_t)iocb;

	if (key <= AIO_TABLE_BUSY)
		return false;
	/* First an entry this iocb still holds (its completion was never matched). */
	return claim_in_window(t, key, key, submit_ticks, fd, io_class, call) ||
	       claim_in_window(t, 0, key, submit_ticks, fd, io_class, call);
}

bool aio_table_take(struct aio_table *t, const void *iocb, struct aio_entry *out)
{
	uint64_t key = (uint64_t)(uintptr_t)iocb;
	uint32_t h = home(iocb);

	if (key <= AIO_TABLE_BUSY)
		return false;
	for (uint32_t i = 0; i < AIO_TABLE_PROBES; i++) {
		struct aio_entry *e = at(t, h, i);
		uint64_t k = key;

		if (__atomic_load_n(&e->key, __ATOMIC_ACQUIRE) != key)
			continue;
		out->key = key;
		out->submit_ticks = __atomic_load_n(&e->submit_ticks, __ATOMIC_RELAXED);
		out->fd = __atomic_load_n(&e->fd, __ATOMIC_RELAXED);
		out->io_class = __atomic_load_n(&e->io_class, __ATOMIC_RELAXED);
		out->call = __atomic_load_n(&e->call, __ATOMIC_RELAXED);
		/* Released only if nobody re-claimed it meanwhile. */
		return __atomic_compare_exchange_n(&e->key, &k, 0, false, __ATOMIC_RELEASE,
						   __ATOMIC_RELAXED);
	}
	return false;
}
