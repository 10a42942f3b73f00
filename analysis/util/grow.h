/*
 * grow: the growth of the analysis' arrays (an array, its capacity in
 * elements): doubled from 64 until it holds `need` elements.
 */
#ifndef CORECAP_GROW_H
#define CORECAP_GROW_H

#include <stddef.h>

/* Makes *arr hold at least `need` elements of `elem` bytes; 0, or -ENOMEM
 * with *arr and *cap unchanged. */
int corecap_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* For a buffer that starts on the caller's stack (`small`): moves the
 * `used` elements of *arr into a new heap array of `cap` elements, freeing
 * the old one unless it is `small`; 0, or -ENOMEM with *arr unchanged. */
int corecap_grow_off_stack(void **arr, const void *small, size_t used, size_t cap, size_t elem);

#endif
