/* SPDX-License-Identifier: MIT */
/* Shared by the fuzz targets: each defines LLVMFuzzerTestOneInput, built
 * with libFuzzer by `make fuzz` and with replay.c (any compiler, ASan and
 * UBSan) to replay the corpus in `make check`. */
#ifndef CUDALOAD_FUZZ_H
#define CUDALOAD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (parsers of text files get one). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
