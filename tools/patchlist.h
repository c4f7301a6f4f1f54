/* SPDX-License-Identifier: MIT */
/*
 * patchlist (the file): cudaload-patch's record of the programs it patched
 * on this system, /var/lib/cudaload/patched; the format and the list in
 * memory are common/stores/patchlist.h.
 *
 * A package upgrade replaces a patched program with an unpatched copy; the
 * record lets `cudaload-patch --reapply` (run by the apt hook) patch it
 * again, and `--restore-recorded` (run by the package's prerm) restore every
 * recorded program before cudaload goes away (docs/design.md §11).
 *
 * The file is replaced atomically (a temporary file beside it, fsync,
 * rename, fsync of the directory), so a reader sees the old list or the new
 * one, never half of one.
 */
#ifndef CUDALOAD_TOOLS_PATCHLIST_H
#define CUDALOAD_TOOLS_PATCHLIST_H

#include "../common/stores/patchlist.h"

/* Load a file; a missing file is an empty list.  0, or -1 with a reason
 * (unreadable, out of memory). */
int patchlist_load(struct patchlist *pl, const char *file, char *why, size_t whycap);

/* The same from a file open at fd (taken, and closed); shown names it. */
int patchlist_load_fd(struct patchlist *pl, int fd, const char *shown, char *why, size_t whycap);

/* Write the list to file atomically, creating its directory (0755) when
 * missing; an empty list removes the file.  0, or -1 with a reason. */
int patchlist_save(const struct patchlist *pl, const char *file, char *why, size_t whycap);

/* The same as name in the directory open at dirfd (an image's, resolved
 * inside it); shown names it. */
int patchlist_save_at(const struct patchlist *pl, int dirfd, const char *name, const char *shown,
		      char *why, size_t whycap);

#endif
