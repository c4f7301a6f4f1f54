/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/elf/ldcache.h"

#include <time.h>

/* A cache in glibc's layout (elf/dl-cache.h), built here byte by byte:
 * entries of 24 bytes after a 48-byte header, strings after them, offsets
 * from the header; with old, first the old header and entries (glibc 2.31's
 * default). */
struct built {
	unsigned char b[4096];
	size_t len;
};

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void build(struct built *c, bool old, const int *flags, const char *const *keys,
		  const char *const *values, int n)
{
	memset(c, 0, sizeof *c);
	size_t base = 0;
	if (old) {
		memcpy(c->b, "ld.so-1.7.0", 11);
		put32(c->b + 12, (uint32_t)n);
		base = (16 + (size_t)n * 12 + 7) & ~(size_t)7;
	}
	unsigned char *h = c->b + base;
	memcpy(h, "glibc-ld.so.cache1.1", 20);
	put32(h + 20, (uint32_t)n);
	size_t str = 48 + (size_t)n * 24;
	for (int i = 0; i < n; i++) {
		unsigned char *e = h + 48 + (size_t)i * 24;
		put32(e, (uint32_t)flags[i]);
		put32(e + 4, (uint32_t)str);
		strcpy((char *)h + str, keys[i]);
		str += strlen(keys[i]) + 1;
		put32(e + 8, (uint32_t)str);
		strcpy((char *)h + str, values[i]);
		str += strlen(values[i]) + 1;
	}
	c->len = base + str;
}

struct seen {
	char paths[4][128];
	int n;
};

static void collect(const char *path, void *arg)
{
	struct seen *s = arg;
	if (s->n < 4)
		snprintf(s->paths[s->n++], sizeof s->paths[0], "%s", path);
}

static void count_given(const char *path, void *arg)
{
	(void)path;
	++*(int *)arg;
}

static const int flags[] = { 0x0303, 0x0303, 0x0003, 0x0a03, 0x0303 };
static const char *const keys[] = { "libz.so.1", "libcuda.so.1", "libcuda.so.1", "libcuda.so.1",
				    "libcuda.so.1" };
static const char *const values[] = { "/usr/lib/x86_64-linux-gnu/libz.so.1",
				      "/usr/local/cuda-12.8/compat/libcuda.so.1",
				      "/usr/lib32/libcuda.so.1",
				      "/usr/lib/aarch64-linux-gnu/libcuda.so.1",
				      "/usr/lib/x86_64-linux-gnu/libcuda.so.1" };

Test(ldcache_happy, new_and_old_layouts)
{
	for (int old = 0; old < 2; old++) {
		struct built c;
		struct seen s = { 0 };
		build(&c, old, flags, keys, values, 5);
		/* the machine's entries only: not the 32-bit one, not aarch64's */
		cr_assert_eq(ldcache_scan(c.b, c.len, "libcuda.so.1", EM_X86_64, collect, &s), 2);
		cr_assert_str_eq(s.paths[0], "/usr/local/cuda-12.8/compat/libcuda.so.1");
		cr_assert_str_eq(s.paths[1], "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
		s.n = 0;
		cr_assert_eq(ldcache_scan(c.b, c.len, "libcuda.so.1", EM_AARCH64, collect, &s), 1);
		cr_assert_str_eq(s.paths[0], "/usr/lib/aarch64-linux-gnu/libcuda.so.1");
	}
}

Test(ldcache_happy, from_a_root)
{
	char *root = scratch_dir();
	struct built c;
	struct seen s = { 0 };
	build(&c, false, flags, keys, values, 5);
	put_file(root, "/etc/ld.so.cache", c.b, c.len);
	cr_assert_eq(ldcache_find(root, "libcuda.so.1", EM_X86_64, collect, &s), 2);
	rm_rf(root);
	free(root);
}

Test(ldcache_sad, damaged)
{
	struct built c;
	struct seen s = { 0 };
	build(&c, false, flags, keys, values, 5);
	/* a string offset past the end, a count past the entries, a cut file */
	put32(c.b + 48 + 24 + 8, 100000);
	put32(c.b + 20, 1000000);
	cr_assert_eq(ldcache_scan(c.b, c.len, "libcuda.so.1", EM_X86_64, collect, &s), 1);
	cr_assert_eq(ldcache_scan(c.b, 40, "libcuda.so.1", EM_X86_64, collect, &s), -1);
	/* a value cut before its NUL is no path */
	build(&c, false, flags, keys, values, 5);
	s.n = 0;
	cr_assert_eq(ldcache_scan(c.b, c.len - 1, "libcuda.so.1", EM_X86_64, collect, &s), 1);
	/* an old layout whose count runs past the file */
	build(&c, true, flags, keys, values, 5);
	put32(c.b + 12, 0xffffffff);
	cr_assert_eq(ldcache_scan(c.b, c.len, "libcuda.so.1", EM_X86_64, collect, &s), -1);
	cr_assert_eq(ldcache_scan((const unsigned char *)"nothing", 7, "libcuda.so.1", EM_X86_64, collect, &s), -1);
	cr_assert_eq(ldcache_find("/nonexistent-root", "libcuda.so.1", EM_X86_64, collect, &s), -1);
}

/* Caches glibc 2.36's ldconfig made for tests/e2e/suites/reach.sh's vLLM-style
 * host (tests/fixtures/ldcache): the new layout, the old one carrying the new one
 * (ldconfig -c compat, glibc 2.31's default), and aarch64's. */
Test(ldcache_happy, made_by_ldconfig)
{
	static const struct {
		const char *file;
		int machine;
		const char *triplet;
	} caches[] = {
		{ "tests/fixtures/ldcache/vllm-x86_64", EM_X86_64, "x86_64-linux-gnu" },
		{ "tests/fixtures/ldcache/vllm-x86_64-old-layout", EM_X86_64, "x86_64-linux-gnu" },
		{ "tests/fixtures/ldcache/vllm-aarch64", EM_AARCH64, "aarch64-linux-gnu" },
	};
	for (size_t i = 0; i < sizeof caches / sizeof *caches; i++) {
		static unsigned char buf[8192];
		FILE *f = fopen(caches[i].file, "rb");
		cr_assert(f, "%s", caches[i].file);
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		struct seen s = { 0 };
		char sys[128];
		cr_assert_eq(ldcache_scan(buf, n, "libcuda.so.1", caches[i].machine, collect, &s), 2,
			     "%s", caches[i].file);
		snprintf(sys, sizeof sys, "/usr/lib/%s/libcuda.so.1", caches[i].triplet);
		cr_assert(strcmp(s.paths[0], sys) == 0 || strcmp(s.paths[1], sys) == 0);
		cr_assert(strcmp(s.paths[0], "/usr/local/cuda/compat/libcuda.so.1") == 0 ||
			  strcmp(s.paths[1], "/usr/local/cuda/compat/libcuda.so.1") == 0);
	}
}

/* A cache under a root whose string table had no NUL took each
 * entry's key and path as a search to the end of the file: a 4 MiB cache
 * 41 s, per program of --status --root.  A cache of 4 MiB, half entries,
 * half a string table: every key the soname with a path that never ends,
 * then every key that never ends.  Linear, it takes milliseconds. */
Test(ldcache_sad, no_nul_is_linear, .timeout = 60)
{
	size_t size = 4u << 20, nlibs = (size / 2 - 48) / 24, strs = 48 + nlibs * 24;
	unsigned char *b = malloc(size);
	cr_assert(b);
	memcpy(b, "glibc-ld.so.cache1.1", 20);
	put32(b + 20, (uint32_t)nlibs);
	memset(b + strs, 'a', size - strs);
	memcpy(b + strs, "libcuda.so.1", 13);
	b[strs + 13] = '/';
	struct timespec t0, t1;
	double cpu = 0;
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < nlibs; i++) {
			unsigned char *e = b + 48 + i * 24;
			put32(e, 0x0303);
			put32(e + 4, (uint32_t)(round ? strs + 20 : strs));
			put32(e + 8, (uint32_t)(strs + 13));
		}
		struct seen s = { 0 };
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
		cr_assert_eq(ldcache_scan(b, size, "libcuda.so.1", EM_X86_64, collect, &s), 0);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
		cpu += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	}
	/* (quadratic: over 10 s; linear: under 50 ms with sanitizers) */
	cr_assert(cpu < 0.5, "%.3f s of CPU for 4 MiB", cpu);
	free(b);
}

/* ld.so takes the first entry for the soname; the reader gives no more
 * than LDCACHE_MAX_MATCHES of them, in the cache's order. */
Test(ldcache_sad, matches_bounded)
{
	int f[LDCACHE_MAX_MATCHES + 4];
	const char *k[LDCACHE_MAX_MATCHES + 4], *v[LDCACHE_MAX_MATCHES + 4];
	char paths[LDCACHE_MAX_MATCHES + 4][32];
	for (int i = 0; i < LDCACHE_MAX_MATCHES + 4; i++) {
		f[i] = 0x0303;
		k[i] = "libcuda.so.1";
		snprintf(paths[i], sizeof paths[i], "/lib/%d/libcuda.so.1", i);
		v[i] = paths[i];
	}
	struct built c;
	build(&c, false, f, k, v, LDCACHE_MAX_MATCHES + 4);
	int given = 0;
	cr_assert_eq(ldcache_scan(c.b, c.len, "libcuda.so.1", EM_X86_64, count_given, &given),
		     LDCACHE_MAX_MATCHES);
	cr_assert_eq(given, LDCACHE_MAX_MATCHES);
	struct seen s = { 0 };
	ldcache_scan(c.b, c.len, "libcuda.so.1", EM_X86_64, collect, &s);
	cr_assert_str_eq(s.paths[0], "/lib/0/libcuda.so.1");
	cr_assert_str_eq(s.paths[3], "/lib/3/libcuda.so.1");
}
