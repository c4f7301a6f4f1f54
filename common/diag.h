/* SPDX-License-Identifier: MIT */
/*
 * diag: the CUDALOAD_DEBUG trace.
 *
 * One line per step on stderr, prefixed "cudaload: ", when diag_on is set.
 * Off by default so unit tests and quiet runs print nothing.
 */
#ifndef CUDALOAD_DIAG_H
#define CUDALOAD_DIAG_H

#include <stdbool.h>

extern bool diag_on;

__attribute__((format(printf, 1, 2)))
void diag(const char *fmt, ...);

#endif
