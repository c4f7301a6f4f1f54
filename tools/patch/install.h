/* SPDX-License-Identifier: MIT */
/*
 * install: `cudaload-patch --root IMAGE --install SRC DEST`, patch-image.sh's
 * writes into an image.  A shell script cannot resolve a path inside an
 * image: each of these is resolved there (inroot.h), so a link of the image
 * that points out of it (usr -> /usr) leads no write out.  Files are
 * written as patched programs are (a locked temporary beside them, made
 * durable, renamed into place); links and directories made as they are.
 * Each step takes what it counts and, where it writes a file, the run's
 * directory cache and sweep (a killed run's temporaries there are removed).
 */
#ifndef CUDALOAD_PATCH_INSTALL_H
#define CUDALOAD_PATCH_INSTALL_H

#include "run.h"

/* SRC (a file, a link or a tree, on this machine) as DEST, a path as the
 * image names it (absolute), with --mode and --no-clobber; the summary
 * said.  0, or 1 when anything failed (each said). */
int install(const struct options *opt, struct run *run, const char *src, const char *dest);

#endif
