#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int corecap_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

int corecap_grow_off_stack(void **arr, const void *small, size_t used, size_t cap, size_t elem)
{
	void *p;

	if (used > cap || (elem && cap > SIZE_MAX / elem) || !(p = malloc(cap * elem)))
		return -ENOMEM;
	memcpy(p, *arr, used * elem);
	if (*arr != small)
		free(*arr);
	*arr = p;
	return 0;
}
