#include "exit_unlink.h"

#include <stddef.h>
#include <unistd.h>

/* One command writes one -o FILE; a few slots leave room. */
#define SLOTS 8

static const char *slots[SLOTS];

bool corecap_exit_unlink_add(const char *path)
{
	for (size_t i = 0; i < SLOTS; i++) {
		const char *none = NULL;

		if (__atomic_compare_exchange_n(&slots[i], &none, path, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return true;
	}
	return false;
}

void corecap_exit_unlink_remove(const char *path)
{
	for (size_t i = 0; i < SLOTS; i++) {
		const char *p = path;

		__atomic_compare_exchange_n(&slots[i], &p, NULL, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	}
}

void corecap_exit_unlink_run(void)
{
	for (size_t i = 0; i < SLOTS; i++) {
		const char *p = __atomic_exchange_n(&slots[i], NULL, __ATOMIC_SEQ_CST);

		if (p)
			unlink(p);
	}
}
