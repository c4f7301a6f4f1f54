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
 * The new file is a temporary beside the original (".NAME.cudaload-XXXXXX"),
 * never made where it could not be removed again (an append-only or
 * immutable directory or file).  Every temporary is registered from its
 * creation until it is renamed or removed, and SIGINT, SIGTERM and SIGHUP
 * remove the registered ones before the process dies.
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

/* Hold the file read from fd (st as it was read): take the lease, check
 * that nothing changed since the read, and that a temporary beside path
 * could be removed again.  0, or -1 with why (nothing is held then). */
int replace_hold(struct held *h, int fd, const struct stat *st, const char *path,
		 char *why, size_t cap);

/* Is path still the held file, unwritten?  0, or -1 with why. */
int replace_still_held(const struct held *h, const char *path, char *why, size_t cap);

/* Release the lease (the descriptor stays the caller's; closing it releases
 * the lease too). */
void replace_release(struct held *h);

/* Make the temporary for path (its name into tmp, cap bytes) and register
 * it.  The open descriptor, or -1 with why. */
int replace_make_temp(const char *path, char *tmp, size_t cap, char *why, size_t whycap);

/* Rename the registered temporary over path; -1 with errno as rename's. */
int replace_commit(const char *tmp, const char *path);

/* Remove the registered temporary.  0, or -1 with why (it is left behind:
 * the caller says where). */
int replace_discard(const char *tmp, char *why, size_t cap);

/* Remove the registered temporaries when SIGINT, SIGTERM or SIGHUP ends the
 * process; ignore SIGIO (a broken lease, polled instead). */
void replace_install_handlers(void);

#endif
