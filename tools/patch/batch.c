/* SPDX-License-Identifier: MIT */
#include "batch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Copy every extended attribute (ACLs, file capabilities ...) from src to dst. */
static int copy_xattrs(int src, int dst, char *why, size_t cap)
{
	ssize_t n = flistxattr(src, NULL, 0);
	if (n < 0)
		return errno == ENOTSUP ? 0 : (snprintf(why, cap, "cannot list extended attributes: %s", strerror(errno)), -1);
	if (n == 0)
		return 0;
	char *names = malloc((size_t)n);
	if (!names || (n = flistxattr(src, names, (size_t)n)) < 0) {
		free(names);
		snprintf(why, cap, "cannot list extended attributes");
		return -1;
	}
	int r = 0;
	for (char *name = names; name < names + n && r == 0; name += strlen(name) + 1) {
		ssize_t vl = fgetxattr(src, name, NULL, 0);
		char *v = vl >= 0 ? malloc((size_t)vl + 1) : NULL;
		if (!v || fgetxattr(src, name, v, (size_t)vl) != vl ||
		    fsetxattr(dst, name, v, (size_t)vl, 0) < 0) {
			snprintf(why, cap, "cannot keep extended attribute %s: %s", name, strerror(errno));
			r = -1;
		}
		free(v);
	}
	free(names);
	return r;
}

void discard_temp(const struct options *opt, const char *path, int dirfd, const char *tmp)
{
	char why[128];
	if (replace_discard(dirfd, tmp, why, sizeof why) < 0)
		complain(opt, path, "error: its temporary copy %s could not be removed: %s", tmp, why);
}

/* The original's owner, mode and extended attributes on its replacement:
 * last, so that until the batch is flushed the temporary is the running
 * user's (a later run removes it when this one is killed). */
static int keep_metadata(const struct pending *p, char *why, size_t cap)
{
	const struct stat *st = &p->held.st;
	/* owner first: chown clears set-id bits and file capabilities */
	if (fchown(p->lockfd, st->st_uid, st->st_gid) < 0 && (geteuid() == 0 || st->st_uid != geteuid()))
		return snprintf(why, cap, "cannot keep the owner: %s", strerror(errno)), -1;
	if (fchmod(p->lockfd, st->st_mode & 07777) < 0)
		return snprintf(why, cap, "cannot keep the mode: %s", strerror(errno)), -1;
	return copy_xattrs(p->held.fd, p->lockfd, why, cap);
}

int flush_batch(const struct options *opt, struct batch *batch, struct tally *tally,
		struct patchlist *record)
{
	int failed = 0;
	if (batch->n == 0)
		return 0;
	/* what went wrong with each, "" for nothing */
	char (*whys)[160] = calloc(batch->n, sizeof *whys);
	for (size_t i = 0; i < batch->n && whys; i++)
		keep_metadata(&batch->v[i], whys[i], sizeof whys[i]);
	/* the temporaries are all beside their originals: one filesystem flush
	 * per file system; syncfs on the first one's directory covers the rest
	 * when they share it, and fsync covers any that do not */
	int sfd = batch->v[0].held.fd;
	bool synced = syncfs(sfd) == 0;
	dev_t last_dev = 0;
	ino_t last_ino = 0;
	for (size_t i = 0; i < batch->n; i++) {
		struct pending *p = &batch->v[i];
		int r = 0;
		char why[160];
		if (!whys || whys[i][0]) {
			snprintf(why, sizeof why, "%s", whys ? whys[i] : "out of memory");
			r = -1;
		}
		if (r == 0 && (!synced || p->held.st.st_dev != batch->v[0].held.st.st_dev) &&
		    fsync(p->lockfd) < 0) {
			snprintf(why, sizeof why, "cannot make the new file durable: %s", strerror(errno));
			r = -1;
		}
		if (r == 0)
			r = replace_still_held(&p->held, p->dirfd, p->name, why, sizeof why);
		if (r == 0 && (r = replace_commit(p->dirfd, p->tmp, p->name)) < 0)
			snprintf(why, sizeof why, "cannot replace it: %s", strerror(errno));
		if (r == 0) {
			progress_clear(opt);
			if (!opt->quiet)
				puts(p->line);
			count_outcome(opt, tally, DONE, p->path);
			record_done(opt, record, p->path, p->img, p->interp);
			if (p->dir_dev != last_dev || p->dir_ino != last_ino) {
				fsync(p->dirfd);	/* make the renames durable */
				last_dev = p->dir_dev;
				last_ino = p->dir_ino;
			}
		} else {
			complain(opt, p->path, "error: %s; left as it was", why);
			discard_temp(opt, p->path, p->dirfd, p->tmp);
			count_outcome(opt, tally, FAILED, p->path);
			failed++;
		}
		close(p->lockfd);	/* and with it the temporary's lock */
		close(p->held.fd);	/* and with it the lease */
		close(p->dirfd);
		free(p->tmp);
		free(p->path);
		free(p->name);
		free(p->img);
	}
	free(whys);
	batch->n = 0;
	return failed;
}

bool batch_holds(const struct batch *batch, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < batch->n; i++)
		if (batch->v[i].held.st.st_dev == dev && batch->v[i].held.st.st_ino == ino)
			return true;
	return false;
}

int queue_replacement(const struct options *opt, struct batch *batch, const struct stat *dir_st,
		      struct file_job *j, const char *line)
{
	const char *path = j->path, *img = j->img, *name = j->name, *interp = j->interp;
	int dirfd = j->dfd;
	char *why = j->why;
	size_t cap = sizeof j->why;
	char tmp[NAME_MAX + 1];
	struct pending *p = &batch->v[batch->n];
	memset(p, 0, sizeof *p - sizeof p->line);
	p->lockfd = -1;
	if (replace_hold(&p->held, j->fd, &j->st, dirfd, dir_st, why, cap) < 0)
		return -1;
	p->dir_dev = dir_st->st_dev;
	p->dir_ino = dir_st->st_ino;
	p->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	int fd = p->dirfd < 0 ? (snprintf(why, cap, "%s", strerror(errno)), -1)
			      : replace_make_temp(p->dirfd, name, tmp, sizeof tmp, why, cap);
	if (fd < 0) {
		replace_release(&p->held);
		if (p->dirfd >= 0)
			close(p->dirfd);
		return -1;
	}
	int r = patch_plan_write(fd, j->bytes, &j->plan);
	if (r < 0)
		snprintf(why, cap, "cannot write: %s", strerror(-r));
	/* its lock, on a descriptor that does not write (an exec of the
	 * renamed program would fail with ETXTBSY while one does) */
	else if ((p->lockfd = replace_lock_again(p->dirfd, tmp)) < 0)
		snprintf(why, cap, "cannot lock the file beside it: %s", strerror(errno)), r = -1;
	if (close(fd) < 0 && r == 0)
		snprintf(why, cap, "cannot write: %s", strerror(errno)), r = -1;
	if (r == 0 && (!(p->tmp = strdup(tmp)) || !(p->path = strdup(path)) || !(p->name = strdup(name)) ||
		       (img && !(p->img = strdup(img))))) {
		snprintf(why, cap, "out of memory"), r = -1;
	}
	if (r < 0) {
		free(p->tmp);
		free(p->path);
		free(p->name);
		free(p->img);
		replace_release(&p->held);
		discard_temp(opt, path, p->dirfd, tmp);
		if (p->lockfd >= 0)
			close(p->lockfd);
		close(p->dirfd);
		return -1;
	}
	snprintf(p->line, sizeof p->line, "%s", line);
	p->interp = interp;
	batch->n++;
	return 0;
}

/* Files a batch may hold: each holds three descriptors (the original, its
 * directory, its temporary's lock), so the limit on them is raised as far
 * as it may go and the batch kept well under it. */
static size_t batch_max(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 64;
	if (rl.rlim_cur < rl.rlim_max && rl.rlim_cur < 4096) {
		rlim_t want = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
		struct rlimit more = { want, rl.rlim_max };
		if (setrlimit(RLIMIT_NOFILE, &more) == 0)
			rl.rlim_cur = want;
	}
	size_t room = rl.rlim_cur > 128 ? (size_t)(rl.rlim_cur - 64) / 3 : 16;
	return room < BATCH_MAX ? room : BATCH_MAX;
}

int batch_new(struct batch *batch)
{
	batch->n = 0;
	batch->max = batch_max();
	batch->v = calloc(batch->max, sizeof *batch->v);
	return batch->v ? 0 : -1;
}

