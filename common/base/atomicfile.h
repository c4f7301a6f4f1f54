/* SPDX-License-Identifier: MIT */
/*
 * atomicfile: a file put in place whole, so that a reader finds the old
 * one or the new one, never a part; the one way the tree writes a file
 * into place (cudaload-patch's replacements and --install, the record of
 * patched programs, the prepared decision, the verdict store, --status
 * --textfile, the container hook's edits).
 *
 * The new file is a temporary beside the name it will take, in the
 * caller's directory, open: ".NAME.cudaload-XXXXXX", the X's letters and
 * digits from the kernel's randomness (getrandom; before Linux 3.17, the
 * clock and the pid: a name then only harder to guess), so that nobody can
 * plant something there first.  It is created with O_EXCL | O_NOFOLLOW |
 * O_NONBLOCK, so nothing already there (a link, a FIFO) is ever opened, and
 * then checked to be a plain file of this user's with one link, for file
 * systems that do not honour O_EXCL.  Mode 0600 until it is complete.
 * Where the caller asks for durability, the file is synced before the
 * rename and its directory after it.  On every failure the temporary is
 * removed.  Nothing here looks up a path but a name in the given directory.
 */
#ifndef CUDALOAD_ATOMICFILE_H
#define CUDALOAD_ATOMICFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* The temporary's shape: ".NAME" ATOMIC_MARK and ATOMIC_RANDOM letters. */
#define ATOMIC_MARK ".cudaload-"
#define ATOMIC_RANDOM 6

struct atomic_file {
	int dirfd;		/* the caller's; open until commit or abort */
	int fd;			/* the temporary, open read-write */
	bool durable;		/* fsync the file and the directory */
	char tmp[NAME_MAX + 1];
};

/* A temporary for name in dirfd.  0, or -1 with errno (ENAMETOOLONG where
 * name leaves no room for the temporary's). */
int atomic_begin(struct atomic_file *a, int dirfd, const char *name, bool durable);

/* All n bytes at p to the temporary.  0, or -1 with errno. */
int atomic_write(struct atomic_file *a, const void *p, size_t n);

/* A stream over the temporary, on a descriptor of its own (fclose leaves
 * a->fd for the commit); NULL with errno. */
FILE *atomic_stream(struct atomic_file *a);

/* The temporary, given mode, in place of name: synced where durable,
 * closed, renamed over name, the directory synced where durable.  0; or -1
 * with errno, the temporary removed. */
int atomic_commit(struct atomic_file *a, const char *name, mode_t mode);

/* The temporary closed and removed. */
void atomic_abort(struct atomic_file *a);

/* begin, write, commit: n bytes at p as name in dirfd.  0, or -1 (errno). */
int atomic_replace(int dirfd, const char *name, const void *p, size_t n, mode_t mode, bool durable);

/* A symbolic link to target as name in dirfd, put in place the same way
 * (a link under a temporary name, renamed over).  0, or -1 with errno. */
int atomic_symlink(int dirfd, const char *name, const char *target);

/* The steps, for a writer that holds its temporaries longer (the patcher:
 * locked, registered for its signal handler, renamed in batches with one
 * sync of the directory). */

/* ".NAME.cudaload-XXXXXX" into tmp (cap bytes), the X's as they are.  0, or
 * -1 with ENAMETOOLONG. */
int atomic_temp_name(const char *name, char *tmp, size_t cap);

/* The file named in tmp (by atomic_temp_name) created in dirfd, its X's
 * filled in place, a new name while one is taken (100 tries), mode 0600.
 * The descriptor (read-write), or -1 with errno. */
int atomic_create(int dirfd, char *tmp);

/* tmp renamed over name in dirfd; where that fails, tmp removed.  0, or -1
 * with errno as renameat's. */
int atomic_rename(int dirfd, const char *tmp, const char *name);

/* Is name shaped like a temporary of ours (".NAME.cudaload-" and
 * ATOMIC_RANDOM letters)? */
bool atomic_is_temp(const char *name);

/* The ATOMIC_RANDOM-letter tail of tmp made random (in place). */
void atomic_fill(char *tmp);

#endif
