/* SPDX-License-Identifier: MIT */
/*
 * containerd: the texts configure writes for containerd (engines.h), from
 * the texts it reads; no file is opened here.
 *
 * The CRI runtime handler "cudaload" (runtime_type io.containerd.runc.v2,
 * options.BinaryName cudaload-runtime) goes into a drop-in the main file
 * imports.  containerd 1.x merges an imported file by replacing each
 * plugin's whole section with the imported one's, so a drop-in with the
 * handler alone would take every other CRI setting away (the sandbox image,
 * runc's SystemdCgroup): the drop-in repeats the CRI section of the last
 * file that has one (the main file's, else an earlier import's) and adds the
 * handler to it.  Config version 2 (containerd 1.x) keeps it under
 * plugins."io.containerd.grpc.v1.cri", version 3 (containerd 2.x) under
 * plugins."io.containerd.cri.v1.runtime"; version 1 is refused.
 *
 * The handler copies the keys and options of the one it stands in for (the
 * nvidia handler where there is one, else the default handler, else runc)
 * but for runtime_type and BinaryName, so that SystemdCgroup stays what the
 * kubelet expects.
 */
#ifndef CUDALOAD_RUNTIME_CONTAINERD_H
#define CUDALOAD_RUNTIME_CONTAINERD_H

#include <stdbool.h>
#include <stddef.h>

#include "tomledit.h"

/* The drop-in's first line: a file that starts with it is configure's own,
 * which unconfigure removes whole. */
#define CONTAINERD_HEADER "# Written by `cudaload-runtime configure --runtime=containerd`, removed by\n"

struct containerd_source {
	const char *name;	/* for messages */
	const char *text;
	size_t len;
};

struct containerd_note {
	char handler[128];		/* the handler copied, or "" where none was found */
	char nvidia_binary[4096];	/* the nvidia handler's BinaryName, or "" */
};

/* main's config version (2 or 3).  -1 with why. */
int containerd_version(const char *main, size_t len, long *version, char *why, size_t cap);

/* The drop-in's text, from the sources in containerd's order (the main
 * file, then its imports, this drop-in left out), into *out (malloc'd). */
int containerd_dropin(const struct containerd_source *src, size_t n, long version, const char *self,
		      bool set_default, char **out, size_t *out_len, struct containerd_note *note, char *why,
		      size_t cap);

/* Each import of main (as written): fn(path, start, end, ctx).  0, or -1
 * with why (an imports that is not an array of strings). */
int containerd_imports(const char *main, size_t len, toml_string_fn *fn, void *ctx, char *why, size_t cap);

/* main (NULL: made anew as version 2) with dropin (absolute, clean) among
 * its imports, into *out; dir is main's directory, against which containerd
 * resolves a relative import.  An import that names dropin once cleaned
 * counts, and so does an absolute pattern that matches it; a relative
 * pattern does not (containerd 1.6 globs it against its working
 * directory). */
int containerd_imports_add(const char *main, size_t len, const char *dir, const char *dropin, char **out,
			   size_t *out_len, char *why, size_t cap);

/* main without dropin in its imports (each element that names it, as
 * containerd resolves it against dir; the line gone where it was the only
 * one), into *out. */
int containerd_imports_remove(const char *main, size_t len, const char *dir, const char *dropin, char **out,
			      size_t *out_len, char *why, size_t cap);

/* path cleaned as Go's filepath.Clean does, as containerd cleans an import:
 * "//" and "." segments out, ".." taken back lexically.  false where out
 * (cap bytes) is too small. */
bool containerd_clean(const char *path, char *out, size_t cap);

/* An import as containerd resolves it: cleaned, a relative one joined to dir
 * (the main file's directory) first. */
bool containerd_resolve(const char *dir, const char *import, char *out, size_t cap);

#endif
