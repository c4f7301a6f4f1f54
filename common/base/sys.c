/* SPDX-License-Identifier: MIT */
#include "sys.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int open_ro(const char *path, int extra)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | extra);
	return fd < 0 ? -errno : (int)fd;
}

size_t root_len(const char *root)
{
	size_t rl = root ? strlen(root) : 0;
	while (rl > 0 && root[rl - 1] == '/')
		rl--;	/* "/" and "dir/" must not double the slash */
	return rl;
}

int root_join(char *out, size_t cap, const char *root, const char *path)
{
	size_t rl = root_len(root);
	size_t pl = strlen(path);
	if (rl + pl + 1 > cap)
		return -1;
	if (rl)
		memcpy(out, root, rl);
	memcpy(out + rl, path, pl + 1);
	return 0;
}

struct sys_seen *sys_seen;

void sys_note(const char *path)
{
	struct sys_seen *s = sys_seen;
	if (!s || s->full)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->paths[i], path) == 0)
			return;
	if (s->n == SYS_SEEN_MAX || !(s->paths[s->n] = strdup(path)))
		s->full = true;
	else
		s->n++;
}

char *root_path(const char *root, const char *path)
{
	if (sys_seen)
		sys_note(path);
	if (!root || !root[0] || strcmp(root, "/") == 0)
		return (char *)path;
	size_t cap = strlen(root) + strlen(path) + 1;
	char *full = malloc(cap);
	if (full)
		root_join(full, cap, root, path);
	return full;
}

void root_path_free(char *full, const char *path)
{
	if (full != path)
		free(full);
}

/* O_NONBLOCK, so that a FIFO cannot block. */
static int root_open(const char *root, const char *path)
{
	char *full = root_path(root, path);
	if (!full)
		return -ENOMEM;
	int fd = open_ro(full, O_NONBLOCK);
	root_path_free(full, path);
	return fd;
}

/* One read: the files cudaload reads are small, and procfs and sysfs hand
 * over a whole attribute at once, so a short read is the end. */
static ssize_t read_fd_small(int fd, char *buf, size_t cap)
{
	ssize_t n;
	do
		n = read(fd, buf, cap - 1);
	while (n < 0 && errno == EINTR);
	int e = errno;
	close(fd);
	if (n < 0) {
		buf[0] = '\0';
		return -e;	/* EISDIR for a directory */
	}
	buf[n] = '\0';
	return n;
}

ssize_t read_small(const char *root, const char *path, char *buf, size_t cap)
{
	if (cap == 0)
		return -EINVAL;
	buf[0] = '\0';
	int fd = root_open(root, path);
	if (fd < 0)
		return fd;
	return read_fd_small(fd, buf, cap);
}

int pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* struct linux_dirent64 up to its name. */
struct dirent64_head {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
};
#define DIRENT_NAME (offsetof(struct dirent64_head, type) + 1)
_Static_assert(DIRENT_NAME == DENT_HEAD, "struct linux_dirent64 names start at 19");

enum dent_step dent_next(const char *buf, size_t len, size_t *pos, const char **name)
{
	if (*pos > len || len - *pos < DIRENT_NAME)
		return DENT_END;
	struct dirent64_head h;
	memcpy(&h, buf + *pos, DIRENT_NAME);	/* not its padding: it may lie past len */
	if (h.reclen <= DIRENT_NAME || h.reclen > len - *pos)
		return DENT_BROKEN;
	*name = buf + *pos + DIRENT_NAME;
	*pos += h.reclen;
	return memchr(*name, '\0', h.reclen - DIRENT_NAME) ? DENT_ENTRY : DENT_UNTERMINATED;
}

int root_stat(const char *root, const char *path, struct stat *st)
{
	char *full = root_path(root, path);
	int r = full ? stat(full, st) : -1;
	root_path_free(full, path);
	return r;
}

bool root_is_dir(const char *root, const char *path)
{
	struct stat st;
	return root_stat(root, path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int real_gpu_open(const char *path)
{
	return open_ro(path, O_NONBLOCK);
}

static int real_gpu_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) < 0 ? -errno : 0;
}

static void real_gpu_close(int fd)
{
	close(fd);
}

int (*sys_gpu_open)(const char *path) = real_gpu_open;
int (*sys_gpu_ioctl)(int fd, unsigned long request, void *arg) = real_gpu_ioctl;
void (*sys_gpu_close)(int fd) = real_gpu_close;
