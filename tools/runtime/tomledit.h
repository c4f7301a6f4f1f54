/* SPDX-License-Identifier: MIT */
/*
 * tomledit: a TOML file as the lines an editor keeps, for configure and
 * unconfigure (engines.h), which change an engine's configuration without
 * rewriting the admin's: every byte they do not mean to change is copied.
 *
 * toml_parse splits the text into items: a blank or comment line, a table
 * header ([a.b] or [[a.b]]), or a key = value entry with every line of its
 * value (a multi-line array or string).  Each table and entry carries its
 * full key path in one canonical spelling (a segment bare where TOML lets
 * it be, else "quoted"; 'literal' and "basic" keys alike), so that
 * plugins.'io.containerd.cri.v1.runtime' and
 * plugins."io.containerd.cri.v1.runtime" are found by the same name.
 * Values are not interpreted beyond their extent; toml_string and
 * toml_integer read the simple ones, toml_each_string an array of strings.
 * Inline tables are taken as opaque values.
 *
 * Bounded: at most TOML_MAX bytes, TOML_LINE_MAX a line, TOML_ITEMS items;
 * anything malformed is refused with its line number in why.
 */
#ifndef CUDALOAD_RUNTIME_TOMLEDIT_H
#define CUDALOAD_RUNTIME_TOMLEDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define TOML_MAX (1024 * 1024)
#define TOML_LINE_MAX 8192
#define TOML_ITEMS 65536

enum toml_kind { TOML_BLANK, TOML_TABLE, TOML_ARRAY_TABLE, TOML_ENTRY };

struct toml_item {
	enum toml_kind kind;
	size_t start, end;		/* its lines: [start, end), end after the last newline */
	size_t value_start, value_end;	/* an entry's value, comment and spaces aside */
	size_t key_start;		/* an entry's key, a table's '[' */
	char *path;			/* the full canonical path (a table's own; an entry's table's
					 * plus its key); NULL for a blank line */
	char *key;			/* an entry's key as written under its table, canonical */
};

struct toml_doc {
	const char *text;
	size_t len;
	struct toml_item *items;
	size_t n;
};

/* text (len bytes) into d.  0, or -1 with why (the line and what is amiss);
 * d is then empty. */
int toml_parse(struct toml_doc *d, const char *text, size_t len, char *why, size_t cap);
void toml_free(struct toml_doc *d);

/* The entry or table at path (canonical), the last one where several; NULL. */
const struct toml_item *toml_find(const struct toml_doc *d, const char *path, enum toml_kind kind);

/* Does path equal prefix, or lie under it (prefix ".")? */
bool toml_under(const char *path, const char *prefix);

/* An entry's value as a string (basic or literal, one line) into out.  false
 * where it is not one or does not fit. */
bool toml_string(const struct toml_doc *d, const struct toml_item *it, char *out, size_t cap);

/* An entry's value as an integer; false where it is not one. */
bool toml_integer(const struct toml_doc *d, const struct toml_item *it, long *out);

/* Each string of an entry's array value: fn(s, start, end, ctx) with the
 * element's extent in the text (its quotes included); false from fn stops,
 * and is returned.  false where the value is not an array of strings (each
 * at most 4095 bytes). */
typedef bool toml_string_fn(const char *s, size_t start, size_t end, void *ctx);
bool toml_each_string(const struct toml_doc *d, const struct toml_item *it, toml_string_fn *fn, void *ctx);

/* s as a TOML basic string ("...", escaped) on f. */
void toml_put_string(FILE *f, const char *s);

/* A segment as it goes into a canonical path ("name" or "\"io.x\""), into
 * out; false where it does not fit. */
bool toml_segment(const char *s, char *out, size_t cap);

#endif
