/* SPDX-License-Identifier: MIT */
/*
 * searchpath: the directories ld.so searches, as the system and a program
 * name them.
 *
 * What both reach.h (which libcuda a process can reach) and pin.h (what
 * holds the decision against them) must read the same way, so that what
 * one finds the other holds: the directories a distribution puts every
 * library in, an entry of a search path (DT_RPATH, LD_LIBRARY_PATH,
 * DT_RUNPATH) with its $ORIGIN, the lines of ld.so.conf.  Nothing here
 * judges a libcuda; it says where ld.so looks.
 */
#ifndef CUDALOAD_SEARCHPATH_H
#define CUDALOAD_SEARCHPATH_H

#include <stdbool.h>
#include <stddef.h>

/* Where a distribution puts the driver with every other library
 * (/usr/lib/<triplet>, /usr/lib64, /usr/lib) for machine (an EM_* value):
 * NULL-terminated.  The shipped pin directories are for these
 * (scripts/mkpin.sh). */
const char *const *searchpath_library_dirs(int machine);

/* One entry of a search path (n bytes at p) into dir (cap bytes), $ORIGIN
 * and ${ORIGIN} made the program's directory (ol bytes at origin).  Its
 * length, or 0 when it does not fit or is relative. */
size_t searchpath_entry(const char *p, size_t n, const char *origin, size_t ol, char *dir,
			size_t cap);

/* Each line of ROOT/etc/ld.so.conf and ROOT/etc/ld.so.conf.d/ *.conf: fn
 * gets the file, the directory the line names (len bytes, not terminated)
 * and arg; fn returning false stops.  These make ld.so.cache (ldcache.h):
 * a line says why the cache holds an entry. */
void searchpath_conf_lines(const char *root, bool (*fn)(const char *file, const char *dir,
							size_t len, void *arg), void *arg);

#endif
