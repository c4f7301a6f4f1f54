/* SPDX-License-Identifier: MIT */
#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

void atomic_fill(char *tmp)
{
	/* no state kept between calls: the loader links this too, and its
	 * writable segment must stay one page (docs/design.md §6) */
	uint64_t state;
	if (getrandom(&state, sizeof state, GRND_NONBLOCK) != (ssize_t)sizeof state) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		state = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 48);
	}
	state |= 1;
	char *out = tmp + strlen(tmp) - ATOMIC_RANDOM;
	for (size_t i = 0; i < ATOMIC_RANDOM; i++) {
		/* xorshift64* */
		state ^= state >> 12;
		state ^= state << 25;
		state ^= state >> 27;
		out[i] = letters[((state * 0x2545F4914F6CDD1Dull) >> 40) % (sizeof letters - 1)];
	}
}

bool atomic_is_temp(const char *name)
{
	size_t len = strlen(name), tail = sizeof ATOMIC_MARK - 1 + ATOMIC_RANDOM;
	if (len < 2 + tail || name[0] != '.' ||
	    memcmp(name + len - tail, ATOMIC_MARK, sizeof ATOMIC_MARK - 1) != 0)
		return false;
	for (const char *p = name + len - ATOMIC_RANDOM; *p; p++)
		if (!strchr(letters, *p))
			return false;
	return true;
}

int atomic_temp_name(const char *name, char *tmp, size_t cap)
{
	int n = snprintf(tmp, cap, ".%s" ATOMIC_MARK "XXXXXX", name);
	if (n < 0 || (size_t)n >= cap || n > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int atomic_create(int dirfd, char *tmp)
{
	int fd = -1;
	errno = EEXIST;
	for (int tries = 0; tries < 100 && fd < 0 && errno == EEXIST; tries++) {
		atomic_fill(tmp);
		fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			    0600);
	}
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
			st.st_uid != geteuid())) {
		close(fd);	/* not the file just made: nothing of it is touched */
		errno = EEXIST;
		return -1;
	}
	return fd;
}

int atomic_rename(int dirfd, const char *tmp, const char *name)
{
	if (renameat(dirfd, tmp, dirfd, name) == 0)
		return 0;
	int e = errno;
	unlinkat(dirfd, tmp, 0);
	errno = e;
	return -1;
}

int atomic_begin(struct atomic_file *a, int dirfd, const char *name, bool durable)
{
	a->dirfd = dirfd;
	a->durable = durable;
	a->fd = atomic_temp_name(name, a->tmp, sizeof a->tmp) < 0 ? -1 : atomic_create(dirfd, a->tmp);
	return a->fd < 0 ? -1 : 0;
}

int atomic_write(struct atomic_file *a, const void *p, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(a->fd, (const char *)p + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errno = w < 0 ? errno : ENOSPC;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

FILE *atomic_stream(struct atomic_file *a)
{
	int copy = dup(a->fd);
	FILE *f = copy >= 0 ? fdopen(copy, "w") : NULL;
	if (!f && copy >= 0) {
		int e = errno;
		close(copy);
		errno = e;
	}
	return f;
}

int atomic_commit(struct atomic_file *a, const char *name, mode_t mode)
{
	int r = fchmod(a->fd, mode) == 0 && (!a->durable || fsync(a->fd) == 0) ? 0 : -1;
	int e = errno;
	if (close(a->fd) < 0 && r == 0)	/* NFS reports a failed write here */
		r = -1, e = errno;
	a->fd = -1;
	if (r < 0) {
		unlinkat(a->dirfd, a->tmp, 0);
		errno = e;
		return -1;
	}
	if (atomic_rename(a->dirfd, a->tmp, name) < 0)
		return -1;
	if (a->durable)
		fsync(a->dirfd);	/* the rename, durable: the file is in place whatever it says */
	return 0;
}

void atomic_abort(struct atomic_file *a)
{
	int e = errno;
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	unlinkat(a->dirfd, a->tmp, 0);
	errno = e;
}

int atomic_replace(int dirfd, const char *name, const void *p, size_t n, mode_t mode, bool durable)
{
	struct atomic_file a;
	if (atomic_begin(&a, dirfd, name, durable) < 0)
		return -1;
	if (atomic_write(&a, p, n) < 0) {
		atomic_abort(&a);
		return -1;
	}
	return atomic_commit(&a, name, mode);
}

int atomic_symlink(int dirfd, const char *name, const char *target)
{
	char tmp[NAME_MAX + 1];
	if (atomic_temp_name(name, tmp, sizeof tmp) < 0)
		return -1;
	/* symlinkat never follows or replaces what is there: it is O_EXCL */
	int r = -1;
	errno = EEXIST;
	for (int tries = 0; tries < 100 && r < 0 && errno == EEXIST; tries++) {
		atomic_fill(tmp);
		r = symlinkat(target, dirfd, tmp);
	}
	return r < 0 ? -1 : atomic_rename(dirfd, tmp, name);
}
