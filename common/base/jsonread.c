/* SPDX-License-Identifier: MIT */
#include "jsonread.h"

#include <string.h>

void jsonread_init(struct jsonread *r, const char *text, size_t len)
{
	r->p = text;
	r->end = text + len;
	r->err = NULL;
	r->depth = 0;
	r->any_number = false;
}

bool jsonread_fail(struct jsonread *r, const char *msg)
{
	if (!r->err)
		r->err = msg;
	return false;
}

void jsonread_ws(struct jsonread *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

bool jsonread_peek(struct jsonread *r, char c)
{
	jsonread_ws(r);
	return r->p < r->end && *r->p == c;
}

bool jsonread_eat(struct jsonread *r, char c)
{
	if (!jsonread_peek(r, c))
		return false;
	r->p++;
	return true;
}

/* Four hex digits at r->p; -1 when they are not. */
static long hex4(struct jsonread *r)
{
	long v = 0;
	if (r->end - r->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = *r->p++;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* One code point as UTF-8 into b (4 bytes); its length. */
static size_t utf8_put(unsigned long cp, char *b)
{
	if (cp < 0x80) {
		b[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	b[0] = (char)(0xf0 | (cp >> 18));
	b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	b[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The escape after a backslash into b (4 bytes): its length, 0 when it is
 * not one. */
static size_t escape(struct jsonread *r, char *b)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	if (r->p >= r->end)
		return 0;
	char c = *r->p++;
	const char *k = c ? strchr(from, c) : NULL;
	if (k) {
		b[0] = to[k - from];
		return 1;
	}
	if (c != 'u')
		return 0;
	long cp = hex4(r);
	if (cp >= 0xd800 && cp < 0xdc00) {	/* a high surrogate: its low one follows */
		long lo = r->end - r->p >= 2 && r->p[0] == '\\' && r->p[1] == 'u' ? (r->p += 2, hex4(r)) : -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return 0;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	} else if (cp >= 0xdc00 && cp < 0xe000) {
		return 0;
	}
	return cp <= 0 ? 0 : utf8_put((unsigned long)cp, b);
}

bool jsonread_string(struct jsonread *r, char *out, size_t cap, bool *cut)
{
	size_t n = 0;
	bool over = false;
	if (!jsonread_eat(r, '"'))
		return jsonread_fail(r, "expected a string");
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = (unsigned char)*r->p++;
		char b[4];
		size_t bl = 1;
		b[0] = (char)c;
		if (c < 0x20)
			return jsonread_fail(r, "control character in a string");
		if (c == '\\' && (bl = escape(r, b)) == 0)
			return jsonread_fail(r, "bad escape in a string (or \\u0000)");
		if (n + bl < cap) {
			memcpy(out + n, b, bl);
			n += bl;
		} else {
			over = true;
		}
	}
	if (r->p >= r->end)
		return jsonread_fail(r, "unterminated string");
	r->p++;
	if (cap)
		out[n] = '\0';
	if (cut)
		*cut = over;
	return true;
}

bool jsonread_number(struct jsonread *r, long *out)
{
	jsonread_ws(r);
	const char *s = r->p;
	long v = 0;
	bool neg = false, digits = false;
	if (s < r->end && *s == '-') {
		neg = true;
		s++;
	}
	while (s < r->end && *s >= '0' && *s <= '9') {
		if (v > 100000000)
			return jsonread_fail(r, "number too large");
		v = v * 10 + (*s++ - '0');
		digits = true;
	}
	if (!digits)
		return jsonread_fail(r, "expected a value");
	if (s < r->end && *s == '.')
		for (s++; s < r->end && *s >= '0' && *s <= '9'; s++)
			;
	if (s < r->end && (*s == 'e' || *s == 'E'))
		return jsonread_fail(r, "exponent in a number");
	r->p = s;
	*out = neg ? -v : v;
	return true;
}

static bool literal(struct jsonread *r, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(r->end - r->p) >= n && memcmp(r->p, word, n) == 0) {
		r->p += n;
		return true;
	}
	return jsonread_fail(r, "unknown literal");
}

/* A number of any size or form, skipped. */
static bool skip_number(struct jsonread *r)
{
	const char *s = r->p;
	if (s < r->end && *s == '-')
		s++;
	const char *digits = s;
	while (s < r->end && *s >= '0' && *s <= '9')
		s++;
	if (s == digits)
		return jsonread_fail(r, "expected a value");
	if (s < r->end && *s == '.')
		for (s++; s < r->end && *s >= '0' && *s <= '9'; s++)
			;
	if (s < r->end && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < r->end && (*s == '+' || *s == '-'))
			s++;
		for (digits = s; s < r->end && *s >= '0' && *s <= '9'; s++)
			;
		if (s == digits)
			return jsonread_fail(r, "bad exponent in a number");
	}
	r->p = s;
	return true;
}

static bool skip_member(struct jsonread *r, const char *key, void *ctx)
{
	(void)key;
	(void)ctx;
	return jsonread_skip(r);
}

static bool skip_element(struct jsonread *r, size_t index, void *ctx)
{
	(void)index;
	(void)ctx;
	return jsonread_skip(r);
}

bool jsonread_skip(struct jsonread *r)
{
	char s[JSONREAD_KEY_MAX];
	jsonread_ws(r);
	if (r->p >= r->end)
		return jsonread_fail(r, "unexpected end");
	switch (*r->p) {
	case '"': return jsonread_string(r, s, sizeof s, NULL);
	case '{': return jsonread_object(r, skip_member, NULL, false, NULL);
	case '[': return jsonread_array(r, skip_element, NULL);
	case 't': return literal(r, "true");
	case 'f': return literal(r, "false");
	case 'n': return literal(r, "null");
	default: {
		long n;
		return r->any_number ? skip_number(r) : jsonread_number(r, &n);
	}
	}
}

bool jsonread_object(struct jsonread *r, jsonread_member_fn *member, void *ctx, bool whole,
		     bool *comma)
{
	if (!jsonread_eat(r, '{'))
		return jsonread_fail(r, "not a JSON object");
	if (++r->depth > JSONREAD_MAX_DEPTH)
		return jsonread_fail(r, "nested too deeply");
	if (!jsonread_eat(r, '}')) {
		do {
			char key[JSONREAD_KEY_MAX];
			/* not on the first pass: "{}" was eaten above */
			if (comma && jsonread_peek(r, '}')) {
				*comma = true;
				break;
			}
			if (!jsonread_string(r, key, sizeof key, NULL) || !jsonread_eat(r, ':'))
				return jsonread_fail(r, "expected \"key\":");
			jsonread_ws(r);
			if (!member(r, key, ctx))
				return jsonread_fail(r, "bad member");
		} while (jsonread_eat(r, ','));
		if (!jsonread_eat(r, '}'))
			return jsonread_fail(r, "expected ',' or '}'");
	}
	r->depth--;
	jsonread_ws(r);
	return !whole || r->p == r->end || jsonread_fail(r, "text after the object");
}

bool jsonread_array(struct jsonread *r, jsonread_element_fn *element, void *ctx)
{
	if (!jsonread_eat(r, '['))
		return jsonread_fail(r, "not a JSON array");
	if (++r->depth > JSONREAD_MAX_DEPTH)
		return jsonread_fail(r, "nested too deeply");
	if (!jsonread_eat(r, ']')) {
		size_t i = 0;
		do {
			jsonread_ws(r);
			if (!element(r, i++, ctx))
				return jsonread_fail(r, "bad element");
		} while (jsonread_eat(r, ','));
		if (!jsonread_eat(r, ']'))
			return jsonread_fail(r, "expected ',' or ']'");
	}
	r->depth--;
	return true;
}
