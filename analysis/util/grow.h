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

#endif
