/* SPDX-License-Identifier: MIT */
/*
 * target: the program to run and the facts about it the hand-over needs.
 *
 * As PT_INTERP the program is already mapped: its interpreter string and
 * the cudaload-patch record are read from memory (no I/O).  Run as a
 * command, the program is searched in PATH when its name has no '/', read
 * from disk, and a '#!' script is replaced by its interpreter with the
 * arguments the kernel would give it.
 */
#ifndef CUDALOAD_TARGET_H
#define CUDALOAD_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "elfread.h"
#include "../base/sys.h"

#define TARGET_MAX_SCRIPT_DEPTH 4

struct target {
	const char *path;		/* for ld.so: always contains '/'; NULL until known */
	char **argv;			/* the program's argv; argv[0] is what it should see */
	int argc;
	char **owned_argv;		/* argv we allocated for a script, or NULL */
	int cls, machine;
	bool has_interp;		/* false: static, nothing for ld.so to do */
	/* Pointers, not buffers: as the interpreter they point into the mapped
	 * program (a stack of path buffers cost start-up a page each). */
	const char *interp;		/* PT_INTERP up to its first NUL, or "" */
	const char *recorded;		/* original interpreter recorded by cudaload-patch, or "" */
	int glibc_floor;		/* the glibc it asks for at least (reach_glibc_floor), or 0 */
	char *owned_path, *owned_interp;	/* what path and interp point into, when read */
	unsigned privileged;		/* run as a command: what the kernel grants the
					 * program when it runs it, TARGET_SET_ID and
					 * TARGET_FILE_CAPS; 0 none */
};

/* A privilege only an exec of the program itself grants: an exec of ld.so
 * with the program as its argument runs it without (docs/design.md §6). */
#define TARGET_SET_ID 1		/* set-user-ID or set-group-ID, to ids not this process's */
#define TARGET_FILE_CAPS 2	/* file capabilities (security.capability) */

/* An empty target. */
void target_init(struct target *t);

/* Resolve a command name: as given when it has a '/', else the first
 * executable regular file in pathenv ("" entries mean "."). 0, or -errno. */
int target_search_path(const char *name, const char *pathenv, char *out, size_t cap);

/* Run as a command: argv[0] is PROGRAM.  0, or -ENOENT (127) / -EACCES /
 * -ENOEXEC (126) with the reason in why.  Sets privileged, for the file
 * that runs (a script's interpreter, as the kernel takes it): one
 * fgetxattr more. */
int target_from_command(struct target *t, int argc, char **argv, const char *pathenv,
			char *why, size_t whycap);

/* As PT_INTERP: the program's program headers are at phdr (in memory).
 * Fills interp and recorded; -1 if they cannot be read from memory. */
int target_interp_from_memory(struct target *t, const void *phdr, size_t phnum,
			      size_t phentsize);

/* The same from the program file open at fd, when memory cannot tell (no
 * PT_PHDR, or the string outside a mapped segment).  The caller opens the
 * file the kernel ran (/proc/self/exe), never a name that may have changed
 * since.  0, or -1 with why. */
int target_interp_from_fd(struct target *t, int fd, char *why, size_t whycap);

void target_free(struct target *t);

#endif
