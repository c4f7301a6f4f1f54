/* SPDX-License-Identifier: MIT */
/*
 * splice: one edit of a configuration's text, del bytes at `at` replaced
 * by add, every other byte kept.  How cudaload-runtime changes the files of
 * others (a bundle's config.json, an engine's configuration): never by
 * writing them out anew, so that what it does not know is not lost.
 */
#ifndef CUDALOAD_RUNTIME_SPLICE_H
#define CUDALOAD_RUNTIME_SPLICE_H

#include <stddef.h>

/* t (len bytes) with the edit, NUL-terminated, *out_len its length; NULL
 * when out of memory.  at + del must be at most len. */
char *splice(const char *t, size_t len, size_t at, size_t del, const char *add, size_t *out_len);

#endif
