/* SPDX-License-Identifier: MIT */
/* An image's paths resolved inside it (common/base/inroot.c).  The input builds a
 * small image in a scratch directory, one line an entry, then asks for
 * paths in it:
 *   d NAME            a directory        f NAME         a file
 *   l NAME TARGET     a symbolic link (TARGET: any text, as an image may hold)
 *   o PATH / p PATH / D PATH   open PATH: O_RDONLY / O_PATH|O_NOFOLLOW /
 *                     O_RDONLY|O_DIRECTORY
 *   m PATH            inroot_parent(PATH, make), our own resolver
 * NAME is made one component at a time without following a link, so the
 * image never reaches out of its directory while it is built.  Properties:
 * whatever is opened or made lies inside the image (by /proc/self/fd, and a
 * directory beside the image stays empty); openat2 (RESOLVE_IN_ROOT) and our
 * own resolver agree on every open (the same file, or the same error),
 * except that ours may say ENAMETOOLONG where the links' texts joined
 * exceed PATH_MAX (the kernel keeps them apart). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/base/inroot.h"
#include "fuzz.h"

#define MAX_LINES 64

static char base[64], root[96], beside[96];
static int rfd;		/* the root, open (O_PATH), as cudaload-patch holds it */

static void remove_base(void)
{
	rmdir(base);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(p);
}

/* NAME's components as directories below the root, without following a
 * link; then the last one made by make(). */
static void build(const char *name, char kind, const char *target)
{
	int cur = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char comp[256];
	const char *p = name;
	while (cur >= 0 && *p) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (!n || n >= sizeof comp)
			break;
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		while (*p == '/')
			p++;
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
			break;
		if (!*p) {
			if (kind == 'd')
				mkdirat(cur, comp, 0755);
			else if (kind == 'f')
				close(openat(cur, comp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
			else if (*target)
				symlinkat(target, cur, comp);
			break;
		}
		mkdirat(cur, comp, 0755);
		int next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		cur = next;
	}
	if (cur >= 0)
		close(cur);
}

/* fd lies in the image: its name, as the kernel knows it, below the root. */
static void inside(int fd)
{
	char link[64], at[4096];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, at, sizeof at - 1);
	if (n < 0)
		return;	/* no /proc: nothing to compare with */
	at[n] = '\0';
	size_t rl = strlen(root);
	if (strncmp(at, root, rl) != 0 || (at[rl] != '\0' && at[rl] != '/'))
		abort();
}

/* Open path with both resolvers: the same file or the same error. */
static void both(const char *path, int flags)
{
	struct stat st[2];
	int r[2];
	for (int own = 0; own < 2; own++) {
		inroot_use_own(own);
		int fd = inroot_open(rfd, path, flags);
		r[own] = fd < 0 ? fd : 0;
		if (fd >= 0) {
			inside(fd);
			if (fstat(fd, &st[own]) < 0)
				abort();
			close(fd);
		}
	}
	inroot_use_own(false);
	if (r[1] == -ENAMETOOLONG)
		return;
	if (r[0] != r[1] || (r[0] == 0 && (st[0].st_dev != st[1].st_dev || st[0].st_ino != st[1].st_ino)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	if (!text)
		return 0;
	if (!base[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(base, sizeof base, "%s/inroot-fuzz-XXXXXX", tmp && strlen(tmp) < 32 ? tmp : "/tmp");
		if (!mkdtemp(base))
			abort();
		snprintf(root, sizeof root, "%s/root", base);
		snprintf(beside, sizeof beside, "%s/beside", base);
		atexit(remove_base);
	}
	mkdir(root, 0755);
	mkdir(beside, 0755);
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		abort();
	int lines = 0;
	for (char *line = text, *next; line && lines < MAX_LINES; line = next, lines++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!line[0] || !line[1] || line[1] != ' ')
			continue;
		char *arg = line + 2;
		switch (line[0]) {
		case 'd':
		case 'f':
			build(arg, line[0], "");
			break;
		case 'l': {
			char *sp = strchr(arg, ' ');
			if (sp) {
				*sp = '\0';
				build(arg, 'l', sp + 1);
			}
			break;
		}
		case 'o': both(arg, O_RDONLY); break;
		case 'p': both(arg, O_PATH | O_NOFOLLOW); break;
		case 'D': both(arg, O_RDONLY | O_DIRECTORY); break;
		case 'm': {
			char name[256];
			inroot_use_own(true);
			int fd = inroot_parent(rfd, arg, true, name, sizeof name);
			inroot_use_own(false);
			if (fd >= 0) {
				inside(fd);
				close(fd);
			}
			break;
		}
		}
	}
	/* nothing was made beside the image */
	if (rmdir(beside) < 0)
		abort();
	close(rfd);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(text);
	return 0;
}
