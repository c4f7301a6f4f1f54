/* SPDX-License-Identifier: MIT */
/*
 * grow: room for a PT_INTERP string that does not fit the old one.  Two
 * layouts (docs/design.md §9): strip-safe when the file's shape allows (the
 * program header table stays after the ELF header and takes one more
 * entry, the sections it grows into move to a new PT_LOAD at the end),
 * else a new program header table in a new PT_LOAD at the end.
 */
#ifndef CUDALOAD_ELFPATCH_GROW_H
#define CUDALOAD_ELFPATCH_GROW_H

#include "internal.h"

/* Plan the growth for the string nb (nblen bytes, record included) into an
 * empty plan keeping len bytes.  0, or -1 with a reason (the caller frees
 * the plan). */
int grow_plan(unsigned char *img, size_t len, struct loaded *l, const unsigned char *nb,
	      size_t nblen, struct patch_plan *plan, char *why, size_t cap);

#endif
