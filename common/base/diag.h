/* SPDX-License-Identifier: MIT */
/*
 * diag: the CUDALOAD_DEBUG trace.
 *
 * One line per step on stderr when diag_on is set, prefixed
 * "cudaload[PID] PROGRAM: " so that the traces of nested processes can be
 * told apart.  Each line is written in the printable form of names
 * (utf8.h), as every other output: a control byte in a file's or the
 * program's name shows as \xNN.  Off by default so unit tests and quiet
 * runs print nothing.
 */
#ifndef CUDALOAD_DIAG_H
#define CUDALOAD_DIAG_H

#include <stdbool.h>

extern bool diag_on;

/* The program's name for the prefix (its argv[0] or path; the last path
 * component is shown).  NULL: "cudaload[PID]: " only. */
void diag_set_program(const char *name);

__attribute__((format(printf, 1, 2)))
void diag(const char *fmt, ...);

#endif
