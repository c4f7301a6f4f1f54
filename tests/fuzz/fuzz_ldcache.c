/* SPDX-License-Identifier: MIT */
/* ld.so.cache, both layouts: every path given is a string inside the file. */
#include <elf.h>
#include <string.h>

#include "../../common/elf/ldcache.h"
#include "fuzz.h"

struct span {
	const uint8_t *data;
	size_t size;
};

static void inside(const char *path, void *arg)
{
	const struct span *s = arg;
	const uint8_t *p = (const uint8_t *)path;
	if (p < s->data || p + strlen(path) >= s->data + s->size || path[0] != '/')
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct span s = { data, size };
	ldcache_scan(data, size, "libcuda.so.1", EM_X86_64, inside, &s);
	ldcache_scan(data, size, "libcuda.so.1", EM_AARCH64, inside, &s);
	ldcache_scan(data, size, "libcuda.so.1", EM_RISCV, inside, &s);
	return 0;
}
