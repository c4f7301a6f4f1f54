/* SPDX-License-Identifier: MIT */
#include "install.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/base/inroot.h"
#include "../../common/base/sys.h"
#include "batch.h"
#include "files.h"

/* What --install did: the summary's counts. */
struct install_tally {
	unsigned long files, links, dirs, kept;
	bool failed;
};

/* dest (in the image) as this machine names it, for messages. */
static const char *shown_dest(const struct options *opt, const char *dest, char *buf, size_t cap)
{
	if (!host_path(opt, dest, buf, cap))
		snprintf(buf, cap, "%s", dest);
	return buf;
}

static void install_error(const struct options *opt, struct install_tally *inst, const char *dest,
			  const char *what, int err)
{
	char shown[CL_PATH_MAX];
	complain(opt, shown_dest(opt, dest, shown, sizeof shown), "error: cannot %s: %s%s", what,
		 strerror(err),
		 err == ENOENT || err == ELOOP || err == ENOTDIR
		 ? " (in the image: its links are followed inside it, never out of it)" : "");
	inst->failed = true;
}

/* --no-clobber and something at name: kept, said with -v. */
static bool kept(const struct options *opt, struct install_tally *inst, int dfd, const char *name,
		 const char *dest)
{
	struct stat st;
	char shown[CL_PATH_MAX];
	if (!opt->no_clobber || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	inst->kept++;
	if (opt->verbose)
		say(opt, shown_dest(opt, dest, shown, sizeof shown), "kept: the image has one");
	return true;
}

static void install_file(const struct options *opt, struct run *run, struct install_tally *inst,
			 const char *src, const struct stat *sst, const char *dest)
{
	char name[NAME_MAX + 1], tmp[NAME_MAX + 1], why[160], shown[CL_PATH_MAX];
	int dfd = inroot_parent(opt->rootfd, dest, true, name, sizeof name);
	if (dfd < 0) {
		install_error(opt, inst, dest, "make its directory", -dfd);
		return;
	}
	shown_dest(opt, dest, shown, sizeof shown);
	sweep_dir_of(opt, &run->dirs, &run->swept, shown, dest);	/* a killed run's temporaries there */
	if (kept(opt, inst, dfd, name, dest)) {
		close(dfd);
		return;
	}
	int in = open(src, O_RDONLY | O_CLOEXEC), lock = -1, r = 0;
	int fd = in < 0 ? -1 : replace_make_temp(dfd, name, tmp, sizeof tmp, why, sizeof why);
	if (in < 0) {
		snprintf(why, sizeof why, "cannot read %s: %s", src, strerror(errno));
		r = -1;
	} else if (fd < 0) {
		r = -1;
	}
	char buf[65536];
	for (ssize_t n; r == 0 && (n = read(in, buf, sizeof buf)) != 0;) {
		if (n < 0 && errno == EINTR)
			continue;
		for (ssize_t off = 0; n > 0 && off < n;) {
			ssize_t w = write(fd, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				snprintf(why, sizeof why, "cannot write: %s", strerror(w < 0 ? errno : ENOSPC));
				r = -1;
				break;
			}
			off += w;
		}
		if (n < 0) {
			snprintf(why, sizeof why, "cannot read %s: %s", src, strerror(errno));
			r = -1;
		}
	}
	mode_t mode = opt->install_mode >= 0 ? (mode_t)opt->install_mode : sst->st_mode & 07777;
	if (r == 0 && fchmod(fd, mode) < 0)
		snprintf(why, sizeof why, "cannot set its mode: %s", strerror(errno)), r = -1;
	if (r == 0 && fsync(fd) < 0)
		snprintf(why, sizeof why, "cannot make it durable: %s", strerror(errno)), r = -1;
	if (r == 0 && (lock = replace_lock_again(dfd, tmp)) < 0)
		snprintf(why, sizeof why, "cannot lock the file beside it: %s", strerror(errno)), r = -1;
	if (fd >= 0 && close(fd) < 0 && r == 0)
		snprintf(why, sizeof why, "cannot write: %s", strerror(errno)), r = -1;
	if (r == 0 && replace_commit(dfd, tmp, name) < 0)
		snprintf(why, sizeof why, "cannot put it in place: %s", strerror(errno)), r = -1;
	if (r == 0) {
		fsync(dfd);	/* the rename, durable */
		inst->files++;
		if (opt->verbose)
			say(opt, shown, "installed from %s", src);
	} else {
		complain(opt, shown, "error: %s", why);
		inst->failed = true;
		if (fd >= 0)
			discard_temp(opt, shown, dfd, tmp);
	}
	if (lock >= 0)
		close(lock);
	if (in >= 0)
		close(in);
	close(dfd);
}

static void install_link(const struct options *opt, struct install_tally *inst, const char *target,
			 const char *dest)
{
	char name[NAME_MAX + 1], shown[CL_PATH_MAX], *now = malloc(CL_PATH_MAX);
	int dfd = now ? inroot_parent(opt->rootfd, dest, true, name, sizeof name) : -ENOMEM;
	if (dfd < 0) {
		install_error(opt, inst, dest, "make its directory", -dfd);
		free(now);
		return;
	}
	if (kept(opt, inst, dfd, name, dest)) {
		close(dfd);
		free(now);
		return;
	}
	ssize_t n = readlinkat(dfd, name, now, CL_PATH_MAX - 1);
	int e = errno;
	struct stat st;
	if (n >= 0 && (size_t)n == strlen(target) && memcmp(now, target, (size_t)n) == 0) {
		inst->links++;	/* there already, as it should be */
	} else if (n < 0 && e == EINVAL && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		install_error(opt, inst, dest, "make a link: something else is there", EEXIST);
	} else if ((n >= 0 && unlinkat(dfd, name, 0) < 0) || symlinkat(target, dfd, name) < 0) {
		install_error(opt, inst, dest, "make a link", errno);
	} else {
		inst->links++;
		if (opt->verbose)
			say(opt, shown_dest(opt, dest, shown, sizeof shown), "linked to %s", target);
	}
	close(dfd);
	free(now);
}

static bool install_dir(const struct options *opt, struct install_tally *inst, const char *dest)
{
	char name[NAME_MAX + 1];
	if (strcmp(dest, "/") == 0)
		return true;
	int dfd = inroot_parent(opt->rootfd, dest, true, name, sizeof name);
	if (dfd < 0) {
		install_error(opt, inst, dest, "make its directory", -dfd);
		return false;
	}
	if (mkdirat(dfd, name, 0755) == 0) {
		int nd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nd >= 0) {
			(void)fchmod(nd, 0755);	/* whatever the umask */
			close(nd);
		}
		inst->dirs++;
	}
	close(dfd);
	/* made, or there already: a directory (or a link to one in the image) */
	int fd = inroot_open(opt->rootfd, dest, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		install_error(opt, inst, dest, "make the directory", -fd);
		return false;
	}
	close(fd);
	return true;
}

static void install_path(const struct options *opt, struct run *run, struct install_tally *inst,
			 const char *src, const char *dest, int depth);

/* A directory of this machine, its files, links and directories, into dest. */
static void install_tree(const struct options *opt, struct run *run, struct install_tally *inst,
			 const char *src, const char *dest, int depth)
{
	if (!install_dir(opt, inst, dest))
		return;
	DIR *d = opendir(src);
	if (!d) {
		complain(opt, src, "error: cannot read: %s", strerror(errno));
		inst->failed = true;
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *s2 = malloc(CL_PATH_MAX), *d2 = malloc(CL_PATH_MAX);
		if (!s2 || !d2 || snprintf(s2, CL_PATH_MAX, "%s/%s", src, e->d_name) >= CL_PATH_MAX ||
		    snprintf(d2, CL_PATH_MAX, "%s%s%s", dest, strcmp(dest, "/") ? "/" : "", e->d_name) >=
			    CL_PATH_MAX) {
			complain(opt, src, "error: %s/%s: %s", src, e->d_name, strerror(ENAMETOOLONG));
			inst->failed = true;
		} else {
			install_path(opt, run, inst, s2, d2, depth + 1);
		}
		free(s2);
		free(d2);
	}
	closedir(d);
}

static void install_path(const struct options *opt, struct run *run, struct install_tally *inst,
			 const char *src, const char *dest, int depth)
{
	struct stat st;
	if ((depth ? lstat(src, &st) : stat(src, &st)) < 0) {
		complain(opt, src, "error: %s", strerror(errno));
		inst->failed = true;
	} else if (S_ISDIR(st.st_mode) && depth < 64) {
		install_tree(opt, run, inst, src, dest, depth);
	} else if (S_ISREG(st.st_mode)) {
		install_file(opt, run, inst, src, &st, dest);
	} else if (S_ISLNK(st.st_mode)) {
		char *t = malloc(CL_PATH_MAX);
		ssize_t n = t ? readlink(src, t, CL_PATH_MAX - 1) : -1;
		if (n < 0) {
			complain(opt, src, "error: %s", t ? strerror(errno) : "out of memory");
			inst->failed = true;
		} else {
			t[n] = '\0';
			install_link(opt, inst, t, dest);	/* as it is: the image reads it */
		}
		free(t);
	} else {
		complain(opt, src, "error: not a file, a directory or a link (or too deep)");
		inst->failed = true;
	}
}

int install(const struct options *opt, struct run *run, const char *src, const char *dest)
{
	struct install_tally inst = { 0 };
	install_path(opt, run, &inst, src, dest, 0);
	if (!opt->quiet) {
		printf("cudaload-patch: installed %lu file%s, %lu link%s, %lu new director%s", inst.files,
		       inst.files == 1 ? "" : "s", inst.links, inst.links == 1 ? "" : "s", inst.dirs,
		       inst.dirs == 1 ? "y" : "ies");
		if (inst.kept)
			printf(" (%lu kept: the image has %s)", inst.kept, inst.kept == 1 ? "it" : "them");
		printf(" in %s%s\n", opt->root_abs, inst.failed ? "; some failed" : "");
	}
	fflush(stdout);
	return inst.failed ? 1 : 0;
}

