/* SPDX-License-Identifier: MIT */
/*
 * why: a failure's reason, for its caller to show.  Across the tree a step
 * that can fail takes (char *why, size_t cap) and, failing, fills it; this
 * is the one way it is filled: formatted, cut to cap bytes and always
 * terminated, nothing written where why is NULL or cap is 0.  It returns
 * -1, so that `return why_fail(why, cap, ...)` reads as what it does.
 */
#ifndef CUDALOAD_WHY_H
#define CUDALOAD_WHY_H

#include <stdarg.h>
#include <stddef.h>

__attribute__((format(printf, 3, 4)))
int why_fail(char *why, size_t cap, const char *fmt, ...);

__attribute__((format(printf, 3, 0)))
int why_vfail(char *why, size_t cap, const char *fmt, va_list ap);

#endif
