/* SPDX-License-Identifier: MIT */
/*
 * array: the one way a list grows here.
 *
 * Room for one more element in a heap array: it doubles, starting at a
 * size the caller picks (one candidate on most machines, hundreds of walked
 * files).  With the loader's bump allocator the newest block grows in place.
 */
#ifndef CUDALOAD_ARRAY_H
#define CUDALOAD_ARRAY_H
#include <stddef.h>
/* *array (a pointer to the array's pointer) holds n elements of elem bytes
 * in room for *cap.  When it is full, it grows to twice *cap, or to first
 * when empty.  0, or -1 when out of memory (the array as it was). */
int array_room(void *array, size_t n, size_t *cap, size_t elem, size_t first);
#endif
