/* SPDX-License-Identifier: MIT */
#include "patchlist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int patchlist_load(struct patchlist *pl, const char *file, char *why, size_t whycap)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, whycap, "%s: %s", file, strerror(errno));
		return -1;
	}
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (buf = malloc((size_t)st.st_size + 1))) {
		ssize_t r;
		while (len < (size_t)st.st_size &&
		       (r = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
			len += (size_t)r;
	}
	close(fd);
	if (!buf) {
		snprintf(why, whycap, "%s: not a regular file, or out of memory", file);
		return -1;
	}
	char bad[160] = "";
	int skipped = patchlist_parse(pl, buf, len, bad, sizeof bad);
	free(buf);
	if (skipped)
		fprintf(stderr, "cudaload-patch: %s: %d line%s skipped (%s)\n", file, skipped,
			skipped == 1 ? "" : "s", bad);
	pl->changed = false;
	return 0;
}

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
	char dir[4096], tmp[4096 + 16];
	const char *slash = strrchr(file, '/');
	if (!slash || snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file) >= (int)sizeof dir ||
	    snprintf(tmp, sizeof tmp, "%s.XXXXXX", file) >= (int)sizeof tmp) {
		snprintf(why, whycap, "%s: not an absolute path, or too long", file);
		return -1;
	}
	if (pl->n == 0) {
		if (unlink(file) < 0 && errno != ENOENT) {
			snprintf(why, whycap, "%s: %s", file, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (dir[0] && mkdir_parents(dir) < 0) {
		snprintf(why, whycap, "%s: %s", dir, strerror(errno));
		return -1;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(why, whycap, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		snprintf(why, whycap, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < pl->n; i++)
		fprintf(f, "%s\t%s\n", pl->v[i].interp, pl->v[i].path);
	int r = fflush(f) == 0 && fchmod(fd, 0644) == 0 && fsync(fd) == 0 ? 0 : -1;
	int e = errno;
	if (fclose(f) != 0 && r == 0)
		r = -1, e = errno;
	if (r == 0 && rename(tmp, file) < 0)
		r = -1, e = errno;
	if (r < 0) {
		unlink(tmp);
		snprintf(why, whycap, "%s: %s", file, strerror(e));
		return -1;
	}
	int dfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);	/* make the rename durable */
		close(dfd);
	}
	return 0;
}
