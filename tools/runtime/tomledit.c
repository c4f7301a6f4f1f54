/* SPDX-License-Identifier: MIT */
#include "tomledit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/base/why.h"

#define SEGMENT_MAX 1024
#define PATH_MAX_TOML 4096

struct scan {
	const char *t;
	size_t len, p;
	unsigned line;
	char *why;
	size_t cap;
};

static int fail(struct scan *s, const char *what)
{
	return why_fail(s->why, s->cap, "line %u: %s", s->line, what);
}

static bool bare_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static bool at(const struct scan *s, char c)
{
	return s->p < s->len && s->t[s->p] == c;
}

static bool at3(const struct scan *s, char c)
{
	return s->p + 2 < s->len && s->t[s->p] == c && s->t[s->p + 1] == c && s->t[s->p + 2] == c;
}

static void spaces(struct scan *s)
{
	while (at(s, ' ') || at(s, '\t'))
		s->p++;
}

bool toml_segment(const char *seg, char *out, size_t cap)
{
	size_t n = 0;
	bool bare = *seg != '\0';
	for (const char *c = seg; *c; c++)
		bare = bare && bare_char(*c);
	if (bare) {
		n = strlen(seg);
		if (n >= cap)
			return false;
		memcpy(out, seg, n + 1);
		return true;
	}
	if (cap < 3)
		return false;
	out[n++] = '"';
	for (const char *c = seg; *c; c++) {
		if (n + 4 >= cap)
			return false;
		if (*c == '"' || *c == '\\')
			out[n++] = '\\';
		out[n++] = *c;
	}
	out[n++] = '"';
	out[n] = '\0';
	return true;
}

/* One key segment (bare, "basic" or 'literal') into seg, decoded. */
static int key_segment(struct scan *s, char *seg)
{
	size_t n = 0;
	if (at(s, '"') || at(s, '\'')) {
		char q = s->t[s->p++];
		for (;;) {
			if (s->p >= s->len || s->t[s->p] == '\n')
				return fail(s, "a quoted key without its closing quote");
			char c = s->t[s->p++];
			if (c == q)
				break;
			if (q == '"' && c == '\\' && s->p < s->len && s->t[s->p] != '\n')
				c = s->t[s->p++];	/* \" and \\ as themselves; no key we look for has others */
			if (n + 1 >= SEGMENT_MAX)
				return fail(s, "a key longer than its bound");
			seg[n++] = c;
		}
	} else {
		while (s->p < s->len && bare_char(s->t[s->p])) {
			if (n + 1 >= SEGMENT_MAX)
				return fail(s, "a key longer than its bound");
			seg[n++] = s->t[s->p++];
		}
		if (n == 0)
			return fail(s, "expected a key");
	}
	seg[n] = '\0';
	return 0;
}

/* A dotted key into out (canonical), appended after what is there. */
static int key_path(struct scan *s, char *out, size_t cap)
{
	static char seg[SEGMENT_MAX], canon[SEGMENT_MAX * 2 + 3];
	for (;;) {
		spaces(s);
		if (key_segment(s, seg) < 0)
			return -1;
		if (!toml_segment(seg, canon, sizeof canon))
			return fail(s, "a key longer than its bound");
		size_t have = strlen(out), add = strlen(canon);
		if (have + add + 2 > cap)
			return fail(s, "a key path longer than its bound");
		if (have)
			out[have++] = '.';
		memcpy(out + have, canon, add + 1);
		spaces(s);
		if (!at(s, '.'))
			return 0;
		s->p++;
	}
}

/* Past a string that starts at p (any of the four kinds). */
static int skip_string(struct scan *s)
{
	char q = s->t[s->p];
	bool multi = at3(s, q);
	s->p += multi ? 3 : 1;
	for (;;) {
		if (s->p >= s->len)
			return fail(s, "a string without its closing quote");
		char c = s->t[s->p];
		if (c == '\n') {
			if (!multi)
				return fail(s, "a string without its closing quote");
			s->line++;
		}
		if (q == '"' && c == '\\') {
			s->p += 2;
			continue;
		}
		if (multi ? at3(s, q) : c == q) {
			s->p += multi ? 3 : 1;
			/* up to two more quotes belong to the string's content */
			for (int extra = 0; multi && extra < 2 && at(s, q); extra++)
				s->p++;
			return 0;
		}
		s->p++;
	}
}

/* Past an array or inline table, its nested ones, strings and comments. */
static int skip_nested(struct scan *s)
{
	int depth = 0;
	do {
		if (s->p >= s->len)
			return fail(s, "an array or inline table without its closing bracket");
		char c = s->t[s->p];
		if (c == '"' || c == '\'') {
			if (skip_string(s) < 0)
				return -1;
			continue;
		}
		if (c == '#') {
			while (s->p < s->len && s->t[s->p] != '\n')
				s->p++;
			continue;
		}
		if (c == '\n')
			s->line++;
		if (c == '[' || c == '{') {
			if (++depth > 64)
				return fail(s, "arrays nested too deeply");
		} else if (c == ']' || c == '}') {
			depth--;
		}
		s->p++;
	} while (depth > 0);
	return 0;
}

static int skip_value(struct scan *s)
{
	if (s->p >= s->len || s->t[s->p] == '\n' || s->t[s->p] == '#')
		return fail(s, "a key without a value");
	char c = s->t[s->p];
	if (c == '"' || c == '\'')
		return skip_string(s);
	if (c == '[' || c == '{')
		return skip_nested(s);
	size_t from = s->p;
	while (s->p < s->len && !strchr(" \t\r\n#,]}", s->t[s->p]))
		s->p++;
	return s->p > from ? 0 : fail(s, "expected a value");
}

/* The rest of a line: spaces, an optional comment, the newline (or the end). */
static int line_end(struct scan *s)
{
	spaces(s);
	if (at(s, '#'))
		while (s->p < s->len && s->t[s->p] != '\n')
			s->p++;
	if (at(s, '\r'))
		s->p++;
	if (s->p < s->len && s->t[s->p] != '\n')
		return fail(s, "unexpected text after the value");
	if (s->p < s->len)
		s->p++;
	s->line++;
	return 0;
}

static int check_lines(struct scan *s)
{
	size_t from = 0;
	unsigned line = 1;
	for (size_t i = 0; i <= s->len; i++) {
		if (i < s->len && s->t[i] == '\0')
			return why_fail(s->why, s->cap, "line %u: a NUL byte", line);
		if (i == s->len || s->t[i] == '\n') {
			if (i - from > TOML_LINE_MAX)
				return why_fail(s->why, s->cap, "line %u: longer than %d bytes", line, TOML_LINE_MAX);
			from = i + 1;
			line++;
		}
	}
	return 0;
}

static char *join(const char *table, const char *key)
{
	size_t a = strlen(table), b = strlen(key);
	char *p = malloc(a + b + 2);
	if (!p)
		return NULL;
	memcpy(p, table, a);
	if (a)
		p[a++] = '.';
	memcpy(p + a, key, b + 1);
	return p;
}

void toml_free(struct toml_doc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].path);
		free(d->items[i].key);
	}
	free(d->items);
	d->items = NULL;
	d->n = 0;
}

static struct toml_item *new_item(struct toml_doc *d, size_t *cap_items, struct scan *s)
{
	if (d->n == *cap_items) {
		if (*cap_items >= TOML_ITEMS) {
			fail(s, "more lines than its bound");
			return NULL;
		}
		size_t n = *cap_items ? *cap_items * 2 : 64;
		struct toml_item *grown = realloc(d->items, n * sizeof *grown);
		if (!grown) {
			fail(s, "out of memory");
			return NULL;
		}
		d->items = grown;
		*cap_items = n;
	}
	struct toml_item *it = &d->items[d->n++];
	memset(it, 0, sizeof *it);
	it->start = s->p;
	return it;
}

static int parse_items(struct toml_doc *d, struct scan *s)
{
	static char path[PATH_MAX_TOML], table[PATH_MAX_TOML];
	size_t cap_items = 0;
	table[0] = '\0';
	while (s->p < s->len) {
		struct toml_item *it = new_item(d, &cap_items, s);
		if (!it)
			return -1;
		spaces(s);
		if (at(s, '\n') || at(s, '#') || at(s, '\r') || s->p >= s->len) {
			it->kind = TOML_BLANK;
			if (line_end(s) < 0)
				return -1;
		} else if (at(s, '[')) {
			it->key_start = s->p++;
			it->kind = TOML_TABLE;
			if (at(s, '[')) {
				s->p++;
				it->kind = TOML_ARRAY_TABLE;
			}
			path[0] = '\0';
			if (key_path(s, path, sizeof path) < 0)
				return -1;
			for (int close = it->kind == TOML_ARRAY_TABLE ? 2 : 1; close > 0; close--, s->p++)
				if (!at(s, ']'))
					return fail(s, "a table header without its closing bracket");
			if (line_end(s) < 0)
				return -1;
			memcpy(table, path, strlen(path) + 1);
			if (!(it->path = strdup(path)))
				return fail(s, "out of memory");
		} else {
			it->kind = TOML_ENTRY;
			it->key_start = s->p;
			path[0] = '\0';
			if (key_path(s, path, sizeof path) < 0)
				return -1;
			if (!at(s, '='))
				return fail(s, "expected '=' after the key");
			s->p++;
			spaces(s);
			it->value_start = s->p;
			if (skip_value(s) < 0)
				return -1;
			it->value_end = s->p;
			if (line_end(s) < 0)
				return -1;
			if (!(it->key = strdup(path)) || !(it->path = join(table, path)))
				return fail(s, "out of memory");
		}
		it->end = s->p;
	}
	return 0;
}

int toml_parse(struct toml_doc *d, const char *text, size_t len, char *why, size_t cap)
{
	struct scan s = { .t = text, .len = len, .line = 1, .why = why, .cap = cap };
	memset(d, 0, sizeof *d);
	d->text = text;
	d->len = len;
	if (len > TOML_MAX)
		return why_fail(why, cap, "larger than %d KiB", TOML_MAX >> 10);
	if (check_lines(&s) < 0 || parse_items(d, &s) < 0) {
		toml_free(d);
		return -1;
	}
	return 0;
}

const struct toml_item *toml_find(const struct toml_doc *d, const char *path, enum toml_kind kind)
{
	for (size_t i = d->n; i-- > 0;)
		if (d->items[i].kind == kind && strcmp(d->items[i].path, path) == 0)
			return &d->items[i];
	return NULL;
}

bool toml_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '.');
}

/* The string at text[*p] (not a multi-line one) into out; *p past it. */
static bool read_string(const char *t, size_t end, size_t *p, char *out, size_t cap)
{
	size_t i = *p, n = 0;
	if (i >= end || (t[i] != '"' && t[i] != '\''))
		return false;
	char q = t[i++];
	if (i + 1 < end && t[i] == q && t[i + 1] == q)
		return false;	/* multi-line: none of the values read here is one */
	for (;; i++) {
		if (i >= end || t[i] == '\n')
			return false;
		char c = t[i];
		if (c == q)
			break;
		if (q == '"' && c == '\\') {
			if (++i >= end)
				return false;
			switch (t[i]) {
			case '"': case '\\': c = t[i]; break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			default: return false;	/* \u escapes: in no path an engine is given */
			}
		}
		if (c == '\0' || n + 1 >= cap)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	*p = i + 1;
	return true;
}

bool toml_string(const struct toml_doc *d, const struct toml_item *it, char *out, size_t cap)
{
	size_t p = it->value_start;
	return it->kind == TOML_ENTRY && read_string(d->text, it->value_end, &p, out, cap) && p == it->value_end;
}

bool toml_integer(const struct toml_doc *d, const struct toml_item *it, long *out)
{
	const char *t = d->text;
	size_t i = it->value_start;
	long v = 0;
	int digits = 0;
	if (it->kind != TOML_ENTRY)
		return false;
	if (i < it->value_end && t[i] == '+')
		i++;
	for (; i < it->value_end; i++) {
		if (t[i] == '_')
			continue;
		if (t[i] < '0' || t[i] > '9' || ++digits > 9)
			return false;
		v = v * 10 + (t[i] - '0');
	}
	*out = v;
	return digits > 0;
}

/* Past spaces, newlines and comments inside an array. */
static void array_space(const char *t, size_t end, size_t *p)
{
	while (*p < end) {
		if (t[*p] == '#')
			while (*p < end && t[*p] != '\n')
				(*p)++;
		else if (strchr(" \t\r\n", t[*p]))
			(*p)++;
		else
			return;
	}
}

bool toml_each_string(const struct toml_doc *d, const struct toml_item *it, toml_string_fn *fn, void *ctx)
{
	static char s[4096];
	const char *t = d->text;
	size_t p = it->value_start, end = it->value_end;
	if (it->kind != TOML_ENTRY || p >= end || t[p++] != '[')
		return false;
	for (;;) {
		array_space(t, end, &p);
		if (p < end && t[p] == ']')
			return p + 1 == end;
		size_t from = p;
		if (!read_string(t, end, &p, s, sizeof s))
			return false;
		if (!fn(s, from, p, ctx))
			return false;
		array_space(t, end, &p);
		if (p < end && t[p] == ',')
			p++;
		else if (p >= end || t[p] != ']')
			return false;
	}
}

void toml_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}
