/* SPDX-License-Identifier: MIT */
/* Names as read (paths, models, config values) in their printable form
 * (utf8.h), as text for a terminal and quoted for JSON and Prometheus: the
 * output is UTF-8 with no control byte, whatever the input, and the input
 * comes back from it (the mapping is one to one). */
#include <stdbool.h>
#include <stdio.h>

#include "../../common/base/json.h"
#include "../../common/base/utf8.h"
#include "fuzz.h"

/* Valid UTF-8 without C0 controls, DEL and C1. */
static void check(const char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)out;
	for (size_t i = 0; i < len;) {
		size_t k = utf8_seq(p + i, len - i);
		bool c1 = k == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0;
		if (!k || p[i] < 0x20 || p[i] == 0x7f || c1)
			abort();
		i += k;
	}
}

/* The printable form (len bytes) read back must be the n bytes of in. */
static void round_trip(const char *out, size_t len, const uint8_t *in, size_t n)
{
	size_t got = 0;
	for (size_t i = 0; i < len; got++) {
		unsigned c = (unsigned char)out[i++];
		if (c == '\\' && i < len && out[i] == '\\') {
			i++;
		} else if (c == '\\') {
			char hex[3] = { 0 };
			if (len - i < 3 || out[i] != 'x')
				abort();	/* a lone backslash */
			memcpy(hex, out + i + 1, 2);
			if (sscanf(hex, "%2x", &c) != 1)
				abort();
			i += 3;
		}
		if (got >= n || in[got] != c)
			abort();
	}
	if (got != n)
		abort();
}

/* A JSON string's or label value's quoting undone, in place: each
 * backslash and double quote came with a backslash before it. */
static size_t unquote(char *s, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			abort();
		if (s[i] == '\\' && (++i >= len || (s[i] != '\\' && s[i] != '"')))
			abort();
		s[o++] = s[i];
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	char *buf = NULL;
	size_t len = 0;
	if (!s)
		return 0;
	FILE *f = open_memstream(&buf, &len);
	if (f) {
		json_str(f, s);	/* up to the first NUL, as the callers' strings */
		fclose(f);
		check(buf, len);
		if (len < 2 || buf[0] != '"' || buf[len - 1] != '"')
			abort();
		round_trip(buf + 1, unquote(buf + 1, len - 2), data, strlen(s));
		free(buf);
	}
	f = open_memstream(&buf, &len);
	if (f) {
		utf8_text(f, (const char *)data, size);
		fclose(f);
		check(buf, len);
		round_trip(buf, len, data, size);
		free(buf);
	}
	free(s);
	return 0;
}
