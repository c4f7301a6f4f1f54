/* SPDX-License-Identifier: MIT */
/*
 * patchlist: the record of programs cudaload-patch patched on this system,
 * in memory: the format, parsed and kept.  Writing and reading the file is
 * tools/patchlist.h (cudaload-patch); `cudaload --status` reads it too.
 *
 * The file is text, one program per line: "INTERP<TAB>PATH", both absolute,
 * neither with a newline, INTERP without a tab.  A line that does not parse
 * is skipped with a message; it never stops a run (docs/design.md §11).
 */
#ifndef CUDALOAD_PATCHLIST_H
#define CUDALOAD_PATCHLIST_H

#include <stdbool.h>
#include <stddef.h>

#define PATCHLIST_DIR "/var/lib/cudaload"
#define PATCHLIST_FILE PATCHLIST_DIR "/patched"

struct patchlist_entry {
	char *interp, *path;
};

struct patchlist {
	struct patchlist_entry *v;
	size_t n, cap;
	bool changed;		/* since it was loaded */
};

/* Parse text into pl (appending).  Returns the number of lines skipped;
 * the first skipped line's reason goes to why. */
int patchlist_parse(struct patchlist *pl, const char *text, size_t len,
		    char *why, size_t whycap);

/* Read the record file at path (as on this machine) into pl (appending):
 * a regular file under PATCHLIST_MAX bytes.  1 when read, *skipped
 * the lines that did not parse and why the first one's reason; 0 when
 * there is no such file; -1 when it cannot be read, why says why.  For
 * --status and --verify (cudaload-patch keeps its own, tools/patchlist.h). */
#define PATCHLIST_MAX (1 << 26)
int patchlist_read(const char *path, struct patchlist *pl, int *skipped, char *why, size_t whycap);

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
