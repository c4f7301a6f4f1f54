/* SPDX-License-Identifier: MIT */
/*
 * inroot: the paths of an image resolved inside it, as chroot(2) would.
 *
 * With --root DIR every path cudaload-patch reaches in the image, to walk
 * it, to read a program, to write its replacement, to install a file or to
 * keep the record, is resolved with DIR as "/": an absolute symbolic link
 * starts again at DIR, ".." stops at DIR.  A link that points out of the
 * image, however it is spelt, is followed inside it (and fails there when
 * the image has no such file); nothing outside the image is opened, made
 * or replaced.  More than 40 links on one path is ELOOP, as in the kernel.
 *
 * openat2(2) with RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS does it where the
 * kernel has it (5.6+; asked once per process).  Elsewhere (Ubuntu 20.04's
 * first kernel, 5.4) our own resolver walks one component at a time, each
 * opened with O_NOFOLLOW below the directory before it: a link's text is
 * read and walked on from the link's directory, or from the root when it is
 * absolute; ".." goes back to the directory it came from, which is kept
 * open and never looked up by name, so a directory moved out of the image
 * meanwhile cannot lead out of it either.  inroot_use_own() forces ours
 * (cudaload-patch: CUDALOAD_PATCH_RESOLVER=own, for the tests).
 */
#ifndef CUDALOAD_INROOT_H
#define CUDALOAD_INROOT_H

#include <stdbool.h>
#include <stddef.h>

/* Use our own resolver even where the kernel has openat2 (own), or
 * openat2 where it has it (!own: the default). */
void inroot_use_own(bool own);

/* Which resolver inroot_open uses: "openat2 (RESOLVE_IN_ROOT)" or
 * "cudaload-patch's own (...why...)". */
const char *inroot_resolver(void);

/* path (absolute or relative: both start at the root) opened inside the
 * root, an open directory (O_PATH is enough), with open(2)'s flags (no
 * O_CREAT; O_NOFOLLOW: the last component is not followed).  The
 * descriptor (close-on-exec), or -errno. */
int inroot_open(int root, const char *path, int flags);

/* The directory holding path's last component, open (O_RDONLY |
 * O_DIRECTORY) inside the root, and that component into name (cap bytes).
 * make: directories missing on the way are made (0755), inside the root; a
 * link that leads nowhere is never made through (-ENOENT).  The descriptor,
 * or -errno (-EINVAL when the last component is empty, "." or ".."). */
int inroot_parent(int root, const char *path, bool make, char *name, size_t cap);

/* path made absolute (against the working directory) and cleaned of "."
 * components and repeated or trailing slashes, as text: ".." is kept (it
 * is a link's business).  0, or -1 when it does not fit. */
int inroot_absolute(const char *path, char *out, size_t cap);

/* Where a cleaned absolute path lies in the image whose cleaned absolute
 * root is root: the image's path ("/usr/bin/x"; "/" for the root itself),
 * pointing into path, or NULL when it is not below the root. */
const char *inroot_below(const char *root, const char *path);

#endif
