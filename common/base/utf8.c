/* SPDX-License-Identifier: MIT */
#include "utf8.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_seq(const unsigned char *s, size_t n)
{
	if (n == 0)
		return 0;
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;	/* the second byte's range */
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* past U+10FFFF */
	} else {
		return 0;	/* a continuation byte, C0, C1, F5-FF */
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* The printable form (utf8.h) of what starts p (n bytes left), quoted for
 * JSON and Prometheus or not, into out (at most 10 bytes: a C1 control,
 * quoted), not NUL-terminated; its length, and in *took how many bytes of
 * p it stands for. */
static size_t printable_unit(const unsigned char *p, size_t n, bool quoted, char *out, size_t *took)
{
	size_t k = utf8_seq(p, n);
	if (k == 1 && p[0] >= 0x20 && p[0] != 0x7f) {
		*took = 1;
		if (p[0] == '\\')
			return (size_t)snprintf(out, 8, "%s", quoted ? "\\\\\\\\" : "\\\\");
		if (p[0] == '"' && quoted)
			return (size_t)snprintf(out, 8, "\\\"");
		out[0] = (char)p[0];
		return 1;
	}
	if (k > 1 && !(k == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
		memcpy(out, p, k);
		*took = k;
		return k;
	}
	/* a control character, each byte; a stray byte alone */
	size_t m = k ? k : 1, len = 0;
	for (size_t j = 0; j < m; j++)
		len += (size_t)snprintf(out + len, 6, quoted ? "\\\\x%02x" : "\\x%02x", p[j]);
	*took = m;
	return len;
}

static void printable(FILE *f, const char *s, size_t n, bool quoted)
{
	const unsigned char *p = (const unsigned char *)s;
	char unit[24];
	for (size_t i = 0, took; i < n; i += took)
		fwrite(unit, 1, printable_unit(p + i, n - i, quoted, unit, &took), f);
}

size_t utf8_text_into(char *out, size_t cap, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char unit[24];
	size_t len = 0;
	if (!cap)
		return 0;
	for (size_t i = 0, took; i < n; i += took) {
		size_t u = printable_unit(p + i, n - i, false, unit, &took);
		if (len + u >= cap)
			break;
		memcpy(out + len, unit, u);
		len += u;
	}
	out[len] = '\0';
	return len;
}

void utf8_text(FILE *f, const char *s, size_t n)
{
	printable(f, s, n, false);
}

void utf8_quoted(FILE *f, const char *s, size_t n)
{
	printable(f, s, n, true);
}

void utf8_printf(FILE *f, const char *fmt, ...)
{
	char small[256], *buf = small;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof small && (buf = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	} else if ((size_t)n >= sizeof small) {
		buf = small;	/* out of memory: what fits */
		n = sizeof small - 1;
	}
	size_t len = (size_t)n;
	bool nl = len && buf[len - 1] == '\n';
	utf8_text(f, buf, nl ? len - 1 : len);
	if (nl)
		fputc('\n', f);
	if (buf != small)
		free(buf);
}
