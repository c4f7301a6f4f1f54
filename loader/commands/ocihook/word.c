/* SPDX-License-Identifier: MIT */
#include "word.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool word_put(struct word *w, const char *s)
{
	size_t l = strlen(s) + 1;
	if (w->overflow || l > w->cap - w->n) {
		w->overflow = true;
		return false;
	}
	memcpy(w->buf + w->n, s, l);
	w->n += l;
	return true;
}

void word_put_dir(struct word *w, const char *kind, const struct candidate *c)
{
	char id[64];
	word_put(w, kind);
	word_put(w, c->dir);
	snprintf(id, sizeof id, "%llu", (unsigned long long)c->dev);
	word_put(w, id);
	snprintf(id, sizeof id, "%llu", (unsigned long long)c->ino);
	word_put(w, id);
}

void word_end(struct word *w)
{
	if (!w->overflow && word_put(w, "."))
		return;
	w->n = 0;
	w->overflow = false;
	word_put(w, "E");
	word_put(w, "the judgement's word is longer than the hook reads");
	word_put(w, ".");
}

/* The next field, or NULL past the end or where its NUL is missing. */
static const char *field(const char *buf, size_t n, size_t *at)
{
	if (*at >= n)
		return NULL;
	const char *f = buf + *at;
	size_t l = strnlen(f, n - *at);
	if (l == n - *at)
		return NULL;	/* no NUL: cut short */
	*at += l + 1;
	return f;
}

/* A decimal number of a whole field, into out; false otherwise. */
static bool number(const char *f, unsigned long long *out)
{
	char *end;
	if (!f || *f < '0' || *f > '9')
		return false;
	*out = strtoull(f, &end, 10);
	return !*end;
}

const char *word_read(const char *buf, size_t n, struct edits *e)
{
	static const char cut[] = "the judgement's word was cut short";
	size_t at = 0;
	for (const char *kind; (kind = field(buf, n, &at));) {
		const char *a = NULL, *b = NULL;
		unsigned long long dev, ino;
		if (kind[0] && kind[1])
			return "the judgement's word is not understood";
		switch (kind[0]) {
		case '.':
			return at == n ? NULL : "the judgement's word goes on past its end";
		case 'C':
			e->cache_names_hidden = true;
			continue;
		case 'E':
			a = field(buf, n, &at);
			return a ? a : cut;
		case 'R':
			if (!(e->report = field(buf, n, &at)))
				return cut;
			continue;
		case 'K':
			if (!(a = field(buf, n, &at)) || !(b = field(buf, n, &at)))
				return cut;
			fprintf(e->log, "oci-hook:     not hidden: %s: %s\n", a, b);
			continue;
		case 'H':
		case 'F': {
			if (!(a = field(buf, n, &at)) || !number(field(buf, n, &at), &dev) ||
			    !number(field(buf, n, &at), &ino))
				return cut;
			if (a[0] != '/')
				return "the judgement named a directory that is not absolute";
			if (kind[0] == 'F' && e->have_first)
				return "the judgement put two packages first";
			struct edit *x = kind[0] == 'F' ? &e->first
				       : e->n_hide < COMPAT_MAX_CANDIDATES ? &e->hide[e->n_hide++] : NULL;
			if (!x)
				return "too many packages";
			x->dir = (char *)a;
			x->dev = (dev_t)dev;
			x->ino = (ino_t)ino;
			e->have_first |= kind[0] == 'F';
			continue;
		}
		default:
			return "the judgement's word is not understood";
		}
	}
	return "the judgement's word has no end";
}
