/* SPDX-License-Identifier: MIT */
/*
 * daemonjson: Docker's daemon.json with the runtime "cudaload" in it, and
 * without.  Text in, text out: the members it adds or changes are written
 * in the file's own indentation (4 spaces where it has none, as dockerd's
 * and nvidia-ctk's), every other byte is the original's.
 *
 * configure: runtimes.cudaload = {"path": SELF} (where it is an object
 * already, only its path is set: the admin's runtimeArgs stay); with
 * set_default also
 * "default-runtime": "cudaload", without it a default-runtime that names
 * cudaload (an earlier run's) put back to the backup's (the file before
 * configure), or taken out where that had none: the default follows the
 * last run, as the other engines' drop-ins do.  unconfigure:
 * runtimes.cudaload removed (runtimes with it where it was the only one), and
 * a default-runtime that names cudaload put back to the backup's, or taken
 * out.  A text that is not one JSON object, or that names one of
 * these keys twice, is refused.  The text is read with jsonread.h, at most
 * DAEMONJSON_MAX bytes.
 */
#ifndef CUDALOAD_RUNTIME_DAEMONJSON_H
#define CUDALOAD_RUNTIME_DAEMONJSON_H

#include <stdbool.h>
#include <stddef.h>

#define DAEMONJSON_MAX (1024 * 1024)

/* text (len bytes; NULL: no file, one made anew) with cudaload registered,
 * into *out (malloc'd, *out_len bytes); backup (NULL: none) is the file as
 * it was before configure.  0, or -1 with why. */
int daemonjson_configure(const char *text, size_t len, const char *backup, size_t backup_len, const char *self,
			 bool set_default, char **out, size_t *out_len, char *why, size_t cap);

/* text without cudaload's entries, into *out.  0, or -1 with why. */
int daemonjson_unconfigure(const char *text, size_t len, const char *backup, size_t backup_len, char **out,
			   size_t *out_len, char *why, size_t cap);

#endif
