/* SPDX-License-Identifier: MIT */
/*
 * patchlist: the record of programs cudaload-patch patched on this system,
 * /var/lib/cudaload/patched: the format, the list in memory, the one reader
 * (cudaload-patch, `cudaload --status`, `cudaload --verify`) and the atomic
 * writer (cudaload-patch).
 *
 * A package upgrade replaces a patched program with an unpatched copy; the
 * record lets `cudaload-patch --reapply` (run by the apt hook) patch it
 * again, and `--restore-recorded` (run by the package's prerm) restore every
 * recorded program before cudaload goes away (docs/design.md §11).
 *
 * The file is text, one program per line: "INTERP<TAB>PATH", both absolute,
 * neither with a newline, INTERP without a tab.  A line that does not parse
 * is skipped and said by the caller; it never stops a run.  The file is
 * replaced whole and durably (atomicfile.h), so a reader sees the old list
 * or the new one, never half of one.
 */
#ifndef CUDALOAD_PATCHLIST_H
#define CUDALOAD_PATCHLIST_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/sys.h"

#define PATCHLIST_DIR "/var/lib/cudaload"
#define PATCHLIST_FILE PATCHLIST_DIR "/patched"

struct patchlist_entry {
	char *interp, *path;
};

struct patchlist {
	struct patchlist_entry *v;
	size_t n, cap;
	bool changed;		/* by patchlist_add or _remove since it was read */
};

/* Parse text into pl (appending).  Returns the number of lines skipped;
 * the first skipped line's reason goes to why. */
int patchlist_parse(struct patchlist *pl, const char *text, size_t len,
		    char *why, size_t whycap);

/* Read the record open at fd (taken, and closed) into pl (appending): a
 * regular file under PATCHLIST_MAX bytes.  fd may be the -errno opening it
 * failed with instead: -ENOENT is no record.  1 when read, *skipped the
 * lines that did not parse and why the first one's reason; 0 when there is
 * no record; -1 when it cannot be read, why says why.  why never names the
 * file: each caller names it its own way. */
#define PATCHLIST_MAX (1 << 26)
int patchlist_read_fd(int fd, struct patchlist *pl, int *skipped, char *why, size_t whycap);

/* The same from the file at path (as on this machine): a missing
 * directory is no record either.  Inline: the loader's one caller pays no
 * call of its own for it. */
static inline int patchlist_read(const char *path, struct patchlist *pl, int *skipped, char *why,
				 size_t whycap)
{
	int fd = open_ro(path, 0);
	return patchlist_read_fd(fd == -ENOTDIR ? -ENOENT : fd, pl, skipped, why, whycap);
}

/* Write the list to file atomically, creating its directory (0755) when
 * missing; an empty list removes the file.  0, or -1 with a reason that
 * names what failed. */
int patchlist_save(const struct patchlist *pl, const char *file, char *why, size_t whycap);

/* The same as name in the directory open at dirfd (an image's, resolved
 * inside it); shown names it in why. */
int patchlist_save_at(const struct patchlist *pl, int dirfd, const char *name, const char *shown,
		      char *why, size_t whycap);

/* Can this pair be written as a line? */
bool patchlist_storable(const char *interp, const char *path);

/* Add or update path's entry.  0, or -1 (not storable, out of memory). */
int patchlist_add(struct patchlist *pl, const char *interp, const char *path);

/* Drop path's entry; true when there was one. */
bool patchlist_remove(struct patchlist *pl, const char *path);

/* Index of path's entry, or -1. */
long patchlist_find(const struct patchlist *pl, const char *path);

void patchlist_free(struct patchlist *pl);

#endif
