/* SPDX-License-Identifier: MIT */
/*
 * walk: what the command line names, listed, then done.  A file named is
 * listed as it is; a directory is walked (a link named: what it points
 * to), inside the image with --root, and the temporaries a killed run
 * left in each directory are swept on the way (files.h).  Then a file
 * listed twice under one name is done once (as named, if it was),
 * virtual environments are read first (pysite.h: they say which
 * interpreter they run), and each file goes through process_file.
 *
 * Every argument is listed first, then the files are patched: renaming
 * into a directory while reading it could show a file twice or a
 * temporary, and what one argument holds (a virtual environment) can decide
 * a program another argument names, whatever their order.
 */
#ifndef CUDALOAD_PATCH_WALK_H
#define CUDALOAD_PATCH_WALK_H

#include <stdbool.h>
#include <sys/types.h>

#include "run.h"

struct listed_file {
	char *path;
	char *img;		/* its path in the image, with --root */
	bool named;
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
};

struct listing {
	struct listed_file *v;
	size_t n, cap;
	bool oom;
};


/* One argument listed: a file, or a directory walked (a link named: what
 * it points to); the temporaries a killed run left beside a file swept. */
void list_argument(const struct options *opt, struct run *run, struct listing *listed,
		   const char *arg);

/* Every file listed, done (and the listing emptied). */
void process_listed(const struct options *opt, struct run *run, struct listing *listed);

#endif
