/* SPDX-License-Identifier: MIT */
#include "splice.h"

#include <stdlib.h>
#include <string.h>

char *splice(const char *t, size_t len, size_t at, size_t del, const char *add, size_t *out_len)
{
	size_t n = strlen(add);
	char *out = malloc(len - del + n + 1);
	if (!out)
		return NULL;
	memcpy(out, t, at);
	memcpy(out + at, add, n);
	memcpy(out + at + n, t + at + del, len - at - del);
	*out_len = len - del + n;
	out[*out_len] = '\0';
	return out;
}
