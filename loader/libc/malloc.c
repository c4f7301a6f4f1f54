/* SPDX-License-Identifier: MIT */
/*
 * The loader's malloc: a bump allocator over a static arena, linked before
 * musl's libc.a in place of musl's malloc (which musl allows replacing).
 * What common/ may assume of it is in common/base/alloc.h.
 *
 * cudaload allocates a few small things (config values, the candidates,
 * the search list) and then hands over or exits; nothing lives long.
 * musl's malloc set-up costs two brk calls and two mmap calls and two
 * fresh pages before the first byte is handed out; here the arena is one
 * mapping made at the first allocation, a page of it costing only when it
 * is first touched.  Not the bss: there it would push musl's own variables
 * onto a page apart from the loader's, a page fault on every start, even
 * on the way to the system driver, which allocates nothing.  Past the
 * arena, and for large blocks, memory comes from mmap; those mappings are
 * kept in a list, so that chain mode can give every one back (malloc.h).
 * free() gives back the last block only; realloc() grows or shrinks the
 * last block in place.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "malloc.h"

#define ARENA_SIZE (256 * 1024)
#define BIG (64 * 1024)		/* blocks this large are mapped on their own */
#define ALIGN 16

/* Every block is preceded by its header, ALIGN bytes. */
struct header {
	size_t size;		/* usable bytes */
	struct header *next;	/* a block of its own mapping: the next such */
};

static unsigned char *arena;	/* ARENA_SIZE bytes, mapped when first needed */
static size_t used;
static struct header *mapped;	/* blocks of their own mapping, size + ALIGN bytes each */

static bool arena_ready(void)
{
	if (!arena) {
		void *m = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		arena = m == MAP_FAILED ? NULL : m;
	}
	return arena != NULL;
}

static struct header *header_of(void *p)
{
	return (struct header *)((unsigned char *)p - ALIGN);
}

static bool in_arena(const struct header *h)
{
	return arena && (const unsigned char *)h >= arena && (const unsigned char *)h < arena + ARENA_SIZE;
}

static bool is_last(void *p)
{
	return (unsigned char *)p + header_of(p)->size == arena + used;
}

void *malloc(size_t n)
{
	if (n > SIZE_MAX / 2) {
		errno = ENOMEM;
		return NULL;
	}
	n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (n < BIG && arena_ready() && ARENA_SIZE - used >= n + ALIGN) {
		struct header *h = (struct header *)(arena + used);
		h->size = n;
		h->next = NULL;
		used += n + ALIGN;
		return (unsigned char *)h + ALIGN;
	}
	void *m = mmap(NULL, n + ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
	struct header *h = m;
	h->size = n;
	h->next = mapped;
	mapped = h;
	return (unsigned char *)m + ALIGN;
}

void free(void *p)
{
	if (!p)
		return;
	struct header *h = header_of(p);
	if (!in_arena(h)) {
		struct header **link = &mapped;
		while (*link && *link != h)
			link = &(*link)->next;
		if (*link)
			*link = h->next;
		munmap(h, h->size + ALIGN);
	} else if (is_last(p)) {
		used -= h->size + ALIGN;
	}
}

void *calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = malloc(n * size);
	if (p)
		memset(p, 0, n * size);	/* a block given back and handed out again is not clean */
	return p;
}

void *realloc(void *p, size_t n)
{
	if (!p)
		return malloc(n);
	struct header *h = header_of(p);
	size_t want = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (n <= h->size) {
		/* the last block shrinks in place: a path buffer cut to its
		 * path keeps the next blocks on the pages already touched */
		if (in_arena(h) && is_last(p) && want && want < h->size) {
			used -= h->size - want;
			h->size = want;
		}
		return p;
	}
	if (in_arena(h) && is_last(p) && want < BIG && ARENA_SIZE - used >= want - h->size) {
		used += want - h->size;
		h->size = want;
		return p;
	}
	void *q = malloc(n);
	if (q) {
		memcpy(q, p, h->size);
		free(p);
	}
	return q;
}

void heap_release(void)
{
	while (mapped) {
		struct header *h = mapped;
		mapped = h->next;	/* read before the unmap */
		munmap(h, h->size + ALIGN);
	}
	if (arena)
		munmap(arena, ARENA_SIZE);
	arena = NULL;
	used = 0;
}
