/* SPDX-License-Identifier: MIT */
/*
 * searchlist: the library search list handed to ld.so.
 *
 * With a compat package: its directory, then the host driver directories it
 * needs, then the user's LD_LIBRARY_PATH (dropped in secure mode), all as
 * seen from the real root (CUDALOAD_ROOT prefixed).  With the system driver:
 * its pin (pin.h) and then the user's list, or, without a pin, no list at
 * all: ld.so runs exactly as it would without cudaload.
 * A directory containing ':' or ';' cannot be written in the list and is
 * skipped with a message.
 */
#ifndef CUDALOAD_SEARCHLIST_H
#define CUDALOAD_SEARCHLIST_H

#include <stdbool.h>

#include "../packages/compat.h"
#include "decide.h"
#include "../host/probe.h"

/* The chosen driver's own directories: the compat package's and the host
 * driver's, or the pin's (system_pin: its directory as ld.so sees it, or
 * NULL).  malloc'd, or NULL when the system driver is chosen without a pin,
 * or on ENOMEM. */
char *searchlist_own(const char *root, const struct decision *d, const struct candidates *c,
	       const struct host *h, const char *system_pin);

/* own, then the user's list (user_llp; none in secure mode) without the
 * entries own has: malloc'd, or NULL on ENOMEM. */
char *searchlist_extend(const char *own, const char *user_llp, bool secure);

/* searchlist_own, extended by the user's list: what ld.so is given. */
char *searchlist_library_path(const char *root, const struct decision *d,
			const struct candidates *c, const struct host *h,
			const char *system_pin, const char *user_llp, bool secure);

/* Can this directory be written into a search list? */
bool searchlist_dir_expressible(const char *dir);

/* Can exec mode pass list as one argument (--library-path LIST)?  The
 * kernel takes no argument or environment string longer than 32 pages
 * (MAX_ARG_STRLEN, include/uapi/linux/binfmts.h); past it execve fails
 * with E2BIG. */
bool searchlist_fits_argument(const char *list);

#endif
