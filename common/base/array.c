/* SPDX-License-Identifier: MIT */
#include "array.h"

#include <stdint.h>
#include <stdlib.h>

int array_room(void *array, size_t n, size_t *cap, size_t elem, size_t first)
{
	void **v = array;
	if (n < *cap)
		return 0;
	size_t want = *cap ? *cap * 2 : first;
	if (want <= n || want > SIZE_MAX / elem)
		return -1;
	void *grown = realloc(*v, want * elem);
	if (!grown)
		return -1;
	*v = grown;
	*cap = want;
	return 0;
}
