/* SPDX-License-Identifier: MIT */
/*
 * tempname: a temporary file beside another, under a name nobody can know
 * in advance, so that nobody can plant something there first.  The
 * trailing 'X's of a name are replaced by letters and digits from the
 * kernel's randomness (getrandom, a generator seeded with it for the
 * name's letters; without getrandom, before Linux 3.17, the clock and the
 * pid: a name then only harder to guess).  What makes the create safe is O_EXCL and
 * O_NOFOLLOW: a name already there, a FIFO or a link, is never opened.
 * Used by every writer that renames a file into place: cudaload-patch's
 * replacements (tools/patch/replace.h), the record of patched programs
 * (common/stores/patchlist.h) and --status's textfile.
 */
#ifndef CUDALOAD_TEMPNAME_H
#define CUDALOAD_TEMPNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The trailing 'X's of name, n of them, made random. */
void tempname_fill(char *name, size_t n);

/* Is each of the n characters at s one tempname_fill writes? */
bool tempname_is_random(const char *s, size_t n);

/* A new file in dirfd under name, whose last n characters are 'X's:
 * tempname_fill, then openat with O_CREAT | O_EXCL | O_NOFOLLOW |
 * O_CLOEXEC and flags, a new name while one is taken (100 tries).  The
 * descriptor, with the name made in name; or -1 and errno. */
int tempname_create(int dirfd, char *name, size_t n, int flags, mode_t mode);

#endif
