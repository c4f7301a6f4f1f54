/* SPDX-License-Identifier: MIT */
#include "utf8.h"

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

void utf8_text(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i);
		if (k == 1 && p[i] >= 0x20 && p[i] != 0x7f) {
			fputc(p[i], f);
		} else if (k > 1 && !(k == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) {
			fwrite(p + i, 1, k, f);
		} else {
			/* a control character, whole; a stray byte alone */
			size_t m = k ? k : 1;
			for (size_t j = 0; j < m; j++)
				fprintf(f, "\\x%02x", p[i + j]);
			k = m;
		}
		i += k;
	}
}
