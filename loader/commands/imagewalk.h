/* SPDX-License-Identifier: MIT */
/*
 * imagewalk: the programs a cudaload-patch walk patched in an image.
 *
 * An image patched by patch-image.sh (cudaload-patch --no-record --root)
 * keeps no record of its programs (docs/design.md §11), so `cudaload
 * --status --root DIR` finds them the way that walk went: the directories
 * patch-image.sh patches (IMAGEWALK_DIRS) under the root, every executable
 * regular file read for its PT_INTERP and kept when that carries
 * cudaload-patch's record (common/elf/record.h).  Symbolic links are not
 * followed, so each file is read once, and nothing deeper than
 * IMAGEWALK_DEPTH directories; a directory that cannot be read is passed
 * over.  What is found goes into a patchlist, as if recorded.
 */
#ifndef CUDALOAD_IMAGEWALK_H
#define CUDALOAD_IMAGEWALK_H

#include "../../common/stores/patchlist.h"

#define IMAGEWALK_DEPTH 16

/* The walked directories, as in the image: patch-image.sh's PATCH_DIRS. */
#define IMAGEWALK_N_DIRS 4
extern const char imagewalk_dirs[IMAGEWALK_N_DIRS][12];

/* Add the patched programs under root to pl (paths as in the image).
 * 0, or -1 when out of memory. */
int imagewalk(const char *root, struct patchlist *pl);

#endif
