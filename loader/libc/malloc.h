/* SPDX-License-Identifier: MIT */
/*
 * The loader's allocator (malloc.c): what common/ may assume of it is in
 * common/base/alloc.h; this is what the loader itself asks of it besides.
 */
#ifndef CUDALOAD_MALLOC_H
#define CUDALOAD_MALLOC_H

/* Unmap every mapping the allocator made (the arena, each large block):
 * every block is gone.  For chain mode's last step before ld.so, so that
 * the program gets the address space it has without cudaload. */
void heap_release(void);

#endif
