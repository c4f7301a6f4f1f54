/* SPDX-License-Identifier: MIT */
/* mknote OWNER DESC [ALIGN [TYPE DESCSZ SIZE]]: write one ELF note (namesz,
 * descsz, type 1, name, desc) to stdout, for objcopy --add-section.  ALIGN 4
 * (the default) pads name and desc to 4 bytes; 8 places the descriptor and
 * the end at multiples of 8 from the note's start, as in a section aligned
 * to 8 (the padding NVIDIA's Orin compat libraries shipped with).  TYPE,
 * DESCSZ and SIZE shape a note as NVIDIA shipped one: that n_type, that
 * descsz written whatever DESC's length, and NULs to SIZE bytes in all (the
 * Orin CUDA 13.2 libcuda: type 0, descsz 41, a 71-byte section). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put32(uint32_t v)
{
	fwrite(&v, sizeof v, 1, stdout);	/* host order = target order here */
}

static void pad_to(size_t *at, size_t align)
{
	static const char zeros[8];
	size_t n = (align - *at % align) % align;
	fwrite(zeros, 1, n, stdout);
	*at += n;
}

int main(int argc, char **argv)
{
	size_t align = argc >= 4 ? strtoul(argv[3], NULL, 10) : 4;
	bool shaped = argc == 7;
	if ((argc != 3 && argc != 4 && !shaped) || (align != 4 && align != 8)) {
		fprintf(stderr, "usage: mknote OWNER DESC [4|8 [TYPE DESCSZ SIZE]]\n");
		return 100;
	}
	size_t nl = strlen(argv[1]) + 1, dl = strlen(argv[2]), at = 12;
	size_t size = shaped ? strtoul(argv[6], NULL, 10) : 0;
	put32((uint32_t)nl);
	put32(shaped ? (uint32_t)strtoul(argv[5], NULL, 10) : (uint32_t)dl);
	put32(shaped ? (uint32_t)strtoul(argv[4], NULL, 10) : 1);
	fwrite(argv[1], 1, nl, stdout);
	at += nl;
	pad_to(&at, align);
	fwrite(argv[2], 1, dl, stdout);
	at += dl;
	pad_to(&at, align);
	if (shaped && size < at) {
		fprintf(stderr, "mknote: SIZE %zu is less than the note's %zu bytes\n", size, at);
		return 100;
	}
	for (; at < size; at++)
		putchar('\0');
	return fflush(stdout) == 0 ? 0 : 1;
}
