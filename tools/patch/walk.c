/* SPDX-License-Identifier: MIT */
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/base/array.h"
#include "../../common/base/inroot.h"
#include "../../common/base/sys.h"
#include "batch.h"
#include "files.h"

static int list_file(struct listing *listed, const char *path, const char *img, bool named,
		     const struct stat *st)
{
	if (array_room(&listed->v, listed->n, &listed->cap, sizeof *listed->v, 256) < 0 ||
	    !(listed->v[listed->n].path = strdup(path))) {
		listed->oom = true;
		return -1;
	}
	listed->v[listed->n].img = img ? strdup(img) : NULL;
	if (img && !listed->v[listed->n].img) {
		free(listed->v[listed->n].path);
		listed->oom = true;
		return -1;
	}
	listed->v[listed->n].named = named;
	listed->v[listed->n].dev = st->st_dev;
	listed->v[listed->n].ino = st->st_ino;
	listed->v[listed->n].nlink = st->st_nlink;
	listed->n++;
	return 0;
}

/* A path being walked: as said (path) and, with --root, in the image
 * (img); each grows by a name on the way down. */
struct walk_at {
	char path[CL_PATH_MAX], img[CL_PATH_MAX];
	size_t pl, il;
	bool in_image;
};

static bool walk_push(struct walk_at *w, const char *name)
{
	size_t n = strlen(name);
	if (w->pl + 1 + n >= sizeof w->path || w->il + 1 + n >= sizeof w->img)
		return false;
	w->path[w->pl] = '/';
	memcpy(w->path + w->pl + 1, name, n + 1);
	w->pl += 1 + n;
	if (w->in_image) {
		size_t at = w->il == 1 ? 0 : w->il;	/* the root is "/" */
		w->img[at] = '/';
		memcpy(w->img + at + 1, name, n + 1);
		w->il = at + 1 + n;
	}
	return true;
}

/* The directory open at dfd (taken), walked without following a link:
 * every regular file listed, every temporary of a killed run swept-> */
static void walk_dir(const struct options *opt, struct tally *tally, struct listing *listed,
		     int dfd, struct walk_at *w, int depth)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		complain(opt, w->path, "error: cannot read: %s", strerror(errno));
		count_outcome(opt, tally, FAILED, w->path);
		close(dfd);
		return;
	}
	size_t pl = w->pl, il = w->il;
	for (;;) {
		errno = 0;
		struct dirent *e = readdir(d);
		if (!e) {
			if (errno) {
				complain(opt, w->path, "error: cannot read: %s", strerror(errno));
				count_outcome(opt, tally, FAILED, w->path);
			}
			break;
		}
		const char *n = e->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		if (e->d_type != DT_UNKNOWN && e->d_type != DT_REG && e->d_type != DT_DIR)
			continue;	/* links are skipped: their targets are walked or named */
		if (!walk_push(w, n)) {
			complain(opt, w->path, "error: %s/%s: %s", w->path, n, strerror(ENAMETOOLONG));
			count_outcome(opt, tally, FAILED, w->path);
			continue;
		}
		struct stat st;
		if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			complain(opt, w->path, "error: cannot read: %s", strerror(errno));
			count_outcome(opt, tally, FAILED, w->path);
		} else if (S_ISDIR(st.st_mode)) {
			int sub = depth < 4096 ? openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
					       : (errno = ELOOP, -1);
			if (sub < 0) {
				complain(opt, w->path, "error: cannot read: %s", strerror(errno));
				count_outcome(opt, tally, FAILED, w->path);
			} else {
				walk_dir(opt, tally, listed, sub, w, depth + 1);
			}
		} else if (S_ISREG(st.st_mode)) {
			if (replace_is_temp(n))
				sweep_one(opt, dirfd(d), n, w->path);
			else if (list_file(listed, w->path, w->in_image ? w->img : NULL, false, &st) < 0)
				break;
		}
		w->pl = pl;
		w->path[pl] = '\0';
		w->il = il;
		w->img[il] = '\0';
	}
	closedir(d);
}

/* The directory path (img in the image), walked. */
static void list_dir(const struct options *opt, struct tally *tally, struct listing *listed,
		     const char *path, const char *img)
{
	int dfd = img ? inroot_open(opt->rootfd, img, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
		      : open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct walk_at *w = dfd >= 0 ? malloc(sizeof *w) : NULL;
	if (!w) {
		complain(opt, path, "error: %s", dfd < 0 ? strerror(img ? -dfd : errno) : "out of memory");
		count_outcome(opt, tally, FAILED, path);
		if (dfd >= 0)
			close(dfd);
		return;
	}
	w->in_image = img != NULL;
	snprintf(w->path, sizeof w->path, "%s", path);
	snprintf(w->img, sizeof w->img, "%s", img ? img : "");
	w->pl = strlen(w->path);
	w->il = strlen(w->img);
	while (w->pl > 1 && w->path[w->pl - 1] == '/')
		w->path[--w->pl] = '\0';	/* "dir/" walks as dir */
	walk_dir(opt, tally, listed, dfd, w, 0);
	free(w);
	if (listed->oom) {
		complain(opt, path, "error: out of memory");
		count_outcome(opt, tally, FAILED, path);
	}
}

/* lstat of path (img in the image): 0, or -errno. */
static int stat_named(const struct options *opt, const char *path, const char *img, struct stat *st,
		      bool follow)
{
	if (!img)
		return (follow ? stat(path, st) : lstat(path, st)) == 0 ? 0 : -errno;
	int fd = inroot_open(opt->rootfd, img, O_PATH | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return fd;
	int r = fstat(fd, st) == 0 ? 0 : -errno;
	close(fd);
	return r;
}

void list_argument(const struct options *opt, struct run *run, struct listing *listed,
		   const char *arg)
{
	const char *path = arg;
	struct stat st;
	char abs[CL_PATH_MAX], resolved[CL_PATH_MAX], shown[CL_PATH_MAX];
	const char *img = NULL;
	char *real = NULL;
	/* in the image: below the root as given, or as this machine resolves
	 * it (the image's own links are never followed to get there) */
	if (opt->rootfd >= 0 &&
	    (inroot_absolute(path, abs, sizeof abs) < 0 ||
	     (!(img = inroot_below(opt->root_abs, abs)) && !(img = inroot_below(opt->root_real, abs))))) {
		complain(opt, path, "error: not in the image (--root %s): name its files there", opt->root_abs);
		count_outcome(opt, &run->tally, FAILED, path);
		return;
	}
	int r = stat_named(opt, path, img, &st, false);
	if (r == 0 && S_ISLNK(st.st_mode)) {
		/* A named link: what it points to (in the image: where the
		 * image's link leads there), never the link itself. */
		if (!img) {
			real = realpath(path, NULL);
			r = real ? 0 : -errno;
		} else if ((r = closure_resolve(opt->root_abs, img, resolved, sizeof resolved)) == 0) {
			real = host_path(opt, resolved, shown, sizeof shown) ? strdup(shown) : NULL;
			r = real ? 0 : -ENAMETOOLONG;
			img = resolved;
		}
		if (r == 0) {
			path = real;
			r = stat_named(opt, path, img, &st, true);
		}
	}
	if (r < 0) {
		complain(opt, arg, "error: %s", strerror(-r));
		count_outcome(opt, &run->tally, FAILED, arg);
	} else if (S_ISDIR(st.st_mode)) {
		list_dir(opt, &run->tally, listed, path, img);
	} else if (list_file(listed, path, img, true, &st) < 0) {
		complain(opt, path, "error: out of memory");
	} else {
		sweep_dir_of(opt, &run->dirs, &run->swept, path, img);
	}
	free(real);
}

static int by_file(const void *a, const void *b)
{
	const struct listed_file *x = *(struct listed_file *const *)a, *y = *(struct listed_file *const *)b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->named != y->named)
		return x->named ? -1 : 1;	/* a name given keeps its meaning */
	return x < y ? -1 : x > y;	/* then the first listed */
}

/* A listed file's name, every link resolved (inside the image for one
 * there), malloc'd, or NULL. */
static char *resolved_name(const struct options *opt, const struct listed_file *f)
{
	char out[CL_PATH_MAX];
	if (!f->img)
		return realpath(f->path, NULL);
	return closure_resolve(opt->root_abs, f->img, out, sizeof out) == 0 ? strdup(out) : NULL;
}

/* Two paths of one name? */
static bool same_name(const struct options *opt, const struct listed_file *a,
		      const struct listed_file *b)
{
	char *ra = resolved_name(opt, a), *rb = resolved_name(opt, b);
	bool same = ra && rb && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

/* A file listed twice under one name (named and walked, or two arguments
 * that overlap) is done once, as named if it was, else as first listed: its
 * second copy would find the first renamed over it.  Its other names (hard
 * links) stay: each is said, or patched alone with --break-links. */
static void drop_duplicates(const struct options *opt, struct listing *listed)
{
	struct listed_file **order = malloc(listed->n * sizeof *order + 1);
	if (!order)
		return;
	for (size_t i = 0; i < listed->n; i++)
		order[i] = &listed->v[i];
	qsort(order, listed->n, sizeof *order, by_file);
	for (size_t i = 1, group = 0; i < listed->n; i++) {
		if (order[i]->dev != order[group]->dev || order[i]->ino != order[group]->ino) {
			group = i;
			continue;
		}
		for (size_t j = group; j < i && order[i]->path; j++)
			if (order[j]->path && (order[i]->nlink == 1 || same_name(opt, order[i], order[j]))) {
				free(order[i]->path);
				free(order[i]->img);
				order[i]->path = NULL;
				order[i]->img = NULL;
			}
	}
	free(order);
}

void process_listed(const struct options *opt, struct run *run, struct listing *listed)
{
	drop_duplicates(opt, listed);
	/* virtual environments first: they say which interpreter they run */
	for (size_t i = 0; i < listed->n && run->loads.pysite; i++) {
		const char *p = listed->v[i].path, *base = p ? strrchr(p, '/') : NULL;
		char abs[CL_PATH_MAX];
		if (base && strcmp(base + 1, "pyvenv.cfg") == 0 &&
		    program_path(opt, p, listed->v[i].img, abs, sizeof abs) &&
		    pysite_add_venv(run->loads.pysite, abs) < 0)
			complain(opt, p, "warning: out of memory");
	}
	for (size_t i = 0; i < listed->n; i++) {
		const char *p = listed->v[i].path;
		/* another name of a file queued (--break-links): its rename first,
		 * which changes this one's link count and ctime */
		if (p && listed->v[i].nlink > 1 && batch_holds(&run->batch, listed->v[i].dev, listed->v[i].ino))
			flush_batch(opt, &run->batch, &run->tally, &run->record);
		if (p)
			count_outcome(opt, &run->tally, process_file(opt, run, p, listed->v[i].img, listed->v[i].named,
							    opt->interp, opt->machine), p);
		free(listed->v[i].path);
		free(listed->v[i].img);
	}
	free(listed->v);
	memset(listed, 0, sizeof *listed);
}

