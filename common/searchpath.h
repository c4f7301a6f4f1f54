/* SPDX-License-Identifier: MIT */
/*
 * searchpath: the directories ld.so searches, as the system and a program
 * name them.
 *
 * What both reach.h (which libcuda a process can reach) and pin.h (what
 * holds the decision against them) must read the same way, so that what
 * one finds the other holds: the directories a distribution puts every
 * library in.  Nothing here judges a libcuda; it says where ld.so looks.
 */
#ifndef CUDALOAD_SEARCHPATH_H
#define CUDALOAD_SEARCHPATH_H

/* Where a distribution puts the driver with every other library
 * (/usr/lib/<triplet>, /usr/lib64, /usr/lib) for machine (an EM_* value):
 * NULL-terminated.  The shipped pin directories are for these
 * (scripts/mkpin.sh). */
const char *const *searchpath_library_dirs(int machine);

#endif
