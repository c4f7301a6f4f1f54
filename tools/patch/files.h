/* SPDX-License-Identifier: MIT */
/*
 * files: one file through cudaload-patch, step by step (struct file_job,
 * run.h): open and read it in its directory (one kept open for the files
 * in a row, struct dir_cache), tell what it is and whether it uses CUDA
 * (usescuda.h, and what it loads: closure.h, pysite.h), then leave
 * cudaload's own programs alone, check it, or plan its patch or restore
 * and queue its replacement (batch.h).  Also what a killed run left in a
 * directory walked: its temporaries, removed once nobody holds their lock.
 */
#ifndef CUDALOAD_PATCH_FILES_H
#define CUDALOAD_PATCH_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "run.h"

/* One file: patched for interp (a cudaload for machine), restored or
 * checked as opt->action says.  The interpreter is the caller's: --reapply
 * gives each recorded program its own.  img: the file's path in the image
 * (--root), where it is looked up.  What became of it. */
enum outcome process_file(const struct options *opt, struct run *run, const char *path,
			  const char *img, bool named, const char *interp, int machine);

/* The program at path (img in the image, with --root) as this machine
 * reaches it, absolute, for the closure and the Python packages: in an
 * image, its links resolved inside it first, so that what they read is
 * the image's. */
bool program_path(const struct options *opt, const char *path, const char *img, char *out,
		  size_t cap);

/* The rule (usescuda.h) for a library a program loads or a Python package
 * holds: closure.c and pysite.c ask it once per library and run. */
int judge_library(void *ctx, int fd, const char *path, char *why, size_t cap);

/* Close the directory in hand. */
void dir_cache_drop(struct dir_cache *dirs);

/* A temporary of ours met in a directory (dirfd) at path: never patched;
 * removed, and said, when a run that was killed left it (replace.h). */
void sweep_one(const struct options *opt, int dirfd, const char *name, const char *path);

/* The temporaries a killed run left in path's directory (img: in the
 * image), each directory looked at once (swept). */
void sweep_dir_of(const struct options *opt, struct dir_cache *dirs, struct swept *swept,
		  const char *path, const char *img);

#endif
