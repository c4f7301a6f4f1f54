/* SPDX-License-Identifier: MIT */
#include "notejson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "version.h"

#define MAX_DEPTH 16
#define MAX_STRING 128

struct parser {
	const char *p, *end;
	const char *err;
};

static void ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static bool fail(struct parser *ps, const char *msg)
{
	if (!ps->err)
		ps->err = msg;
	return false;
}

static bool eat(struct parser *ps, char c)
{
	ws(ps);
	if (ps->p < ps->end && *ps->p == c) {
		ps->p++;
		return true;
	}
	return false;
}

/* A string; escapes are kept as written (keys and versions need none).
 * Longer strings are skipped whole and returned truncated. */
static bool string(struct parser *ps, char *out, size_t cap)
{
	size_t n = 0;
	if (!eat(ps, '"'))
		return fail(ps, "expected a string");
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;
		if (c < 0x20)
			return fail(ps, "control character in a string");
		if (c == '\\') {
			if (++ps->p >= ps->end)
				break;
		}
		if (n + 1 < cap)
			out[n++] = *ps->p;
		ps->p++;
	}
	if (ps->p >= ps->end)
		return fail(ps, "unterminated string");
	ps->p++;
	out[n] = '\0';
	return true;
}

/* An integer (fractions and exponents are accepted and truncated). */
static bool number(struct parser *ps, long *out)
{
	ws(ps);
	const char *s = ps->p;
	long v = 0;
	bool neg = false, digits = false;
	if (s < ps->end && *s == '-') {
		neg = true;
		s++;
	}
	while (s < ps->end && *s >= '0' && *s <= '9') {
		if (v > 100000000)
			return fail(ps, "number too large");
		v = v * 10 + (*s++ - '0');
		digits = true;
	}
	if (!digits)
		return fail(ps, "expected a value");
	if (s < ps->end && *s == '.')
		for (s++; s < ps->end && *s >= '0' && *s <= '9'; s++)
			;
	if (s < ps->end && (*s == 'e' || *s == 'E'))
		return fail(ps, "exponent in a number");
	ps->p = s;
	*out = neg ? -v : v;
	return true;
}

static bool literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, word, n) == 0) {
		ps->p += n;
		return true;
	}
	return fail(ps, "unknown literal");
}

static bool value(struct parser *ps, int depth);

static bool skip_container(struct parser *ps, int depth, char close, bool keyed)
{
	if (depth > MAX_DEPTH)
		return fail(ps, "nested too deeply");
	if (eat(ps, close))
		return true;
	do {
		if (keyed) {
			char key[MAX_STRING];
			if (!string(ps, key, sizeof key) || !eat(ps, ':'))
				return fail(ps, "expected \"key\":");
		}
		if (!value(ps, depth + 1))
			return false;
	} while (eat(ps, ','));
	return eat(ps, close) || fail(ps, keyed ? "expected ',' or '}'" : "expected ',' or ']'");
}

static bool value(struct parser *ps, int depth)
{
	char s[MAX_STRING];
	long n;
	ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end");
	switch (*ps->p) {
	case '"': return string(ps, s, sizeof s);
	case '{': ps->p++; return skip_container(ps, depth, '}', true);
	case '[': ps->p++; return skip_container(ps, depth, ']', false);
	case 't': return literal(ps, "true");
	case 'f': return literal(ps, "false");
	case 'n': return literal(ps, "null");
	default: return number(ps, &n);
	}
}

/* "driver": [535, 550, ...]; entries may also be strings such as "570". */
static bool drivers(struct parser *ps, struct compat_note *out)
{
	out->has_drivers = true;
	if (!eat(ps, '['))
		return fail(ps, "\"driver\" is not a list");
	if (eat(ps, ']'))
		return true;
	do {
		long v;
		char s[MAX_STRING];
		ws(ps);
		if (ps->p < ps->end && *ps->p == '"') {
			struct driver_version dv;
			if (!string(ps, s, sizeof s))
				return false;
			if (driver_parse(s, &dv) == 0)
				v = dv.major;
			else {
				char *end;
				v = strtol(s, &end, 10);
				if (end == s || *end)
					return fail(ps, "\"driver\" entry is not a branch number");
			}
		} else if (!number(ps, &v)) {
			return false;
		}
		if (v <= 0 || v > 100000)
			return fail(ps, "\"driver\" entry out of range");
		if (out->n_drivers < NOTE_MAX_DRIVERS)
			out->drivers[out->n_drivers++] = (int)v;
	} while (eat(ps, ','));
	return eat(ps, ']') || fail(ps, "expected ',' or ']' in \"driver\"");
}

/* "device": [1, 2, 7, ...], NVML brand numbers.  A list of anything else
 * (some hand-made notes hold words) is skipped, not an error. */
static bool devices(struct parser *ps, struct compat_note *out)
{
	const char *start = ps->p;
	ws(ps);
	if (ps->p < ps->end && *ps->p == '[') {
		const char *q = ps->p + 1;
		while (q < ps->end && *q != ']' && *q != '"' && *q != '[' && *q != '{')
			q++;
		if (q < ps->end && *q == ']') {	/* numbers only */
			ps->p++;
			out->has_devices = true;
			if (eat(ps, ']'))
				return true;
			do {
				long v;
				if (!number(ps, &v))
					return false;
				if (out->n_devices < NOTE_MAX_DRIVERS)
					out->devices[out->n_devices++] = (int)v;
			} while (eat(ps, ','));
			return eat(ps, ']') || fail(ps, "expected ',' or ']' in \"device\"");
		}
	}
	ps->p = start;
	return value(ps, 1);
}

/* A JSON object, each member's value read by member(ps, key, ctx), then
 * nothing but white space to the end (whole: the top level).  With comma
 * not NULL, one comma after the last member is taken and *comma set.
 * false with ps->err set by the first thing amiss. */
typedef bool member_fn(struct parser *ps, const char *key, void *ctx);

static bool object(struct parser *ps, member_fn *member, void *ctx, bool whole, bool *comma)
{
	if (!eat(ps, '{'))
		return fail(ps, "not a JSON object");
	if (!eat(ps, '}')) {
		do {
			char key[MAX_STRING];
			ws(ps);
			/* not on the first pass: "{}" was eaten above */
			if (comma && ps->p < ps->end && *ps->p == '}') {
				*comma = true;
				break;
			}
			if (!string(ps, key, sizeof key) || !eat(ps, ':'))
				return fail(ps, "expected \"key\":");
			ws(ps);
			if (!member(ps, key, ctx))
				return false;
		} while (eat(ps, ','));
		if (!eat(ps, '}'))
			return fail(ps, "expected ',' or '}'");
	}
	ws(ps);
	return !whole || ps->p == ps->end || fail(ps, "text after the object");
}

static bool note_member(struct parser *ps, const char *key, void *ctx)
{
	struct compat_note *out = ctx;
	if (strcasecmp(key, "CUDA version") == 0) {
		char v[MAX_STRING];
		if (!string(ps, v, sizeof v))
			return false;
		out->cuda = cuda_parse(v, false);
		return out->cuda >= 0 || fail(ps, "\"CUDA version\" is not a version");
	}
	if (strcasecmp(key, "driver") == 0)
		return drivers(ps, out);
	if (strcasecmp(key, "device") == 0)
		return devices(ps, out);
	if (strcasecmp(key, "format") == 0) {
		long f;
		if (!number(ps, &f))
			return false;
		out->format = (int)f;
		return true;
	}
	return value(ps, 1);
}

int notejson_parse(const char *text, size_t len, struct compat_note *out,
		   char *why, size_t whycap)
{
	struct parser ps = { text, text + len, NULL };
	memset(out, 0, sizeof *out);

	/* Descriptors are often NUL-padded. */
	while (ps.end > ps.p && ps.end[-1] == '\0')
		ps.end--;

	/* NVIDIA shipped an Orin 13.2 note ending in ",}": taken, and said */
	if (!object(&ps, note_member, out, true, &out->trailing_comma))
		goto bad;
	return 0;
bad:
	if (why && whycap)
		snprintf(why, whycap, "note JSON: %s at byte %ld", ps.err,
			 (long)(ps.p - text));
	return -1;
}

/* The version string of "cuda": {"version": "12.2.140", ...}, left ""
 * when absent; other members skipped. */
struct version_out {
	char *v;
	size_t cap;
};

static bool cuda_version_member(struct parser *ps, const char *key, void *ctx)
{
	struct version_out *out = ctx;
	return strcmp(key, "version") == 0 ? string(ps, out->v, out->cap) : value(ps, 2);
}

/* A top-level member of version.json: "cuda" (an object, else skipped like
 * any other value) has the version. */
static bool version_file_member(struct parser *ps, const char *key, void *ctx)
{
	if (strcmp(key, "cuda") != 0 || ps->p >= ps->end || *ps->p != '{')
		return value(ps, 1);
	return object(ps, cuda_version_member, ctx, false, NULL);
}

int notejson_version_file(const char *text, size_t len, char *why, size_t whycap)
{
	struct parser ps = { text, text + len, NULL };
	char v[MAX_STRING] = "";
	struct version_out out = { v, sizeof v };
	int cuda = 0;

	if (!object(&ps, version_file_member, &out, true, NULL))
		goto bad;
	if (v[0] && (cuda = cuda_parse(v, true)) <= 0) {
		fail(&ps, "\"cuda\" \"version\" is not a version");
		goto bad;
	}
	return cuda;
bad:
	if (why && whycap)
		snprintf(why, whycap, "version.json: %s at byte %ld", ps.err, (long)(ps.p - text));
	return -1;
}
