/* SPDX-License-Identifier: MIT */
#include "inroot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys.h"

/* openat2(2), spelt out: the package's tools build against glibc 2.31,
 * whose headers predate it.  The number is the same on every architecture
 * (the unified system call table). */
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
struct inroot_open_how {
	uint64_t flags, mode, resolve;
};
#define INROOT_RESOLVE_NO_MAGICLINKS 0x02
#define INROOT_RESOLVE_IN_ROOT 0x10

#define MAX_LINKS 40		/* links on one path, as the kernel's */
#define MAX_DEPTH 1024		/* directories deep: PATH_MAX allows 2048 */
#define AGAIN_TRIES 16		/* openat2's EAGAIN: a rename raced a ".." */

static enum { ASK, KERNEL, OWN_NO_KERNEL, OWN_FORCED } how = ASK;

void inroot_use_own(bool own)
{
	how = own ? OWN_FORCED : ASK;
}

static long openat2_call(int dirfd, const char *path, int flags)
{
	struct inroot_open_how h = {
		.flags = (uint64_t)(unsigned)(flags | O_CLOEXEC),
		.resolve = INROOT_RESOLVE_IN_ROOT | INROOT_RESOLVE_NO_MAGICLINKS,
	};
	return syscall(SYS_openat2, dirfd, path, &h, sizeof h);
}

/* Does the kernel have it?  Asked once: ENOSYS before 5.6, EPERM or
 * ENOSYS where a seccomp filter does not know it. */
static bool kernel_has_it(void)
{
	if (how == ASK) {
		long fd = openat2_call(AT_FDCWD, "/", O_PATH | O_DIRECTORY);
		how = fd >= 0 ? KERNEL : OWN_NO_KERNEL;
		if (fd >= 0)
			close((int)fd);
	}
	return how == KERNEL;
}

const char *inroot_resolver(void)
{
	kernel_has_it();
	switch (how) {
	case KERNEL: return "openat2 (RESOLVE_IN_ROOT)";
	case OWN_FORCED: return "cudaload-patch's own (CUDALOAD_PATCH_RESOLVER=own)";
	default: return "cudaload-patch's own (this kernel has no openat2)";
	}
}

/* ---- our own resolver ----------------------------------------------------- */

struct walk {
	int root;
	int *dirs;		/* the directories below the root walked through, open */
	int n;
};

static int top(const struct walk *w)
{
	return w->n ? w->dirs[w->n - 1] : w->root;
}

static void pop(struct walk *w)
{
	if (w->n)
		close(w->dirs[--w->n]);
}

/* The link open (O_PATH) at lfd: its text, then the rest of the path, into
 * *next; from the root again when the text is absolute.  0 or -errno. */
static int follow(struct walk *w, int lfd, const char *rest, char *next, int *links)
{
	char *text = malloc(CL_PATH_MAX);
	if (!text)
		return -ENOMEM;
	ssize_t n = ++*links > MAX_LINKS ? (errno = ELOOP, -1) : readlinkat(lfd, "", text, CL_PATH_MAX);
	int r = 0;
	if (n < 0)
		r = -errno;
	else if (n == 0)
		r = -ENOENT;	/* as the kernel answers an empty link */
	else if ((size_t)n >= CL_PATH_MAX || (size_t)n + strlen(rest) >= CL_PATH_MAX)
		r = -ENAMETOOLONG;
	if (r == 0) {
		/* "x/" would ask for a directory: the rest's own slash joins */
		snprintf(next, CL_PATH_MAX, "%.*s%s", (int)n, text, rest);
		if (text[0] == '/')
			while (w->n)
				pop(w);
	}
	free(text);
	return r;
}

/* inroot_open without openat2: one component at a time (see inroot.h). */
static int own_open(int root, const char *path, int flags)
{
	struct walk w = { root, malloc(MAX_DEPTH * sizeof(int)), 0 };
	char *a = malloc(CL_PATH_MAX), *b = malloc(CL_PATH_MAX);
	char name[NAME_MAX + 1];
	int links = 0, r;
	bool follow_last = !(flags & O_NOFOLLOW);
	if (!w.dirs || !a || !b) {
		r = -ENOMEM;
		goto out;
	}
	if (snprintf(a, CL_PATH_MAX, "%s", path) >= CL_PATH_MAX) {
		r = -ENAMETOOLONG;
		goto out;
	}
	for (const char *p = a;;) {
		while (*p == '/')
			p++;
		if (!*p) {	/* the path ends at a directory (the root, "x/", "x/..") */
			r = openat(top(&w), ".", (flags & ~O_NOFOLLOW) | O_CLOEXEC);
			r = r >= 0 ? r : -errno;
			goto out;
		}
		size_t len = strcspn(p, "/");
		const char *rest = p + len;
		bool last = !*rest;	/* "x/" is no last component: "." follows it */
		if (len == 1 && p[0] == '.') {
			p = rest;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			pop(&w);	/* back where we came from; never above the root */
			p = rest;
			continue;
		}
		if (len > NAME_MAX) {
			r = -ENAMETOOLONG;
			goto out;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		int fd, err = 0;
		if (last) {
			fd = openat(top(&w), name, flags | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0 && (!(flags & O_PATH) || !follow_last)) {
				r = fd;
				goto out;
			}
			if (fd < 0 && (!follow_last || (errno != ELOOP && errno != ENOTDIR))) {
				r = -errno;
				goto out;
			}
			/* a link, maybe: see (O_PATH opens a link itself) */
			if (fd < 0) {
				err = errno;
				fd = openat(top(&w), name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
			}
		} else {
			fd = openat(top(&w), name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			/* p and rest lie in a: the link's text and the rest go
			 * to b, and the two take turns */
			r = follow(&w, fd, rest, b, &links);
			close(fd);
			if (r < 0)
				goto out;
			char *t = a;
			a = b;
			b = t;
			p = a;
			continue;
		}
		if (last) {
			/* O_PATH found no link: the answer itself; else the
			 * first open's error stands */
			if (err)
				close(fd);
			r = err ? -err : fd;
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			r = -ENOTDIR;
			goto out;
		}
		if (w.n == MAX_DEPTH) {
			close(fd);
			r = -ENAMETOOLONG;
			goto out;
		}
		w.dirs[w.n++] = fd;
		p = rest;
	}
out:
	while (w.n)
		pop(&w);
	free(w.dirs);
	free(a);
	free(b);
	return r;
}

int inroot_open(int root, const char *path, int flags)
{
	if (!*path)
		path = ".";
	if (kernel_has_it()) {
		for (int i = 0; i < AGAIN_TRIES; i++) {
			long fd = openat2_call(root, path, flags);
			if (fd >= 0)
				return (int)fd;
			if (errno != EAGAIN)
				return -errno;
		}
		/* renames kept racing: ours does not need to ask again */
	}
	return own_open(root, path, flags);
}

/* path's directory part into dir and its last component into name. */
static int split(const char *path, char *dir, size_t dcap, char *name, size_t ncap)
{
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	size_t start = len;
	while (start && path[start - 1] != '/')
		start--;
	size_t nl = len - start;
	if (nl == 0 || (nl == 1 && path[start] == '.') ||
	    (nl == 2 && path[start] == '.' && path[start + 1] == '.'))
		return -EINVAL;
	if (nl >= ncap || nl > NAME_MAX || start >= dcap)
		return -ENAMETOOLONG;
	memcpy(name, path + start, nl);
	name[nl] = '\0';
	memcpy(dir, path, start);
	dir[start] = '\0';
	if (!start)
		snprintf(dir, dcap, ".");
	return 0;
}

static int parent(int root, const char *path, bool make, char *name, size_t cap, int depth)
{
	char *dir = malloc(CL_PATH_MAX);
	if (!dir)
		return -ENOMEM;
	int r = split(path, dir, CL_PATH_MAX, name, cap);
	if (r == 0)
		r = inroot_open(root, dir, O_RDONLY | O_DIRECTORY);
	if (r == -ENOENT && make && depth < MAX_DEPTH) {
		/* make the directory in its own parent, then open it again */
		char sub[NAME_MAX + 1];
		int pfd = parent(root, dir, make, sub, sizeof sub, depth + 1);
		r = pfd;
		if (pfd >= 0) {
			if (mkdirat(pfd, sub, 0755) == 0) {
				int nd = openat(pfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (nd >= 0) {
					(void)fchmod(nd, 0755);	/* whatever the umask */
					close(nd);
				}
			}
			close(pfd);
			/* made (by us or another), or there already: a link
			 * that leads nowhere stays ENOENT */
			r = inroot_open(root, dir, O_RDONLY | O_DIRECTORY);
		}
	}
	free(dir);
	return r;
}

int inroot_parent(int root, const char *path, bool make, char *name, size_t cap)
{
	return parent(root, path, make, name, cap, 0);
}

int inroot_absolute(const char *path, char *out, size_t cap)
{
	char *full = malloc(CL_PATH_MAX * 2);
	int r = -1;
	if (!full)
		return -1;
	if (path[0] == '/') {
		if (snprintf(full, CL_PATH_MAX * 2, "%s", path) >= CL_PATH_MAX * 2)
			goto out;
	} else {
		if (!getcwd(full, CL_PATH_MAX))
			goto out;
		size_t l = strlen(full);
		if (snprintf(full + l, CL_PATH_MAX * 2 - l, "/%s", path) >= (int)(CL_PATH_MAX * 2 - l))
			goto out;
	}
	size_t n = 0;
	for (const char *p = full; *p;) {
		while (*p == '/')
			p++;
		size_t len = strcspn(p, "/");
		if (!len || (len == 1 && p[0] == '.')) {
			p += len;
			continue;
		}
		if (n + 1 + len >= cap)
			goto out;
		out[n++] = '/';
		memcpy(out + n, p, len);
		n += len;
		p += len;
	}
	if (!n) {
		if (cap < 2)
			goto out;
		out[n++] = '/';
	}
	out[n] = '\0';
	r = 0;
out:
	free(full);
	return r;
}

const char *inroot_below(const char *root, const char *path)
{
	if (strcmp(root, "/") == 0)
		return path[0] == '/' ? path : NULL;
	size_t rl = strlen(root);
	if (strncmp(path, root, rl) != 0)
		return NULL;
	if (!path[rl])
		return "/";
	return path[rl] == '/' ? path + rl : NULL;
}
