/* SPDX-License-Identifier: MIT */
#include "searchlist.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/diag.h"

bool searchlist_dir_expressible(const char *dir)
{
	return !strpbrk(dir, ":;");
}

struct list {
	char *s;
	size_t len, cap;
};

/* One entry, made of two parts (a root and a path): built in place, so a
 * rooted path needs no buffer of its own. */
static bool append2(struct list *l, const char *a, size_t an, const char *b, size_t bn)
{
	size_t n = an + bn;
	if (l->len + n + 2 > l->cap) {
		size_t cap = (l->len + n + 2) * 2;
		char *s = realloc(l->s, cap);
		if (!s)
			return false;
		l->s = s;
		l->cap = cap;
	}
	if (l->len)
		l->s[l->len++] = ':';
	if (an)
		memcpy(l->s + l->len, a, an);
	if (bn)
		memcpy(l->s + l->len + an, b, bn);
	l->len += n;
	l->s[l->len] = '\0';
	return true;
}

static bool append(struct list *l, const char *part, size_t n)
{
	return append2(l, part, n, "", 0);
}

static bool listed(const struct list *l, const char *dir, size_t n)
{
	for (const char *p = l->s; p && *p;) {
		size_t m = strcspn(p, ":");
		if (m == n && memcmp(p, dir, n) == 0)
			return true;
		p += m;
		if (*p)
			p++;
	}
	return false;
}

static bool append_dir(struct list *l, const char *root, const char *dir)
{
	size_t rl = root_len(root), dl = strlen(dir);
	if (rl + dl + 1 > CL_PATH_MAX) {
		diag("%s: path too long, left out of the search list", dir);
		return true;
	}
	size_t mark = l->len;
	if (!append2(l, root, rl, dir, dl))
		return false;
	const char *full = l->s + l->len - rl - dl;
	if (!searchlist_dir_expressible(full)) {
		diag("%s: contains ':' or ';', cannot be in a search list; left out", full);
		l->len = mark;
		l->s[mark] = '\0';
		if (!mark) {
			/* nothing kept: no list, as if never begun */
			free(l->s);
			*l = (struct list){ 0 };
		}
	}
	return true;
}

char *searchlist_own(const char *root, const struct decision *d, const struct candidates *c,
	       const struct host *h, const char *system_pin)
{
	struct list l = { 0 };
	bool ok;
	if (d->use_compat && d->chosen >= 0 && (size_t)d->chosen < c->n) {
		ok = append_dir(&l, root, c->v[d->chosen].dir);
		for (int i = 0; ok && i < h->n_driver_dirs; i++)
			ok = append_dir(&l, root, h->driver_dirs[i]);
	} else if (!d->use_compat && system_pin) {
		ok = append_dir(&l, "", system_pin);	/* already as ld.so sees it */
	} else {
		return NULL;
	}
	if (!ok || !l.s) {
		free(l.s);
		return NULL;
	}
	return l.s;
}

char *searchlist_extend(const char *own, const char *user_llp, bool secure)
{
	struct list l = { 0 };
	bool ok = append(&l, own, strlen(own));
	/* The user's list keeps its syntax (empty entries mean "."); only entries
	 * already listed are dropped: the earlier one wins anyway. */
	const char *p = secure || !user_llp ? "" : user_llp;
	while (ok && *p) {
		size_t n = strcspn(p, ":;");
		if (n == 0 || !listed(&l, p, n))
			ok = append(&l, p, n);
		p += n;
		if (*p && !*++p)
			ok = append(&l, "", 0);	/* a trailing separator: a last, empty entry */
	}
	if (!ok) {
		free(l.s);
		return NULL;
	}
	return l.s;
}

char *searchlist_library_path(const char *root, const struct decision *d,
			const struct candidates *c, const struct host *h,
			const char *system_pin, const char *user_llp, bool secure)
{
	char *own = searchlist_own(root, d, c, h, system_pin);
	if (!own || secure || !user_llp)
		return own;
	char *l = searchlist_extend(own, user_llp, secure);
	free(own);
	return l;
}

bool searchlist_fits_argument(const char *list)
{
	/* getpagesize, not sysconf: Debian's symbols ask glibc 2.34 of a
	 * program that calls sysconf, and the packages run on 2.31 */
	int page = getpagesize();
	return strlen(list) < 32 * (size_t)(page > 0 ? page : 4096);	/* the NUL counts */
}
