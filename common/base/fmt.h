/* SPDX-License-Identifier: MIT */
/*
 * fmt: a small printf formatter for the loader, without floating point.
 *
 * musl's printf carries long double formatting, which on aarch64 pulls in
 * 128-bit float routines from libgcc: a fifth of the loader.  cudaload
 * prints only text and integers, so the loader's printf family
 * (loader/libc/stdio.c) is this formatter.  It takes the flags - 0 + space #,
 * a width and a precision (numbers or *), the lengths hh h l ll z j t, and
 * the conversions d i u o x X c s p %.  A floating-point conversion prints
 * "?" (its argument is consumed); %n and anything unknown print as written.
 * The compiler checks every format against its arguments (format(printf)).
 */
#ifndef CUDALOAD_FMT_H
#define CUDALOAD_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* Where formatted bytes go: put(ctx, bytes, n) is called for each piece;
 * it returns 0, or -1 to stop with an error. */
typedef int (*fmt_put)(void *ctx, const char *s, size_t n);

/* Format to put.  The number of bytes produced, or -1 when put failed. */
int fmt_vformat(fmt_put put, void *ctx, const char *fmt, va_list ap);

/* vsnprintf: at most cap-1 bytes and a NUL into buf (nothing when cap is
 * 0); returns the length the whole result has. */
int fmt_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);

__attribute__((format(printf, 3, 4)))
int fmt_snprintf(char *buf, size_t cap, const char *fmt, ...);

#endif
