/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/json.h"
#include "../../common/utf8.h"

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
	static const char in[] = "a\x1b[2J\x7f\t\xc2\x85\xc2\xa0\xff\xe2\x82\xac\\\n";
	char *t = written(utf8_text, in, sizeof in - 1);
	cr_assert_str_eq(t, "a\\x1b[2J\\x7f\\x09\\xc2\\x85\xc2\xa0\\xff\xe2\x82\xac\\\\x0a");
	free(t);
	char *j = written(json_n, in, 0);
	cr_assert_str_eq(j, "\"a\\u001b[2J\x7f\\u0009\xc2\x85\xc2\xa0\\ufffd\xe2\x82\xac\\\\\\n\"");
	free(j);
	t = written(utf8_text, "x\0y", 3);	/* n bytes, a NUL among them */
	cr_assert_str_eq(t, "x\\x00y");
	free(t);
}
