/* SPDX-License-Identifier: MIT */
/*
 * jsonread: reading JSON text, strictly and within bounds.
 *
 * One reader for every JSON cudaload reads: NVIDIA's compat notes and a
 * toolkit's version.json (notejson.h), an OCI runtime's state and a
 * bundle's config.json (loader/commands/ocihook.h).  The caller walks the text: an
 * object's members by key, an array's elements by index, through callbacks
 * that read each value or skip it.  Nothing is allocated; depth is bounded
 * (JSONREAD_MAX_DEPTH); every read stays inside [p, end).  The first thing
 * amiss stops the walk with its reason in err, at p.
 *
 * Strings are unescaped (\" \\ \/ \b \f \n \r \t, \uXXXX as UTF-8, with
 * surrogate pairs); \u0000 is refused, so a string read is a C string
 * whole.  A string longer than the caller's buffer is read to its end and
 * returned cut, with *cut set: whether that is an error is the caller's
 * word.
 */
#ifndef CUDALOAD_JSONREAD_H
#define CUDALOAD_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>

#define JSONREAD_MAX_DEPTH 16
#define JSONREAD_KEY_MAX 128	/* longer keys are read cut: no key cudaload knows */

struct jsonread {
	const char *p, *end;
	const char *err;	/* the first thing amiss, or NULL */
	int depth;		/* objects and arrays open around p */
	bool any_number;	/* a number skipped may be of any size or form (a
				 * runtime's config.json holds 2^63-1); else
				 * skipped as jsonread_number reads one */
};

void jsonread_init(struct jsonread *r, const char *text, size_t len);

/* Record msg as the reason (the first one stays); false. */
bool jsonread_fail(struct jsonread *r, const char *msg);

/* Skip white space. */
void jsonread_ws(struct jsonread *r);

/* Skip white space; is the next character c?  jsonread_eat also takes it. */
bool jsonread_peek(struct jsonread *r, char c);
bool jsonread_eat(struct jsonread *r, char c);

/* A string into out (cap bytes, NUL-terminated); *cut (may be NULL) set
 * when it did not fit. */
bool jsonread_string(struct jsonread *r, char *out, size_t cap, bool *cut);

/* An integer; fractions are taken and truncated, exponents and magnitudes
 * past 10^9 refused. */
bool jsonread_number(struct jsonread *r, long *out);

/* Any value, skipped (its numbers as any_number says). */
bool jsonread_skip(struct jsonread *r);

/* An object: member(r, key, ctx) reads or skips each member's value.
 * whole: the text must end after it (white space aside).  comma not NULL:
 * one comma after the last member is taken, and *comma set. */
typedef bool jsonread_member_fn(struct jsonread *r, const char *key, void *ctx);
bool jsonread_object(struct jsonread *r, jsonread_member_fn *member, void *ctx, bool whole,
		     bool *comma);

/* An array: element(r, index, ctx) reads or skips each element. */
typedef bool jsonread_element_fn(struct jsonread *r, size_t index, void *ctx);
bool jsonread_array(struct jsonread *r, jsonread_element_fn *element, void *ctx);

#endif
