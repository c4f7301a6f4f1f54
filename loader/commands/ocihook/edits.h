/* SPDX-License-Identifier: MIT */
/*
 * edits: what the hook does to the container, as the judgement asked
 * (word.h), and its undo.  Each package to hide gets an empty read-only
 * tmpfs over its directory, in the container's mount namespace; the chosen
 * package is put first by an ld.so.conf.d file of the hook's own and an
 * ld.so.cache made anew by the host's static ldconfig, run inside the
 * image (image.h) over what the image's files name and every directory its
 * cache named before, so that nothing the hook did not mean to drop leaves
 * the cache.  Every place is checked first (image.h): nothing outside the
 * image's own mount is written or mounted over.  The image's own files are
 * left as they are: the ld.so.conf.d file is the hook's (its first line
 * says so), or it is not written.  On a failure everything is undone,
 * mounts last made first.
 */
#ifndef CUDALOAD_OCIHOOK_EDITS_H
#define CUDALOAD_OCIHOOK_EDITS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "../../../common/packages/compat.h"
#include "image.h"

/* Where the hook's account lies inside the container, and the ld.so.conf.d
 * file it writes (its name sorts before every other: "0-" < "00-"). */
#define OCIHOOK_REPORT_DIR "/run"
#define OCIHOOK_REPORT "/run/cudaload/oci-hook"
#define OCIHOOK_CONF "/etc/ld.so.conf.d/0-cudaload.conf"
#define OCIHOOK_CONF_MARK "# cudaload --oci-hook:"
#define OCIHOOK_LDCONFIG_SECONDS 30
#define OCIHOOK_CACHE_DIRS_MAX 1024	/* directories kept from the image's cache */

struct edit {
	char *dir;		/* inside the image */
	dev_t dev;		/* what the judgement saw there */
	ino_t ino;
	bool mounted;
};

struct edits {
	struct edit hide[COMPAT_MAX_CANDIDATES];
	int n_hide;
	struct edit first;
	bool have_first, cache_names_hidden;
	const char *report;	/* the judgement's account */
	FILE *log;		/* what the hook did, said */
};

/* The edits in e, on the image, each said in e->log; on a failure every
 * one undone.  0, or -1 with why. */
int edits_apply(const struct image *img, const char *root, struct edits *e, char *why, size_t cap);

/* text as OCIHOOK_REPORT, on the image's own mount or the container's own
 * /run tmpfs, nothing made elsewhere.  0, or -1 with why. */
int edits_write_report(const struct image *img, const char *text, char *why, size_t cap);

#endif
