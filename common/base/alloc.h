/* SPDX-License-Identifier: MIT */
/*
 * alloc: what code in common/ may assume of malloc, and must not.
 *
 * The same files run under two allocators: glibc's, in the tools, tests and
 * fuzzers, and the loader's (loader/libc/malloc.c), a bump allocator over
 * one arena that lives for a few hundred microseconds before the hand-over.
 * Code here is written for the stricter one:
 *
 * - free() gives memory back only for the newest block; any other free is
 *   kept until exit.  So scratch space is allocated last and freed first
 *   (newest first), and a loop that allocates and frees per item does so
 *   without allocating in between.  Out of order is correct, only wasteful.
 * - realloc() grows the newest block in place; another one is copied.
 * - Any allocation may fail: every caller handles NULL with a message or a
 *   fallback, never a crash (the loader then runs the program with the
 *   system driver).
 * - Memory is not clean: calloc() when zeros matter.
 * - Large buffers (CL_PATH_MAX, sys.h) come from here, not the stack: the
 *   loader counts the stack pages it touches, and its objects are built with
 *   -Wframe-larger-than (Makefile).
 *
 * Nothing here is a function: the header is the contract, kept where the
 * code that relies on it lives.
 */
#ifndef CUDALOAD_ALLOC_H
#define CUDALOAD_ALLOC_H
#endif
