/* SPDX-License-Identifier: MIT */
/*
 * sys: rooted file access and the one hardware seam.
 *
 * Every probe, config and compat path is looked up under a root ("" or "/"
 * is the real root; CUDALOAD_ROOT in tests).  Reads are bounded: a file that
 * is huge, endless (/dev/zero), a FIFO or a directory yields at most `cap`
 * bytes or an error, never a hang.  The nvgpu device is reached only through
 * sys_gpu_open/sys_gpu_ioctl, which unit tests replace; nothing else is faked.
 */
#ifndef CUDALOAD_SYS_H
#define CUDALOAD_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CL_PATH_MAX 4096

/* How much of root goes before an absolute path: its length without
 * trailing slashes (0 for "" and "/"). */
size_t root_len(const char *root);
/* Join root and an absolute path into out.  Returns 0, or -1 if it does not fit. */
int root_join(char *out, size_t cap, const char *root, const char *path);

/* root and path joined: path itself on the real root ("" or "/"), else a
 * malloc'd string (no buffer of CL_PATH_MAX on the stack: start-up counts
 * the stack pages it touches).  NULL when out of memory.  Give it back with
 * root_path_free(full, path). */
char *root_path(const char *root, const char *path);
void root_path_free(char *full, const char *path);
/* open(path, O_RDONLY | O_CLOEXEC | extra) in one system call (musl's open()
 * adds an fcntl for O_CLOEXEC; cudaload counts its system calls).  fd or -errno. */
int open_ro(const char *path, int extra);

/* Read at most cap-1 bytes of a rooted file into buf and NUL-terminate it.
 * Returns the byte count or -errno (-EISDIR for a directory). */
ssize_t read_small(const char *root, const char *path, char *buf, size_t cap);

/* Read exactly len bytes at off; -1 if the file is shorter or on error. */
int pread_full(int fd, void *buf, size_t len, off_t off);

/* stat(2) of the rooted path: 0, or -1. */
struct stat;
int root_stat(const char *root, const char *path, struct stat *st);

/* Is the rooted path a directory? */
bool root_is_dir(const char *root, const char *path);

/* One record of what getdents64 put in buf[0..len): its name in *name and
 * *pos moved past it.  DENT_UNTERMINATED is a record whose name has no NUL
 * (skip it: not a name to trust); DENT_BROKEN one that runs past len or is
 * too short to hold a name (stop: the rest cannot be read). */
enum dent_step { DENT_END, DENT_ENTRY, DENT_UNTERMINATED, DENT_BROKEN };
#define DENT_HEAD 19	/* d_ino, d_off, d_reclen, d_type: the bytes before d_name */
enum dent_step dent_next(const char *buf, size_t len, size_t *pos, const char **name);

/* While sys_seen is set, every path looked up under the root (as on the
 * target) is recorded in it: the inputs of a decision to be prepared
 * (prepared.h).  Past SYS_SEEN_MAX paths, or out of memory, full is set
 * and nothing more is kept.  NULL, the default, costs nothing. */
#define SYS_SEEN_MAX 256
struct sys_seen {
	char *paths[SYS_SEEN_MAX];
	size_t n;
	bool full;
};
extern struct sys_seen *sys_seen;
/* Record a path looked at without root_path (one built by hand). */
void sys_note(const char *path);

/* The hardware seam (see nvgpu.h).  Real implementations call open/ioctl. */
extern int (*sys_gpu_open)(const char *path);
extern int (*sys_gpu_ioctl)(int fd, unsigned long request, void *arg);
extern void (*sys_gpu_close)(int fd);

#endif
