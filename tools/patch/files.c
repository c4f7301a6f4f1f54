/* SPDX-License-Identifier: MIT */
#include "files.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/base/array.h"
#include "../../common/base/identity.h"
#include "../../common/base/inroot.h"
#include "../../common/base/sys.h"
#include "../../common/elf/elfread.h"
#include "batch.h"
#include "elfpatch/usescuda.h"

static enum outcome skip_for_kind(const struct elf_facts *f)
{
	switch (f->kind) {
	case FOUND_NOT_ELF: return SKIP_NOT_ELF;
	case FOUND_SCRIPT: return SKIP_SCRIPT;
	case FOUND_OBJECT: return SKIP_OBJECT;
	case FOUND_LIBRARY: return SKIP_LIBRARY;
	case FOUND_STATIC: return SKIP_STATIC;
	case FOUND_CUDALOAD: return SKIP_CUDALOAD;
	default: return DONE;
	}
}

int judge_library(void *ctx, int fd, const char *path, char *why, size_t cap)
{
	(void)ctx;
	const char *base = strrchr(path, '/');
	if (base && elfpatch_needed_is_cuda(base + 1)) {
		snprintf(why, cap, "a CUDA library");	/* the name a DT_NEEDED would give */
		return 1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < EI_NIDENT)
		return -1;
	size_t len;
	char err[128];
	unsigned char *img = replace_read(fd, &st, &len, err, sizeof err);
	if (!img)
		return -1;
	struct cuda_use use;
	int r = usescuda_image(img, len, USESCUDA_ALL, &use, err, sizeof err);
	free(img);
	if (r < 0)
		return -1;
	if (use.sign == CUDA_SIGN_NONE)
		return 0;
	snprintf(why, cap, "%s", use.why);
	return 1;
}

/* path as an absolute path, its links left for the image to resolve. */
static bool absolute(const char *path, char *out, size_t cap)
{
	char cwd[CL_PATH_MAX];
	if (path[0] == '/')
		return snprintf(out, cap, "%s", path) < (int)cap;
	return getcwd(cwd, sizeof cwd) && snprintf(out, cap, "%s/%s", cwd, path) < (int)cap;
}

bool program_path(const struct options *opt, const char *path, const char *img, char *out,
		  size_t cap)
{
	char real[CL_PATH_MAX];
	if (!img)
		return absolute(path, out, cap);
	return closure_resolve(opt->root_abs, img, real, sizeof real) == 0 &&
	       host_path(opt, real, out, cap);
}

/* Is a program with no sign of CUDA of its own a CUDA program through the
 * libraries it loads, or, a Python interpreter, through its packages
 * (closure.h, pysite.h)?  The way into why. */
static bool reaches_cuda(const struct options *opt, const struct loads *loads, const char *path,
			 const char *img, char *why, size_t cap)
{
	char abs[CL_PATH_MAX];
	if (!loads->closure || !loads->pysite || !program_path(opt, path, img, abs, sizeof abs))
		return false;
	int r = closure_uses_cuda(loads->closure, abs, why, cap);
	if (r == 0)
		r = pysite_uses_cuda(loads->pysite, abs, why, cap);
	if (r < 0)
		complain(opt, path, "warning: out of memory while following what it loads");
	return r > 0;
}

void dir_cache_drop(struct dir_cache *dirs)
{
	if (dirs->fd >= 0)
		close(dirs->fd);
	free(dirs->key);
	dirs->key = NULL;
	dirs->fd = -1;
}

/* The directory that holds a file, open, and the file's name in it: with
 * --root, img resolved inside the image (inroot.h); else path's directory
 * as this machine resolves it.  The descriptor is lent until the next call
 * (dirs); -errno when it cannot be opened. */
static int dir_of(const struct options *opt, struct dir_cache *dirs, const char *path,
		  const char *img, char *name, size_t cap)
{
	const char *p = img ? img : path, *slash = strrchr(p, '/');
	const char *base = slash ? slash + 1 : p;
	size_t dl = slash ? (size_t)(slash - p) : 0;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -EISDIR;
	if (strlen(base) >= cap)
		return -ENAMETOOLONG;
	strcpy(name, base);
	/* the key: "i" or "h" (image or host), then the directory */
	char *key = malloc(dl + 3);
	if (!key)
		return -ENOMEM;
	key[0] = img ? 'i' : 'h';
	if (slash && dl == 0)
		strcpy(key + 1, "/");
	else if (!slash)
		strcpy(key + 1, ".");
	else
		snprintf(key + 1, dl + 2, "%.*s", (int)dl, p);
	if (dirs->key && strcmp(dirs->key, key) == 0) {
		free(key);
		return dirs->fd;
	}
	dir_cache_drop(dirs);
	int fd = img ? inroot_open(opt->rootfd, key + 1, O_RDONLY | O_DIRECTORY)
		     : open(key + 1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fd = img ? fd : -errno;
		free(key);
		return fd;
	}
	if (fstat(fd, &dirs->st) < 0) {
		int e = errno;
		close(fd);
		free(key);
		return -e;
	}
	dirs->key = key;
	dirs->fd = fd;
	return fd;
}

/* The file opened in its directory, a regular file, and read whole:
 * DONE, else FAILED (said) or SKIP_SPECIAL (said when it was named). */
static enum outcome open_and_read(const struct options *opt, struct dir_cache *dirs,
				  struct tally *tally, struct file_job *j)
{
	j->dfd = dir_of(opt, dirs, j->path, j->img, j->name, sizeof j->name);
	j->fd = j->dfd < 0 ? (errno = -j->dfd, -1)
			   : openat(j->dfd, j->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (j->fd < 0) {
		complain(opt, j->path, "error: %s", strerror(errno));
		return FAILED;
	}
	if (fstat(j->fd, &j->st) < 0 || !S_ISREG(j->st.st_mode)) {
		close(j->fd);
		j->fd = -1;
		if (j->named) {
			say(opt, j->path, "skipped: not a regular file");
			tally->named_skipped++;
		}
		return SKIP_SPECIAL;
	}
	j->bytes = replace_read(j->fd, &j->st, &j->len, j->why, sizeof j->why);
	if (!j->bytes) {
		complain(opt, j->path, "error: %s", j->why);
		return FAILED;
	}
	return DONE;
}

/* What the file is (elfpatch_inspect), and why it is a CUDA program: its
 * own sign, else what it loads, asked where that decides (a walk,
 * --check) or is said (-v, --dry-run).  DONE, or FAILED (said). */
static enum outcome what_it_is(const struct options *opt, const struct loads *loads,
			       struct file_job *j)
{
	struct elf_facts *f = &j->f;
	if (elfpatch_inspect(j->bytes, j->len, f, j->why, sizeof j->why) < 0) {
		complain(opt, j->path, "error: %s", j->why);
		return FAILED;
	}
	j->cuda_why = f->uses_cuda ? f->cuda_lib : NULL;
	if (f->kind == FOUND_DYNAMIC && !f->uses_cuda && !f->recorded[0] && opt->action != RESTORE &&
	    ((!j->named && !opt->all) || opt->action == CHECK || opt->dry_run || opt->verbose) &&
	    reaches_cuda(opt, loads, j->path, j->img, j->reach, sizeof j->reach)) {
		f->uses_cuda = true;
		j->cuda_why = j->reach;
	}
	return DONE;
}

/* One of cudaload's own programs (its identity note) is never patched,
 * so never counted as unpatched: SKIP_CUDALOAD, said when named or -v. */
static enum outcome leave_own_program(const struct options *opt, struct tally *tally,
				      const struct file_job *j)
{
	if (j->named || opt->verbose)
		say(opt, j->path, "skipped: one of cudaload's own programs (its identity note): "
		    "the verifier must judge each driver with that driver");
	tally->named_skipped += j->named;
	return SKIP_CUDALOAD;
}

/* --check: is it patched?  DONE when it is, SKIP_NOT_PATCHED for a named
 * or CUDA program that is not, else why it is no program to patch. */
static enum outcome check_file(const struct options *opt, struct tally *tally,
			       const struct file_job *j)
{
	const struct elf_facts *f = &j->f;
	enum outcome o = skip_for_kind(f);
	if (o != DONE) {
		if (j->named) {
			say(opt, j->path, "%s", outcome_name(o));
			tally->named_skipped++;
		}
	} else if (f->recorded[0]) {
		say(opt, j->path, "patched, interpreter %s, original %s%s", f->interp, f->recorded,
		    f->patched ? "" : " (rewritten since: --restore needs --force)");
	} else if (j->named || f->uses_cuda) {
		say(opt, j->path, "not patched, interpreter %s%s%s", f->interp,
		    f->uses_cuda ? ", uses CUDA: " : "", j->cuda_why ? j->cuda_why : "");
		tally->check_unpatched++;
		o = SKIP_NOT_PATCHED;
	} else {
		o = SKIP_NO_CUDA;
	}
	return o;
}

/* --restore: the plan that gives a patched program back its original
 * (with --force, after a rewrite, its original interpreter).  DONE, else
 * why not (FAILED said). */
static enum outcome plan_restore(const struct options *opt, struct file_job *j)
{
	const struct elf_facts *f = &j->f;
	if (f->kind != FOUND_DYNAMIC || !f->recorded[0])
		return f->kind != FOUND_DYNAMIC ? skip_for_kind(f) : SKIP_NOT_PATCHED;
	if (elfpatch_plan_restore(j->bytes, j->len, &j->plan, j->why, sizeof j->why) == 0)
		return DONE;
	if (!opt->force) {
		complain(opt, j->path, "error: %s", j->why);
		return FAILED;
	}
	if (elfpatch_plan_force_restore(j->bytes, j->len, &j->plan, j->why, sizeof j->why) < 0) {
		complain(opt, j->path, "error: %s", j->why);
		return FAILED;
	}
	j->forced = true;
	return DONE;
}

/* The plan that patches a dynamic program for j->interp: DONE, else why
 * not (already patched, another machine, no CUDA in a walk, already this
 * interpreter; FAILED said). */
static enum outcome plan_patch(const struct options *opt, struct file_job *j)
{
	const struct elf_facts *f = &j->f;
	enum outcome o = skip_for_kind(f);
	if (o == DONE && f->recorded[0])
		o = SKIP_PATCHED;
	else if (o == DONE && f->machine != j->machine)
		o = SKIP_MACHINE;
	else if (o == DONE && !j->named && !opt->all && !f->uses_cuda)
		o = SKIP_NO_CUDA;
	else if (o == DONE && strcmp(f->interp, j->interp) == 0)
		o = SKIP_SAME;
	else if (o == DONE && elfpatch_plan_patch(j->bytes, j->len, j->interp, &j->plan, j->why,
						  sizeof j->why) < 0) {
		complain(opt, j->path, "error: %s", j->why);
		o = FAILED;
	}
	return o;
}

/* The planned file: said (--dry-run, DONE), or written beside it and
 * queued to replace it (QUEUED: counted once in place), else FAILED (said). */
static enum outcome replace_file(const struct options *opt, struct run *run, struct file_job *j)
{
	const struct elf_facts *f = &j->f;
	char line[CL_PATH_MAX + 128];
	if (opt->action == RESTORE)
		snprintf(line, sizeof line, "%s: %srestored, interpreter %s%s", j->path,
			 opt->dry_run ? "would be " : "", f->recorded,
			 j->forced ? " (not byte-identical: the file was rewritten after patching)" : "");
	else
		snprintf(line, sizeof line, "%s: %spatched, interpreter %s (was %s)%s%s%s", j->path,
			 opt->dry_run ? "would be " : "", j->interp, f->interp,
			 j->plan.grew ? ", grown" : "",
			 !opt->dry_run && !opt->verbose ? ""
			 : j->cuda_why ? "; uses CUDA: " : "; named, no sign of CUDA",
			 (opt->dry_run || opt->verbose) && j->cuda_why ? j->cuda_why : "");
	if (opt->dry_run) {
		progress_clear(opt);
		puts(line);
		return DONE;
	}
	if (queue_replacement(opt, &run->batch, &run->dirs.st, j, line) < 0) {
		complain(opt, j->path, "error: %s; left as it was", j->why);
		return FAILED;
	}
	j->fd = -1;	/* the queue's now */
	if (run->batch.n == run->batch.max)
		flush_batch(opt, &run->batch, &run->tally, &run->record);
	return QUEUED;
}

/* Why a file is left as it is (o), said for a named file, and in a walk
 * for an already patched one and for CUDA programs it had to leave out. */
static void say_unchanged(const struct options *opt, struct tally *tally, const struct file_job *j,
			  enum outcome o)
{
	if (o == SKIP_PATCHED) {
		say(opt, j->path, "already patched, original interpreter %s", j->f.recorded);
	} else if (o == SKIP_SAME || (o == SKIP_NOT_PATCHED && opt->action == RESTORE)) {
		if (j->named)
			say(opt, j->path, "skipped: %s", outcome_name(o));	/* already as asked */
	} else if (o != FAILED && (j->named || (j->f.uses_cuda && (o == SKIP_MACHINE || o == SKIP_LINKS)))) {
		/* named files, and CUDA programs a walk had to leave out */
		if (o == SKIP_MACHINE) {
			char a[24], b[24];
			say(opt, j->path, "skipped: for %s, cudaload is for %s",
			    elfread_machine_label(j->f.machine, a, sizeof a),
			    elfread_machine_label(j->machine, b, sizeof b));
		} else if (o == SKIP_LINKS) {
			say(opt, j->path, "skipped: %lu hard links (--break-links patches this name only)",
			    (unsigned long)j->st.st_nlink);
		} else {
			say(opt, j->path, "skipped: %s", outcome_name(o));
		}
		if (j->named)
			tally->named_skipped++;
	}
}

/* Restored or patched as opt->action says, when it should be and its links
 * allow (--break-links); else why not said. */
static enum outcome change_file(const struct options *opt, struct run *run, struct file_job *j)
{
	enum outcome o = opt->action == RESTORE ? plan_restore(opt, j) : plan_patch(opt, j);
	if (o == DONE && j->st.st_nlink > 1 && !opt->break_links)
		o = SKIP_LINKS;
	if (o == DONE)
		return replace_file(opt, run, j);
	say_unchanged(opt, &run->tally, j, o);
	return o;
}

/* What a file's steps hold, given back (not the queue's descriptor). */
static void release_file(struct file_job *j)
{
	patch_plan_free(&j->plan);
	free(j->bytes);
	if (j->fd >= 0)
		close(j->fd);
}

enum outcome process_file(const struct options *opt, struct run *run, const char *path,
			  const char *img, bool named, const char *interp, int machine)
{
	struct file_job j = { .path = path, .img = img, .named = named, .interp = interp,
			      .machine = machine, .fd = -1 };
	enum outcome o = open_and_read(opt, &run->dirs, &run->tally, &j);
	if (o == DONE)
		o = what_it_is(opt, &run->loads, &j);
	if (o == DONE)
		o = j.f.own_program && opt->action != RESTORE ? leave_own_program(opt, &run->tally, &j)
		    : opt->action == CHECK ? check_file(opt, &run->tally, &j)
		    : change_file(opt, run, &j);
	release_file(&j);
	return o;
}

void sweep_one(const struct options *opt, int dirfd, const char *name, const char *path)
{
	char why[128];
	if (!opt->sweep)
		return;
	int r = replace_remove_stale(dirfd, name, why, sizeof why);
	if (r > 0)
		say(opt, path, "removed: a temporary copy left by a run that was killed");
	else if (r < 0)
		complain(opt, path, "warning: a temporary copy left by a run that was killed could not be "
			 "removed: %s", why);
	else if (opt->verbose)
		say(opt, path, "left: a temporary copy another run is writing, or another user's");
}

void sweep_dir_of(const struct options *opt, struct dir_cache *dirs, struct swept *swept,
		  const char *path, const char *img)
{
	char name[NAME_MAX + 1];
	struct stat st;
	int dfd = opt->sweep ? dir_of(opt, dirs, path, img, name, sizeof name) : -1;
	if (dfd < 0 || fstat(dfd, &st) < 0)
		return;
	for (size_t i = 0; i < swept->n; i++)
		if (swept->v[i].dev == st.st_dev && swept->v[i].ino == st.st_ino)
			return;
	if (array_room(&swept->v, swept->n, &swept->cap, sizeof *swept->v, 16) < 0)
		return;
	swept->v[swept->n].dev = st.st_dev;
	swept->v[swept->n++].ino = st.st_ino;
	int own = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = own >= 0 ? fdopendir(own) : NULL;
	if (!d) {
		if (own >= 0)
			close(own);
		return;
	}
	const char *slash = strrchr(path, '/');
	int dl = slash ? (int)(slash - path) : 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!replace_is_temp(e->d_name))
			continue;
		char shown[CL_PATH_MAX];
		snprintf(shown, sizeof shown, "%.*s%s%s", dl, path, slash ? "/" : "", e->d_name);
		sweep_one(opt, dirfd(d), e->d_name, shown);
	}
	closedir(d);
}

