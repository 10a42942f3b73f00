#include <elf.h>
#include <link.h>
#include <string.h>

#include "tracer_ranges.h"

struct tracer_ranges g_tracer_ranges;

static bool is_tracer_library(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	return strncmp(base, "liblttng-ust", 12) == 0 || strncmp(base, "liburcu", 7) == 0 ||
	       strncmp(base, "libcorecap-tp", 13) == 0;
}

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct tracer_ranges *t = data;

	(void)size;
	if (!info->dlpi_name || !is_tracer_library(info->dlpi_name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && t->n < TRACER_RANGES_MAX; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		t->r[t->n].start = info->dlpi_addr + ph->p_vaddr;
		t->r[t->n].end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		t->n++;
	}
	return 0;
}

/*
 * dl_iterate_phdr takes the loader's list lock only while it walks the
 * list (dlopen holds it briefly, never while running constructors), so,
 * unlike dladdr, this is safe from any thread at any time.
 */
int tracer_ranges_init(struct tracer_ranges *t)
{
	struct tracer_ranges fresh = {0};

	dl_iterate_phdr(add_object, &fresh);
	/* Readers may be looking: entries first, then the count. */
	for (uint32_t i = 0; i < fresh.n; i++)
		t->r[i] = fresh.r[i];
	__atomic_store_n(&t->n, fresh.n, __ATOMIC_RELEASE);
	__atomic_store_n(&t->ready, 1, __ATOMIC_RELEASE);
	return (int)fresh.n;
}
