/* SPDX-License-Identifier: MIT */
/* mknote OWNER DESC: write one ELF note (namesz, descsz, type 1, name, desc,
 * each padded to 4 bytes) to stdout, for objcopy --add-section. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void put32(uint32_t v)
{
	fwrite(&v, sizeof v, 1, stdout);	/* host order = target order here */
}

static void padded(const char *s, size_t n)
{
	static const char zeros[4];
	fwrite(s, 1, n, stdout);
	fwrite(zeros, 1, (4 - n % 4) % 4, stdout);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: mknote OWNER DESC\n");
		return 100;
	}
	size_t nl = strlen(argv[1]) + 1, dl = strlen(argv[2]);
	put32((uint32_t)nl);
	put32((uint32_t)dl);
	put32(1);
	padded(argv[1], nl);
	padded(argv[2], dl);
	return fflush(stdout) == 0 ? 0 : 1;
}
