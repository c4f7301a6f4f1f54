/* SPDX-License-Identifier: MIT */
#include "patchlist.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/array.h"
#include "../base/sys.h"
#include "../base/atomicfile.h"

bool patchlist_storable(const char *interp, const char *path)
{
	return interp[0] == '/' && path[0] == '/' && !strpbrk(interp, "\t\n") &&
	       !strchr(path, '\n');
}

long patchlist_find(const struct patchlist *pl, const char *path)
{
	for (size_t i = 0; i < pl->n; i++)
		if (strcmp(pl->v[i].path, path) == 0)
			return (long)i;
	return -1;
}

static int append(struct patchlist *pl, const char *interp, size_t ilen,
		  const char *path, size_t plen)
{
	if (array_room(&pl->v, pl->n, &pl->cap, sizeof *pl->v, 16) < 0)
		return -1;
	char *i = strndup(interp, ilen), *p = strndup(path, plen);
	if (!i || !p) {
		free(i);
		free(p);
		return -1;
	}
	pl->v[pl->n].interp = i;
	pl->v[pl->n].path = p;
	pl->n++;
	return 0;
}

int patchlist_add(struct patchlist *pl, const char *interp, const char *path)
{
	if (!patchlist_storable(interp, path))
		return -1;
	long at = patchlist_find(pl, path);
	if (at >= 0) {
		if (strcmp(pl->v[at].interp, interp) == 0)
			return 0;
		char *copy = strdup(interp);
		if (!copy)
			return -1;
		free(pl->v[at].interp);
		pl->v[at].interp = copy;
	} else if (append(pl, interp, strlen(interp), path, strlen(path)) < 0) {
		return -1;
	}
	pl->changed = true;
	return 0;
}

bool patchlist_remove(struct patchlist *pl, const char *path)
{
	long at = patchlist_find(pl, path);
	if (at < 0)
		return false;
	free(pl->v[at].interp);
	free(pl->v[at].path);
	memmove(&pl->v[at], &pl->v[at + 1], (pl->n - (size_t)at - 1) * sizeof pl->v[0]);
	pl->n--;
	pl->changed = true;
	return true;
}

int patchlist_parse(struct patchlist *pl, const char *text, size_t len,
		    char *why, size_t whycap)
{
	int skipped = 0;
	size_t lineno = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *tab = memchr(p, '\t', (size_t)(eol - p));
		lineno++;
		const char *problem = NULL;
		if (eol == p) {
			/* a blank line: nothing to say */
		} else if (!tab) {
			problem = "no tab between interpreter and path";
		} else if (tab == p || p[0] != '/' || tab + 1 >= eol || tab[1] != '/') {
			problem = "interpreter and path must be absolute";
		} else if (memchr(p, '\0', (size_t)(eol - p))) {
			problem = "a NUL byte";
		} else {
			/* a path listed twice keeps its first line */
			char *path = strndup(tab + 1, (size_t)(eol - tab - 1));
			if (!path || (patchlist_find(pl, path) < 0 &&
				      append(pl, p, (size_t)(tab - p), tab + 1,
					     (size_t)(eol - tab - 1)) < 0))
				problem = "out of memory";
			free(path);
		}
		if (problem) {
			if (!skipped && why)
				snprintf(why, whycap, "line %zu: %s", lineno, problem);
			skipped++;
		}
		p = nl ? nl + 1 : end;
	}
	return skipped;
}

int patchlist_read_fd(int fd, struct patchlist *pl, int *skipped, char *why, size_t whycap)
{
	struct stat st;
	char *buf = NULL;
	const char *problem = NULL;
	*skipped = 0;
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		problem = strerror(-fd);
	else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size >= PATCHLIST_MAX ||
		 !(buf = malloc((size_t)st.st_size + 1)))
		problem = "not a regular file, over 64 MiB or out of memory";
	else if (pread_full(fd, buf, (size_t)st.st_size, 0) != 0)
		problem = "cannot be read";
	if (fd >= 0)
		close(fd);
	if (problem)
		snprintf(why, whycap, "%s", problem);
	else
		*skipped = patchlist_parse(pl, buf, (size_t)st.st_size, why, whycap);
	free(buf);
	return problem ? -1 : 1;
}

/* dir and every directory above it, made when missing (0755). */
static int mkdir_parents(char *dir)
{
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		int r = mkdir(dir, 0755);
		*s = '/';
		if (r < 0 && errno != EEXIST)
			return -1;
	}
	return mkdir(dir, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int patchlist_save(const struct patchlist *pl, const char *file, char *why, size_t whycap)
{
	const char *slash = strrchr(file, '/');
	if (!slash || slash - file >= PATH_MAX) {
		snprintf(why, whycap, "%s: not an absolute path, or too long", file);
		return -1;
	}
	/* malloc'd: the loader links this file, and bounds its stack frames */
	char *dir = strndup(file, (size_t)(slash - file));
	if (!dir) {
		snprintf(why, whycap, "%s: out of memory", file);
		return -1;
	}
	int r = -1;
	if (pl->n && dir[0] && mkdir_parents(dir) < 0) {
		snprintf(why, whycap, "%s: %s", dir, strerror(errno));
	} else {
		int dfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			r = patchlist_save_at(pl, dfd, slash + 1, file, why, whycap);
			close(dfd);
		} else if (!pl->n && errno == ENOENT) {
			r = 0;	/* nothing to remove */
		} else {
			snprintf(why, whycap, "%s: %s", dir, strerror(errno));
		}
	}
	free(dir);
	return r;
}

int patchlist_save_at(const struct patchlist *pl, int dirfd, const char *name, const char *shown,
		      char *why, size_t whycap)
{
	if (pl->n == 0) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT) {
			snprintf(why, whycap, "%s: %s", shown, strerror(errno));
			return -1;
		}
		return 0;
	}
	struct atomic_file a;
	if (atomic_begin(&a, dirfd, name, true) < 0) {
		snprintf(why, whycap, "%s: cannot create a file beside it: %s", shown, strerror(errno));
		return -1;
	}
	FILE *f = atomic_stream(&a);
	for (size_t i = 0; f && i < pl->n; i++)
		fprintf(f, "%s\t%s\n", pl->v[i].interp, pl->v[i].path);
	bool written = f && fclose(f) == 0;
	if (!written)
		atomic_abort(&a);
	if (!written || atomic_commit(&a, name, 0644) < 0) {
		snprintf(why, whycap, "%s: %s", shown, strerror(errno));
		return -1;
	}
	return 0;
}

void patchlist_free(struct patchlist *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->v[i].interp);
		free(pl->v[i].path);
	}
	free(pl->v);
	memset(pl, 0, sizeof *pl);
}
