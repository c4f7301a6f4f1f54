/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <stdint.h>

#include "../../common/base/array.h"

Test(array_happy, doubles_from_first_and_keeps_what_it_holds)
{
	int *v = NULL;
	size_t n = 0, cap = 0;
	size_t seen[8], k = 0;
	for (int i = 0; i < 40; i++) {
		size_t before = cap;
		cr_assert_eq(array_room(&v, n, &cap, sizeof *v, 4), 0);
		if (cap != before)
			seen[k++] = cap;
		v[n++] = i;
	}
	cr_assert_eq(k, 5);
	cr_assert_eq(seen[0], 4, "an empty array gets the first size");
	cr_assert_eq(seen[4], 64, "then it doubles: 4 8 16 32 64");
	for (int i = 0; i < 40; i++)
		cr_assert_eq(v[i], i);
	cr_assert_eq(array_room(&v, 10, &cap, sizeof *v, 4), 0);
	cr_assert_eq(cap, 64, "room to spare: nothing grows");
	free(v);
}

Test(array_sad, too_large_leaves_the_array_as_it_was)
{
	char *v = malloc(2);
	size_t cap = 2;
	cr_assert_eq(array_room(&v, 2, &cap, SIZE_MAX / 3, 1), -1);
	cr_assert_eq(cap, 2);
	cr_assert_not_null(v);
	free(v);
}
