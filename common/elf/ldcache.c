/* SPDX-License-Identifier: MIT */
#include "ldcache.h"

#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/sys.h"

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
	/* Linear in the file: each entry costs a compare of the soname's
	 * length (its key is read no further), and only the first
	 * LDCACHE_MAX_MATCHES entries whose key and flags match have their
	 * path read (a search for its NUL, at most the table) and given.  A
	 * string table without a NUL once made every entry a search to the
	 * end of the file. */
	size_t sl = soname ? strlen(soname) + 1 : 0;	/* with its NUL */
	int want = arch_flags(machine), given = 0, matched = 0;
	for (uint64_t i = 0; i < nlibs && (!soname || matched < LDCACHE_MAX_MATCHES); i++) {
		const unsigned char *e = table + NEW_HEAD + i * NEW_ENTRY;
		uint32_t flags = u32_at(e), key = u32_at(e + 4), value = u32_at(e + 8);
		if ((flags & FLAG_TYPE_MASK) != FLAG_ELF_LIBC6 ||
		    (want >= 0 && (int)(flags & FLAG_ARCH_MASK) != want))
			continue;
		if (soname && (key >= len || len - key < sl || memcmp(table + key, soname, sl) != 0))
			continue;
		matched++;
		/* every entry: its path searched no further than a path goes */
		size_t room = len - (value < len ? value : len);
		if (value >= len || table[value] != '/' ||
		    !memchr(table + value, '\0', soname || room < PATH_MAX ? room : PATH_MAX))
			continue;
		fn((const char *)table + value, arg);
		given++;
	}
	return given;
}

int ldcache_find(const char *root, const char *soname, int machine,
		 void (*fn)(const char *path, void *arg), void *arg)
{
	static const char path[] = "/etc/ld.so.cache";
	char *full = root_path(root, path);
	int fd = full ? open_ro(full, O_NONBLOCK) : -1;	/* a FIFO there cannot block */
	root_path_free(full, path);
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
