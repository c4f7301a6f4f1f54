/* SPDX-License-Identifier: MIT */
#include "ldcache.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys.h"

/* glibc elf/dl-cache.h */
#define OLD_MAGIC "ld.so-1.7.0"
#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define OLD_HEAD 16		/* magic[11], padding, u32 nlibs */
#define OLD_ENTRY 12		/* i32 flags, u32 key, u32 value */
#define NEW_HEAD 48		/* magic+version[20], nlibs, len_strings, flags, pad[3], ext, unused[3] */
#define NEW_ENTRY 24		/* i32 flags, u32 key, u32 value, u32 osversion, u64 hwcap */
#define FLAG_TYPE_MASK 0x00ff
#define FLAG_ELF_LIBC6 0x0003
#define FLAG_ARCH_MASK 0xff00
#define FLAG_X8664_LIB64 0x0300
#define FLAG_AARCH64_LIB64 0x0a00
#define LDCACHE_MAX (64u << 20)	/* real caches are tens to hundreds of KiB */

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);	/* native order: the cache is the host's */
	return v;
}

/* The NUL-terminated string at off in table (len bytes), or NULL. */
static const char *string_at(const unsigned char *table, size_t len, uint32_t off)
{
	if (off >= len || !memchr(table + off, '\0', len - off))
		return NULL;
	return (const char *)table + off;
}

static int arch_flags(int machine)
{
	return machine == EM_X86_64 ? FLAG_X8664_LIB64 : machine == EM_AARCH64 ? FLAG_AARCH64_LIB64 : -1;
}

int ldcache_scan(const unsigned char *data, size_t size, const char *soname, int machine,
		 void (*fn)(const char *path, void *arg), void *arg)
{
	size_t off = 0;
	if (size >= OLD_HEAD && memcmp(data, OLD_MAGIC, sizeof OLD_MAGIC - 1) == 0) {
		uint64_t nlibs = u32_at(data + 12);
		off = (size_t)((OLD_HEAD + nlibs * OLD_ENTRY + 7) & ~(uint64_t)7);
		if (nlibs > size || off > size)
			return -1;
	}
	if (size - off < NEW_HEAD || memcmp(data + off, NEW_MAGIC, sizeof NEW_MAGIC - 1) != 0)
		return -1;	/* an old cache alone: glibc 2.31 writes both, newer ones the new */
	const unsigned char *table = data + off;
	size_t len = size - off;
	uint64_t nlibs = u32_at(table + 20);
	if (nlibs > (len - NEW_HEAD) / NEW_ENTRY)
		nlibs = (len - NEW_HEAD) / NEW_ENTRY;	/* what the file holds */
	int want = arch_flags(machine), given = 0;
	for (uint64_t i = 0; i < nlibs; i++) {
		const unsigned char *e = table + NEW_HEAD + i * NEW_ENTRY;
		uint32_t flags = u32_at(e);
		const char *key = string_at(table, len, u32_at(e + 4));
		const char *value = string_at(table, len, u32_at(e + 8));
		if (!key || !value || strcmp(key, soname) != 0 || value[0] != '/')
			continue;
		if ((flags & FLAG_TYPE_MASK) != FLAG_ELF_LIBC6 ||
		    (want >= 0 && (int)(flags & FLAG_ARCH_MASK) != want))
			continue;
		fn(value, arg);
		given++;
	}
	return given;
}

int ldcache_find(const char *root, const char *soname, int machine,
		 void (*fn)(const char *path, void *arg), void *arg)
{
	static const char path[] = "/etc/ld.so.cache";
	char *full = rooted_path(root, path);
	int fd = full ? open_ro(full, 0) : -1;
	rooted_path_free(full, path);
	if (fd < 0)
		return -1;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= LDCACHE_MAX)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	int n = ldcache_scan(map, (size_t)st.st_size, soname, machine, fn, arg);
	munmap(map, (size_t)st.st_size);
	return n;
}
