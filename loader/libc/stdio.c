/* SPDX-License-Identifier: MIT */
/*
 * The loader's printf family: common/base/fmt.c's formatter under the C names,
 * linked before musl's libc.a so that musl's printf (and the long double
 * code it carries) is never pulled in.  cudaload prints no floating point
 * (fmt.h says what is understood); the compiler checks every format.
 * Only the loader links this file: the unit tests use their libc's printf.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../common/base/fmt.h"

int vsnprintf(char *restrict buf, size_t cap, const char *restrict fmt, va_list ap)
{
	return fmt_vsnprintf(buf, cap, fmt, ap);
}

int snprintf(char *restrict buf, size_t cap, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}

/* Pieces gather in a small buffer, so that a line on unbuffered stderr
 * goes out in one write, as musl's printf does it. */
struct fbuf {
	FILE *f;
	size_t n;
	char b[256];
};

static int flush(struct fbuf *fb)
{
	size_t n = fb->n;
	fb->n = 0;
	return n && fwrite(fb->b, 1, n, fb->f) != n ? -1 : 0;
}

static int put_file(void *ctx, const char *s, size_t n)
{
	struct fbuf *fb = ctx;
	while (n) {
		if (fb->n == sizeof fb->b && flush(fb) < 0)
			return -1;
		size_t k = sizeof fb->b - fb->n < n ? sizeof fb->b - fb->n : n;
		memcpy(fb->b + fb->n, s, k);
		fb->n += k;
		s += k;
		n -= k;
	}
	return 0;
}

int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
	struct fbuf fb = { .f = f };
	int n = fmt_vformat(put_file, &fb, fmt, ap);
	return flush(&fb) < 0 ? -1 : n;
}

int fprintf(FILE *restrict f, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int vprintf(const char *restrict fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

int printf(const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}
