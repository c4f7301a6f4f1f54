/* SPDX-License-Identifier: MIT */
/*
 * daemonjson: Docker's daemon.json with the runtime "cudaload" in it, and
 * without.  Text in, text out: the members it adds or changes are written
 * in the file's own indentation (4 spaces where it has none, as dockerd's
 * and nvidia-ctk's), every other byte is the original's.
 *
 * configure: runtimes.cudaload = {"path": SELF}; with set_default also
 * "default-runtime": "cudaload".  unconfigure: runtimes.cudaload removed
 * (runtimes with it where it was the only one), and default-runtime where it
 * names cudaload.  A text that is not one JSON object, or that names one of
 * these keys twice, is refused.  The text is read with jsonread.h, at most
 * DAEMONJSON_MAX bytes.
 */
#ifndef CUDALOAD_RUNTIME_DAEMONJSON_H
#define CUDALOAD_RUNTIME_DAEMONJSON_H

#include <stdbool.h>
#include <stddef.h>

#define DAEMONJSON_MAX (1024 * 1024)

/* text (len bytes; NULL: no file, one made anew) with cudaload registered,
 * into *out (malloc'd, *out_len bytes).  0, or -1 with why. */
int daemonjson_configure(const char *text, size_t len, const char *self, bool set_default, char **out,
			 size_t *out_len, char *why, size_t cap);

/* text without cudaload's entries, into *out.  0, or -1 with why. */
int daemonjson_unconfigure(const char *text, size_t len, char **out, size_t *out_len, char *why, size_t cap);

#endif
