/* SPDX-License-Identifier: MIT */
#include "patchlist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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
	return patchlist_load_fd(pl, fd, file, why, whycap);
}

int patchlist_load_fd(struct patchlist *pl, int fd, const char *file, char *why, size_t whycap)
{
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
	char dir[4096];
	const char *slash = strrchr(file, '/');
	if (!slash || snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file) >= (int)sizeof dir) {
		snprintf(why, whycap, "%s: not an absolute path, or too long", file);
		return -1;
	}
	if (pl->n && dir[0] && mkdir_parents(dir) < 0) {
		snprintf(why, whycap, "%s: %s", dir, strerror(errno));
		return -1;
	}
	int dfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		if (!pl->n && errno == ENOENT)
			return 0;	/* nothing to remove */
		snprintf(why, whycap, "%s: %s", dir, strerror(errno));
		return -1;
	}
	int r = patchlist_save_at(pl, dfd, slash + 1, file, why, whycap);
	close(dfd);
	return r;
}

/* A new file beside name in dirfd ("NAME.XXXXXX"), its name into tmp. */
static int make_temp(int dirfd, const char *name, char *tmp, size_t cap)
{
	static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
			for (size_t i = 0; i < sizeof r; i++)
				r[i] = (unsigned char)(rand() ^ getpid() ^ tries);
		char suffix[7];
		for (size_t i = 0; i < sizeof r; i++)
			suffix[i] = letters[r[i] % (sizeof letters - 1)];
		suffix[6] = '\0';
		if (snprintf(tmp, cap, "%s.%s", name, suffix) >= (int)cap) {
			errno = ENAMETOOLONG;
			return -1;
		}
		int fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int patchlist_save_at(const struct patchlist *pl, int dirfd, const char *name, const char *file,
		      char *why, size_t whycap)
{
	char tmp[512];
	if (pl->n == 0) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT) {
			snprintf(why, whycap, "%s: %s", file, strerror(errno));
			return -1;
		}
		return 0;
	}
	int fd = make_temp(dirfd, name, tmp, sizeof tmp);
	if (fd < 0) {
		snprintf(why, whycap, "%s: cannot create a file beside it: %s", file, strerror(errno));
		return -1;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlinkat(dirfd, tmp, 0);
		snprintf(why, whycap, "%s: %s", file, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < pl->n; i++)
		fprintf(f, "%s\t%s\n", pl->v[i].interp, pl->v[i].path);
	int r = fflush(f) == 0 && fchmod(fd, 0644) == 0 && fsync(fd) == 0 ? 0 : -1;
	int e = errno;
	if (fclose(f) != 0 && r == 0)
		r = -1, e = errno;
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -1, e = errno;
	if (r < 0) {
		unlinkat(dirfd, tmp, 0);
		snprintf(why, whycap, "%s: %s", file, strerror(e));
		return -1;
	}
	fsync(dirfd);	/* make the rename durable */
	return 0;
}
