/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <stdint.h>

#include "../../common/base/fmt.h"

/* fmt_snprintf against this libc's snprintf, format by format. */
#define SAME(...)                                                                   \
	do {                                                                        \
		char want[128], got[128];                                           \
		int wn = snprintf(want, sizeof want, __VA_ARGS__);                  \
		int gn = fmt_snprintf(got, sizeof got, __VA_ARGS__);                \
		cr_assert_str_eq(got, want, "format %s", #__VA_ARGS__);              \
		cr_assert_eq(gn, wn, "length for %s", #__VA_ARGS__);                 \
	} while (0)

Test(fmt_happy, integers_as_libc)
{
	SAME("%d %d %d", 0, -1, 42);
	SAME("%i|%5d|%-5d|%05d|%+d|% d", 7, -3, 3, -42, 5, 5);
	SAME("%u %x %X %o %#x %#o %#X", 4000000000u, 255u, 255u, 8u, 255u, 8u, 0xabu);
	SAME("%02d.%02d", 4, 3);
	SAME("%04x", 0x1au);
	SAME("%ld %lu %lx", -5L, 5UL, 0x170UL);
	SAME("%lld %llu", (long long)INT64_MIN, (unsigned long long)UINT64_MAX);
	SAME("%zu %zd %jd %td", (size_t)12345, (ssize_t)-9, (intmax_t)-77, (ptrdiff_t)3);
	SAME("%hhd %hhu %hd %hu", -1, 255, -2, 65535);
	SAME("%.3d|%.0d|%8.3d|%-8.3x|", 5, 0, -5, 0xau);
	SAME("%*d|%-*d|%*d|", 6, 1, 6, 2, -6, 3);
	SAME("%#x %#o", 0u, 0u);
	SAME("%d%%", 100);
}

Test(fmt_happy, text_as_libc)
{
	SAME("%s", "");
	SAME("[%s] [%10s] [%-10s]", "abc", "abc", "abc");
	SAME("%.2s|%.*s|%.0s|", "abcdef", 3, "abcdef", "x");
	SAME("%c%c%3c%-3c|", 'a', 'b', 'c', 'd');
	SAME("cudaload: %s: %s", "/usr/bin/app", "No such file or directory");
	SAME("%s'%s'", " ", "arg");
	SAME("%p", (void *)0x1234);
}

Test(fmt_happy, truncates_like_snprintf)
{
	char buf[8];
	cr_assert_eq(fmt_snprintf(buf, sizeof buf, "%s-%d", "abcdef", 12345), 12);
	cr_assert_str_eq(buf, "abcdef-");
	cr_assert_eq(fmt_snprintf(buf, 1, "%s", "abc"), 3);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(fmt_snprintf(NULL, 0, "%d", 1234), 4);
}

Test(fmt_sad, no_floating_point)
{
	char buf[64];
	/* the double is consumed: what follows still lines up */
	fmt_snprintf(buf, sizeof buf, "%f|%d|%s", 1.5, 7, "x");
	cr_assert_str_eq(buf, "?|7|x");
	fmt_snprintf(buf, sizeof buf, "%Lg|%d", (long double)2.5, 8);
	cr_assert_str_eq(buf, "?|8");
}

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
Test(fmt_sad, unknown_conversion_printed_as_written)
{
	char buf[64];
	const char *f = "a%yb%d";	/* not a literal: past the compiler's check */
	fmt_snprintf(buf, sizeof buf, f, 3);
	cr_assert_str_eq(buf, "a%yb3");
	fmt_snprintf(buf, sizeof buf, "%s%%", "50");
	cr_assert_str_eq(buf, "50%");
}
