/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/base/json.h"
#include "../../common/base/utf8.h"

static size_t seq(const char *s)
{
	return utf8_seq((const unsigned char *)s, strlen(s));
}

Test(utf8_happy, valid_sequences)
{
	cr_assert_eq(seq("a"), 1);
	cr_assert_eq(seq("\xc3\xa9"), 2);		/* é */
	cr_assert_eq(seq("\xe2\x82\xac"), 3);		/* € */
	cr_assert_eq(seq("\xed\x9f\xbf"), 3);		/* U+D7FF, below the surrogates */
	cr_assert_eq(seq("\xf0\x9f\x98\x80"), 4);	/* U+1F600 */
	cr_assert_eq(seq("\xf4\x8f\xbf\xbf"), 4);	/* U+10FFFF */
}

Test(utf8_sad, invalid_sequences)
{
	static const char *const bad[] = {
		"\x80", "\xbf", "\xc0\x80", "\xc1\xbf",	/* stray continuation, overlong */
		"\xe0\x80\x80", "\xe0\x9f\xbf",		/* overlong */
		"\xed\xa0\x80", "\xed\xbf\xbf",		/* surrogates */
		"\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",	/* overlong */
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xfe",
		"\xc3", "\xe2\x82", "\xf0\x9f\x98",	/* cut short */
		"\xe2\x28\xa1", "\xc3\x28",		/* not a continuation */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(seq(bad[i]), 0, "case %zu", i);
	cr_assert_eq(utf8_seq((const unsigned char *)"\xc3\xa9", 1), 0, "n bounds the read");
}

static char *written(void (*fn)(FILE *, const char *, size_t), const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fn(f, s, n);
	fclose(f);
	return buf;
}

static void json_n(FILE *f, const char *s, size_t n)
{
	(void)n;
	json_str(f, s);
}

Test(utf8_sad, text_and_json_escapes)
{
	static const char in[] = "a\x1b[2J\x7f\t\xc2\x85\xc2\xa0\xff\xe2\x82\xac\\\n\"";
	char *t = written(utf8_text, in, sizeof in - 1);
	cr_assert_str_eq(t, "a\\x1b[2J\\x7f\\x09\\xc2\\x85\xc2\xa0\\xff\xe2\x82\xac\\\\\\x0a\"");
	free(t);
	/* JSON and Prometheus: the same form, backslash and quote escaped */
	char *j = written(json_n, in, 0);
	cr_assert_str_eq(j, "\"a\\\\x1b[2J\\\\x7f\\\\x09\\\\xc2\\\\x85\xc2\xa0\\\\xff\xe2\x82\xac\\\\\\\\\\\\x0a\\\"\"");
	char *q = written(utf8_quoted, in, sizeof in - 1);
	cr_assert(strlen(j) == strlen(q) + 2 && strncmp(j + 1, q, strlen(q)) == 0, "%s", q);
	free(j);
	free(q);
	t = written(utf8_text, "x\0y", 3);	/* n bytes, a NUL among them */
	cr_assert_str_eq(t, "x\\x00y");
	free(t);
}

/* Into a buffer (the trace): what utf8_text writes, cut where it no longer
 * fits, never inside one byte's \xNN. */
Test(utf8_sad, text_into_a_buffer)
{
	static const char in[] = "a\x1b[2J\xff\xe2\x82\xac\\\n";
	char *t = written(utf8_text, in, sizeof in - 1);
	char out[64];
	size_t n = utf8_text_into(out, sizeof out, in, sizeof in - 1);
	cr_assert_str_eq(out, t);
	cr_assert_eq(n, strlen(t));
	free(t);
	n = utf8_text_into(out, 5, in, sizeof in - 1);	/* "a" and \x1b need 6, with the NUL */
	cr_assert_str_eq(out, "a");
	cr_assert_eq(n, 1);
	n = utf8_text_into(out, 6, in, sizeof in - 1);
	cr_assert_str_eq(out, "a\\x1b");
	cr_assert_eq(n, 5);
	cr_assert_eq(utf8_text_into(out, 0, in, 3), 0, "no room, nothing written");
}

/* The printable form read back (utf8.h): \\ a backslash, \xNN the byte. */
static size_t unprint(const char *s, unsigned char *out)
{
	size_t n = 0;
	for (size_t i = 0; s[i];) {
		if (s[i] == '\\' && s[i + 1] == '\\') {
			out[n++] = '\\';
			i += 2;
		} else if (s[i] == '\\' && s[i + 1] == 'x') {
			unsigned v;
			cr_assert_eq(sscanf(s + i + 2, "%2x", &v), 1, "%s", s);
			out[n++] = (unsigned char)v;
			i += 4;
		} else {
			cr_assert_neq(s[i], '\\', "a lone backslash in %s", s);
			out[n++] = (unsigned char)s[i++];
		}
	}
	return n;
}

/* A JSON string or label value as written: its quoting undone. */
static char *unquote(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	for (; *s; s++) {
		if (*s == '\\') {
			s++;
			cr_assert(*s == '\\' || *s == '"', "escape \\%c", *s);
		}
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

/* The mapping is one to one, so a name cannot pass for another
 * (a program named with the characters \x1b for one with an escape byte):
 * every string of bytes that matter comes back from its printable form, in
 * text and quoted. */
Test(utf8_sad, printable_form_is_one_to_one)
{
	static const unsigned char alphabet[] = { '\\', 'x', '1', 'b', 'a', '"', '\n', '\r', 0x1b, 0,
						  0x7f, 0xff, 0xfe, 0xc2, 0x85, 0xa0, 0xe2, 0x82, 0xac };
	unsigned seed = 36;
	unsigned char in[12], back[64];
	for (int round = 0; round < 20000; round++) {
		size_t n = (size_t)(rand_r(&seed) % (int)sizeof in);
		for (size_t i = 0; i < n; i++)
			in[i] = alphabet[rand_r(&seed) % (int)sizeof alphabet];
		char *t = written(utf8_text, (const char *)in, n);
		cr_assert_eq(unprint(t, back), n, "%s", t);
		cr_assert_eq(memcmp(back, in, n), 0, "%s", t);
		char *q = written(utf8_quoted, (const char *)in, n);
		char *u = unquote(q);
		cr_assert_str_eq(u, t);
		for (const unsigned char *p = (const unsigned char *)t; *p;) {
			size_t k = utf8_seq(p, strlen((const char *)p));
			cr_assert(k > 0 && *p >= 0x20 && *p != 0x7f && !(k == 2 && *p == 0xc2 && p[1] < 0xa0),
				  "not printable: %s", t);
			p += k;
		}
		free(t);
		free(q);
		free(u);
	}
}
