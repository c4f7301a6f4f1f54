/* SPDX-License-Identifier: MIT */
/*
 * The loader's replacements of libc functions (loader/libc/), tested under
 * other names so that this program's own libc stays in charge: the
 * contract common/base/alloc.h states, and the printf family over common/base/fmt.c.
 */
#include "helpers.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define malloc loader_malloc
#define free loader_free
#define calloc loader_calloc
#define realloc loader_realloc
#include "../../loader/libc/malloc.c"
#undef malloc
#undef free
#undef calloc
#undef realloc

#include "../../common/base/fmt.h"	/* its format attributes name printf */
#define put_file loader_put_file	/* helpers.h has one */
#define vsnprintf loader_vsnprintf
#define snprintf loader_snprintf
#define vfprintf loader_vfprintf
#define fprintf loader_fprintf
#define vprintf loader_vprintf
#define printf loader_printf
#include "../../loader/libc/stdio.c"
#undef put_file
#undef vsnprintf
#undef snprintf
#undef vfprintf
#undef fprintf
#undef vprintf
#undef printf

/* Each test starts from an empty arena (one process runs them all). */
static void arena_reset(void)
{
	used = 0;
}

Test(loader_libc, newest_first_gives_back)
{
	arena_reset();
	char *a = loader_malloc(100), *b = loader_malloc(50);
	cr_assert(a && b);
	cr_assert_eq((uintptr_t)a % ALIGN, 0);
	cr_assert_eq((uintptr_t)b % ALIGN, 0);
	size_t after_two = used;
	memset(a, 'a', 100);
	memset(b, 'b', 50);
	/* out of order: kept, nothing else moves (alloc.h) */
	loader_free(a);
	cr_assert_eq(used, after_two);
	cr_assert_eq(b[49], 'b');
	/* the newest goes back, and its space is handed out again */
	loader_free(b);
	cr_assert_lt(used, after_two);
	char *c = loader_malloc(50);
	cr_assert_eq(c, b);
	loader_free(NULL);
}

Test(loader_libc, calloc_is_clean_and_checks_overflow)
{
	arena_reset();
	char *a = loader_malloc(64);
	memset(a, 0xff, 64);
	loader_free(a);
	char *z = loader_calloc(8, 8);
	cr_assert_eq(z, a, "the same block, handed out again");
	for (int i = 0; i < 64; i++)
		cr_assert_eq(z[i], 0, "byte %d", i);
	cr_assert_null(loader_calloc(SIZE_MAX / 2, 4));
	cr_assert_null(loader_malloc(SIZE_MAX - 8));
}

Test(loader_libc, realloc_grows_the_newest_in_place)
{
	arena_reset();
	char *a = loader_malloc(32);
	strcpy(a, "kept");
	char *b = loader_realloc(a, 200);
	cr_assert_eq(b, a, "the newest block grows where it is");
	cr_assert_str_eq(b, "kept");
	char *other = loader_malloc(16);
	char *c = loader_realloc(b, 400);
	cr_assert_neq(c, b, "an older block is copied");
	cr_assert_str_eq(c, "kept");
	cr_assert_eq(loader_realloc(c, 10), c, "shrinking keeps the block");
	(void)other;
}

/* A path buffer cut to its path gives the rest back: the next block comes
 * right after it, on the page already touched. */
Test(loader_libc, realloc_shrinks_the_newest_in_place)
{
	arena_reset();
	char *a = loader_malloc(4096);
	strcpy(a, "/usr/bin/python3");
	size_t before = used;
	cr_assert_eq(loader_realloc(a, strlen(a) + 1), a);
	cr_assert_str_eq(a, "/usr/bin/python3");
	cr_assert_lt(used, before - 4000);
	char *b = loader_malloc(16);
	cr_assert_lt(b, a + 64, "the next block follows the shrunk one");
	/* an older block keeps its size: only the newest can give back */
	size_t now = used;
	cr_assert_eq(loader_realloc(a, 1), a);
	cr_assert_eq(used, now);
}

Test(loader_libc, big_blocks_and_a_full_arena_are_mapped)
{
	arena_reset();
	char *big = loader_malloc(BIG);
	cr_assert_not_null(big);
	cr_assert(big < (char *)arena || big >= (char *)arena + ARENA_SIZE, "mapped on its own");
	big[BIG - 1] = 1;
	loader_free(big);	/* unmapped */
	/* fill the arena, then one more small block still comes (mmap) */
	while (ARENA_SIZE - used >= 1024 + ALIGN)
		cr_assert_not_null(loader_malloc(1024));
	char *past = loader_malloc(1024);
	cr_assert_not_null(past);
	cr_assert(past < (char *)arena || past >= (char *)arena + ARENA_SIZE);
	loader_free(past);
	arena_reset();
}

Test(loader_libc, printf_family)
{
	char buf[32];
	cr_assert_eq(loader_snprintf(buf, sizeof buf, "%s %d %zu %lx", "n", -3, (size_t)7, 255UL), 9);
	cr_assert_str_eq(buf, "n -3 7 ff");
	cr_assert_eq(loader_snprintf(buf, 4, "%s", "truncated"), 9, "the length it wanted");
	cr_assert_str_eq(buf, "tru");

	/* a line longer than the gathering buffer goes out whole, in order */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	char line[700];
	memset(line, 'x', sizeof line - 1);
	line[sizeof line - 1] = '\0';
	cr_assert_eq(loader_fprintf(f, "%s|%d\n", line, 42), (int)sizeof line + 3);
	fclose(f);
	cr_assert_eq(len, sizeof line + 3);
	cr_assert_eq(text[sizeof line - 2], 'x');
	cr_assert_str_eq(text + sizeof line - 1, "|42\n");
	free(text);
}
