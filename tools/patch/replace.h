/* SPDX-License-Identifier: MIT */
/*
 * replace: read a file and put a new one in its place without losing
 * anyone's data.
 *
 * The file is read, never mapped: a mapping dies with SIGBUS when another
 * process truncates the file under it.  Before its replacement is written,
 * the file is held: a read lease (fcntl F_SETLEASE, refused while anyone has
 * it open for writing, broken when anyone opens or truncates it for writing),
 * where the file system and our rights allow one, and in any case its
 * identity as read (device, inode, size, mtime, ctime).  Just before the
 * rename both are checked again: a file written, truncated or replaced (by
 * rename, as dpkg upgrades) meanwhile is left as it is, with the reason.
 *
 * The new file is a temporary beside the original (".NAME.cudaload-XXXXXX",
 * mode 0600, the running user's), never made where it could not be removed
 * again (an append-only or immutable directory or file).  Every temporary
 * is registered from its creation until it is renamed or removed, and
 * SIGINT, SIGTERM and SIGHUP remove the registered ones before the process
 * dies.  Each is locked (flock) from its creation for as long as its
 * descriptor stays open: one that a run killed with SIGKILL left behind is
 * told from one a live run is writing by that lock alone, and only such a
 * stale one, the running user's, is ever removed by a later run
 * (replace_remove_stale).
 *
 * Files are named by a directory, open, and a name in it: the caller
 * resolved the directory (inside an image: inroot.h), and nothing here
 * follows a link or looks a path up again.
 */
#ifndef CUDALOAD_REPLACE_H
#define CUDALOAD_REPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* The bytes of the file open at fd, whose fstat is st: all of them, or, when
 * it is not ELF, just the first four, which say so (and whether it is a
 * script).
 * malloc'd (one byte more, zeroed), *len what was read; NULL with why (a file
 * that got shorter while being read is one). */
unsigned char *replace_read(int fd, const struct stat *st, size_t *len, char *why, size_t cap);

/* A file that is to be replaced, held from before its new version is
 * written until the rename. */
struct held {
	int fd;			/* the original, open read-only */
	struct stat st;		/* as it was read */
	bool leased;
};

/* Hold the file read from fd (st as it was read), in the directory open at
 * dirfd (dirst its fstat): take the lease, check that nothing changed since
 * the read, and that a temporary in dirfd could be removed again.  0, or -1
 * with why (nothing is held then). */
int replace_hold(struct held *h, int fd, const struct stat *st, int dirfd, const struct stat *dirst,
		 char *why, size_t cap);

/* Is name in dirfd still the held file, unwritten?  0, or -1 with why. */
int replace_still_held(const struct held *h, int dirfd, const char *name, char *why, size_t cap);

/* Release the lease (the descriptor stays the caller's; closing it releases
 * the lease too). */
void replace_release(struct held *h);

/* Make the temporary for name in dirfd (its name into tmp, cap bytes),
 * locked, and register it; dirfd must stay open until it is committed or
 * discarded.  The open descriptor (read-write: its lock goes with it), or
 * -1 with why. */
int replace_make_temp(int dirfd, const char *name, char *tmp, size_t cap, char *why, size_t whycap);

/* The temporary tmp in dirfd, just written, opened again read-only with
 * its lock: kept until the rename, it holds the lock without holding the
 * file open for writing (an exec of the program it becomes would fail with
 * ETXTBSY); the descriptor that wrote it can then be closed.  The
 * descriptor, or -1 with errno. */
int replace_lock_again(int dirfd, const char *tmp);

/* Rename the registered temporary over name; -1 with errno as renameat's. */
int replace_commit(int dirfd, const char *tmp, const char *name);

/* Remove the registered temporary.  0, or -1 with why (it is left behind:
 * the caller says where). */
int replace_discard(int dirfd, const char *tmp, char *why, size_t cap);

/* Is name shaped like one of our temporaries (".NAME.cudaload-XXXXXX")? */
bool replace_is_temp(const char *name);

/* A temporary left by a run that was killed: name in dirfd removed when it
 * is shaped like ours, a regular file with one link, owned by the running
 * user, and nobody holds its lock.  1 removed, 0 left as it is (another's,
 * not a file, or a live run's), -1 with why when it could not be removed. */
int replace_remove_stale(int dirfd, const char *name, char *why, size_t cap);

/* Remove the registered temporaries when SIGINT, SIGTERM or SIGHUP ends the
 * process; ignore SIGIO (a broken lease, polled instead). */
void replace_install_handlers(void);

#endif
