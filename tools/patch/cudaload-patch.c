/* SPDX-License-Identifier: MIT */
/*
 * cudaload-patch: make programs start through cudaload, and undo it.
 *
 *   cudaload-patch [OPTION]... PATH...      (options anywhere; -- ends them)
 *
 * A file named on the command line is patched when it is a dynamically linked
 * executable.  In a directory walk only programs that use CUDA are (a CUDA
 * library in DT_NEEDED, embedded device code, or "libcuda.so" in read-only
 * data for programs that dlopen it; see usescuda.h), in the program or in a
 * library it loads (closure.h, inside the image of --root), or a Python
 * interpreter whose packages hold one (pysite.h), unless --all.  Every
 * write goes to a temporary file in the same directory, made durable, then
 * renamed over the original, keeping its mode, owner and extended attributes:
 * the original is intact or fully replaced, never half-written (see
 * flush_batch), and never replaced when another process wrote, truncated or
 * replaced it meanwhile (replace.h).  A file with several hard links is
 * skipped unless --break-links (then only the named link is patched).
 *
 * Run as root on this system, what is patched and restored is also kept in
 * a record (common/stores/patchlist.h) that --reapply and --restore-recorded
 * work from.
 *
 * With --root, every path in the image (the walk, each program, its
 * replacement, a record kept there, and what --install writes) is resolved
 * inside the image as chroot would (inroot.h): a link out of the image
 * never leads a read of a program or any write out of it.  A temporary
 * that a killed run left in a directory walked (or beside a file named) is
 * removed when it is the running user's and nobody holds its lock
 * (replace.h), and said.
 *
 * Per-file results and the summary go to stdout, errors and warnings to
 * stderr.  Exit status: 0 every named file done (or already so), 1 an error,
 * 2 a named file skipped, 100 a usage error.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../common/base/array.h"
#include "../../common/elf/elfread.h"
#include "../../common/base/identity.h"
#include "closure.h"
#include "elfpatch.h"
#include "../../common/base/inroot.h"
#include "../../common/stores/patchlist.h"
#include "pysite.h"
#include "replace.h"
#include "elfpatch/usescuda.h"

#ifndef CUDALOAD_VERSION
#define CUDALOAD_VERSION "0.1.0"
#endif

#define EXIT_USAGE 100
#define EXIT_SKIPPED 2

IDENTITY_NOTE(IDENTITY_NOTE_TYPE_TOOL);

enum action { PATCH, RESTORE, CHECK };

/* What became of a file.  The last two are not counted: a queued file
 * counts once it is in place, and cudaload itself is no skip. */
enum outcome {
	DONE, FAILED, SKIP_NOT_ELF, SKIP_SCRIPT, SKIP_STATIC, SKIP_LIBRARY, SKIP_OBJECT,
	SKIP_MACHINE, SKIP_PATCHED, SKIP_NO_CUDA, SKIP_LINKS, SKIP_SAME, SKIP_NOT_PATCHED,
	SKIP_SPECIAL, SKIP_CUDALOAD, QUEUED, N_OUTCOMES
};

static const char *const outcome_names[N_OUTCOMES] = {
	"done", "failed", "not ELF", "script", "static", "library", "object file",
	"other machine", "already patched", "no CUDA", "hard links", "already this interpreter",
	"not patched", "not a regular file", "cudaload itself", "queued",
};

static const char *outcome_name(enum outcome o)
{
	return o < N_OUTCOMES ? outcome_names[o] : "?";
}

/* The run's options, as main's steps plan it (a field's comment names the
 * step that sets it; read_command_line sets the options): main's to fill,
 * every other step's to read (const). */
struct options {
	enum action action;
	const char *interp;		/* --interp, else choose_interpreter's */
	int machine;			/* choose_interpreter */
	bool all, dry_run, break_links, force, verbose, quiet;
	const char *root;		/* --root: the image the programs run in */
	int rootfd;			/* ... open (O_PATH), -1 without (open_image) */
	char root_abs[CL_PATH_MAX];	/* ... absolute, cleaned (inroot_absolute) */
	char root_real[CL_PATH_MAX];	/* ... its links resolved here (realpath) */
	bool sweep;			/* remove the temporaries of a killed run (main) */
	bool progress;			/* a running count on a terminal (main) */
	bool recording;			/* keep the record of patched programs (open_record) */
	const char *record_file;	/* ... where (open_record) */
	const char *record_img;		/* the record's path in the image, when it is there */
	char record_abs[CL_PATH_MAX];	/* ... what record_img points into (open_record) */
	char self_interp[CL_PATH_MAX];	/* the cudaload beside this program (choose_interpreter) */
	int install_mode;		/* --install: --mode, -1: the source's (check_combination) */
	bool no_clobber;		/* --install: --no-clobber */
};

/* What became of the files, for the summary and the exit status (count). */
struct tally {
	unsigned long count[N_OUTCOMES];
	unsigned long seen;
	unsigned long named_skipped;	/* exit status 2 */
	unsigned long check_unpatched;	/* --check: programs not patched */
};

static void progress_clear(const struct options *opt)
{
	if (opt->progress)
		fputs("\r\033[K", stderr);
}

/* A result for one file, on stdout. */
__attribute__((format(printf, 3, 4)))
static void say(const struct options *opt, const char *path, const char *fmt, ...)
{
	va_list ap;
	if (opt->quiet)
		return;
	progress_clear(opt);
	printf("%s: ", path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* An error or warning about one file, on stderr (stdout flushed first so
 * that both keep their order on a terminal). */
__attribute__((format(printf, 3, 4)))
static void complain(const struct options *opt, const char *path, const char *fmt, ...)
{
	va_list ap;
	progress_clear(opt);
	fflush(stdout);
	fprintf(stderr, "%s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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

/* One file on its way through process_file: what each of its steps found.
 * open_and_read, what_it_is, then one of leave_own_program, check_file or
 * change_file (plan_restore or plan_patch, then replace_file or
 * say_unchanged); release_file gives back what it holds. */
struct file_job {
	/* what is asked (process_file's arguments) */
	const char *path, *img;		/* as said, and in the image (--root) */
	bool named;			/* named on the command line, not walked */
	const char *interp;		/* patched for it, a cudaload for machine */
	int machine;

	/* the file, open and read (open_and_read) */
	int dfd;			/* its directory, dir_of's (lent) */
	char name[NAME_MAX + 1];	/* its name there */
	int fd;				/* the file: -1 once closed, or the queue's */
	struct stat st;
	unsigned char *bytes;		/* all of it, len bytes */
	size_t len;

	/* what it is (what_it_is) */
	struct elf_facts f;
	const char *cuda_why;		/* why it is a CUDA program, or NULL */
	char reach[640];		/* ... when what it loads says so */

	/* what is done to it (plan_restore, plan_patch) */
	struct patch_plan plan;
	bool forced;			/* a restore that is not byte-identical */

	char why[512];			/* what went wrong, for any step */
};

/*
 * Replacing files, in batches.  Each new file is written in full beside its
 * original, the running user's and locked (replace.h); then each gets the
 * original's owner, mode and extended attributes, one syncfs() makes the
 * whole batch durable, each file is renamed over its original, and each
 * directory touched is fsynced.  A crash at any point leaves every original
 * intact or fully replaced (at worst, a power cut or SIGKILL, a stray
 * ".NAME.cudaload-XXXXXX" beside it, which the next run removes), and costs
 * one flush per batch instead of one per file.  Each original stays open
 * and held (replace.h) until its rename, with its directory and its
 * temporary's lock: a batch is bounded by descriptors too (batch_max).
 */
#define BATCH_MAX 256

/* The directory of the files in hand (dir_of): files in a row share one,
 * so the last one stays open. */
struct dir_cache {
	char *key;		/* "i" (in the image) or "h" (here), then the directory as named */
	int fd;			/* -1: none */
	struct stat st;		/* its fstat */
};

struct pending {
	char *tmp, *path, *name;	/* tmp and name in dirfd; path as said */
	char *img;			/* the path in the image, with --root */
	int dirfd;			/* the directory, open (a copy of dir_of's) */
	dev_t dir_dev;			/* ... its identity */
	ino_t dir_ino;
	int lockfd;			/* the temporary, read-only: its lock */
	struct held held;		/* the original, as it was read */
	const char *interp;		/* the record's: what it was patched for */
	char line[CL_PATH_MAX + 768];	/* what to report once it is in place */
};

/* The replacements queued (queue_replacement) until flush_batch puts them
 * in place. */
struct batch {
	struct pending *v;	/* max slots (batch_new) */
	size_t n, max;
};

/* The directories whose temporaries of a killed run were swept: each
 * looked at once (sweep_dir_of). */
struct swept {
	struct { dev_t dev; ino_t ino; } *v;
	size_t n, cap;
};

/* What a program loads, judged once per run: its libraries (closure.h)
 * and a Python's packages (pysite.h); both NULL when not followed. */
struct loads {
	struct closure *closure;
	struct pysite *pysite;
};

/* What the files' steps change as they go, from the listing to the
 * summary. */
struct run {
	struct tally tally;
	struct patchlist record;	/* kept in step with each file (record_done) */
	struct batch batch;
	struct dir_cache dirs;		/* the directory in hand (dir_of) */
	struct swept swept;		/* the directories swept (sweep_dir_of) */
	struct loads loads;		/* (walk_and_process) */
};

static void count(const struct options *opt, struct tally *tally, int outcome, const char *path);

/* A path in the image as this machine names it: the root joined. */
static bool host_path(const struct options *opt, const char *img, char *out, size_t cap)
{
	return root_join(out, cap, opt->root_abs, img) == 0;
}

/* Keep the record in step with a file just patched for interp, or
 * restored: its name with every link resolved (inside the image, with
 * --root). */
static void record_done(const struct options *opt, struct patchlist *record, const char *path,
			const char *img, const char *interp)
{
	if (!opt->recording)
		return;
	char resolved[CL_PATH_MAX], joined[CL_PATH_MAX];
	char *abs = NULL;
	if (!img)
		abs = realpath(path, NULL);
	else if (closure_resolve(opt->root_abs, img, resolved, sizeof resolved) == 0 &&
		 host_path(opt, resolved, joined, sizeof joined))
		abs = strdup(joined);
	if (!abs)
		return;
	if (opt->action == RESTORE)
		patchlist_remove(record, abs);
	else if (patchlist_add(record, interp, abs) < 0)
		complain(opt, abs, "cannot be recorded (a newline in its name?)");
	free(abs);
}

/* A temporary that could not be removed is said, never left in silence. */
static void discard_temp(const struct options *opt, const char *path, int dirfd, const char *tmp)
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

static int flush_batch(const struct options *opt, struct batch *batch, struct tally *tally,
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
			count(opt, tally, DONE, p->path);
			record_done(opt, record, p->path, p->img, p->interp);
			if (p->dir_dev != last_dev || p->dir_ino != last_ino) {
				fsync(p->dirfd);	/* make the renames durable */
				last_dev = p->dir_dev;
				last_ino = p->dir_ino;
			}
		} else {
			complain(opt, p->path, "error: %s; left as it was", why);
			discard_temp(opt, p->path, p->dirfd, p->tmp);
			count(opt, tally, FAILED, p->path);
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

static bool batch_holds(const struct batch *batch, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < batch->n; i++)
		if (batch->v[i].held.st.st_dev == dev && batch->v[i].held.st.st_ino == ino)
			return true;
	return false;
}

/* Hold the job's original (j->name in j->dfd, whose fstat is dir_st; open
 * at j->fd, j->st as read), write its planned file beside it, and queue it
 * to replace the original, line to be said once it is in place.  The queue
 * owns j->fd from then; why not into j->why. */
static int queue_replacement(const struct options *opt, struct batch *batch,
			     const struct stat *dir_st, struct file_job *j, const char *line)
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

/* The rule (usescuda.h) for a library a program loads or a Python package
 * holds: closure.c and pysite.c ask it once per library and run. */
static int judge_library(void *ctx, int fd, const char *path, char *why, size_t cap)
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

/* The program at path (img in the image, with --root) as this machine
 * reaches it, absolute, for the closure and the Python packages: in an
 * image, its links resolved inside it first, so that what they read is
 * the image's. */
static bool program_path(const struct options *opt, const char *path, const char *img, char *out,
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

static void dir_cache_drop(struct dir_cache *dirs)
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

/* One file: patched for interp (a cudaload for machine), restored or
 * checked as opt->action says.  The interpreter is the caller's: --reapply
 * gives each recorded program its own.  img: the file's path in the image
 * (--root), where it is looked up.  What became of it. */
static enum outcome process_file(const struct options *opt, struct run *run, const char *path,
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

static void count(const struct options *opt, struct tally *tally, int outcome, const char *path)
{
	if (outcome == QUEUED || outcome == SKIP_CUDALOAD)
		return;	/* counted once in place; cudaload itself is no skip */
	tally->count[outcome]++;
	tally->seen++;
	if (opt->progress && tally->seen % 64 == 0)
		fprintf(stderr, "\r\033[K%lu files, %lu %s, %lu failed: %.60s", tally->seen,
			tally->count[DONE], opt->action == RESTORE ? "restored" : "patched",
			tally->count[FAILED], path);
}

/* Every argument is listed first, then the files are patched: renaming
 * into a directory while reading it could show a file twice or a
 * temporary, and what one argument holds (a virtual environment) can decide
 * a program another argument names, whatever their order. */
struct listed_file {
	char *path;
	char *img;		/* its path in the image, with --root */
	bool named;
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
};

struct listing {
	struct listed_file *v;
	size_t n, cap;
	bool oom;
};

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

/* A temporary of ours met in a directory (dirfd) at path: never patched;
 * removed, and said, when a run that was killed left it (replace.h). */
static void sweep_one(const struct options *opt, int dirfd, const char *name, const char *path)
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

static void sweep_dir_of(const struct options *opt, struct dir_cache *dirs, struct swept *swept,
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
		count(opt, tally, FAILED, w->path);
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
				count(opt, tally, FAILED, w->path);
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
			count(opt, tally, FAILED, w->path);
			continue;
		}
		struct stat st;
		if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			complain(opt, w->path, "error: cannot read: %s", strerror(errno));
			count(opt, tally, FAILED, w->path);
		} else if (S_ISDIR(st.st_mode)) {
			int sub = depth < 4096 ? openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
					       : (errno = ELOOP, -1);
			if (sub < 0) {
				complain(opt, w->path, "error: cannot read: %s", strerror(errno));
				count(opt, tally, FAILED, w->path);
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
		count(opt, tally, FAILED, path);
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
		count(opt, tally, FAILED, path);
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

/* One argument listed: a file, or a directory walked (a link named: what
 * it points to); the temporaries a killed run left beside a file swept. */
static void list_argument(const struct options *opt, struct run *run, struct listing *listed,
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
		count(opt, &run->tally, FAILED, path);
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
		count(opt, &run->tally, FAILED, arg);
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

static void process_listed(const struct options *opt, struct run *run, struct listing *listed)
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
			count(opt, &run->tally, process_file(opt, run, p, listed->v[i].img, listed->v[i].named,
							    opt->interp, opt->machine), p);
		free(listed->v[i].path);
		free(listed->v[i].img);
	}
	free(listed->v);
	memset(listed, 0, sizeof *listed);
}

/* The machine of the ELF file open at fd (taken), or -1. */
static int machine_of_fd(int fd)
{
	struct elf_file ef;
	char why[128];
	if (fd < 0)
		return -1;
	int m = elfread_open_fd(&ef, fd, why, sizeof why) == 0 ? ef.machine : -1;
	elfread_release(&ef);
	close(fd);
	return m;
}

static int interp_machine(const char *path)
{
	return machine_of_fd(open(path, O_RDONLY | O_CLOEXEC));
}

/* A file the programs will name (an interpreter), opened where they will
 * see it: in the image with --root.  fd, or -errno. */
static int open_as_seen(const struct options *opt, const char *path, int flags)
{
	if (opt->rootfd >= 0)
		return inroot_open(opt->rootfd, path, flags);
	int fd = open(path, flags | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

/* The cudaload installed in the image root, as the image names it, or NULL. */
static const char *image_cudaload(const struct options *opt)
{
	static const char *const places[] = { "/usr/bin/cudaload", "/usr/local/bin/cudaload" };
	for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
		char why[128];
		struct stat st;
		struct elf_facts f;
		size_t len;
		int fd = open_as_seen(opt, places[i], O_RDONLY);
		unsigned char *img = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
					     ? replace_read(fd, &st, &len, why, sizeof why) : NULL;
		bool found = img && elfpatch_inspect(img, len, &f, why, sizeof why) == 0 &&
			     f.kind == FOUND_CUDALOAD;
		free(img);
		if (fd >= 0)
			close(fd);
		if (found)
			return places[i];
	}
	return NULL;
}

static int machine_by_name(const char *name)
{
	static const int known[] = { EM_X86_64, EM_AARCH64, EM_386, EM_ARM, EM_PPC64, EM_RISCV };
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(elfread_machine_name(known[i]), name) == 0)
			return known[i];
	return -1;
}

/* ---- the command line ----------------------------------------------------
 * One table: every option, its argument and its help line.  Options may come
 * anywhere among the paths, as --name VALUE or --name=VALUE; "--" ends them.
 * Options that pick what to do (a mode) exclude each other. */

enum opt_id { O_INTERP, O_MACHINE, O_ROOT, O_ALL, O_DRY_RUN, O_VERBOSE, O_BREAK_LINKS, O_RESTORE,
	      O_FORCE, O_CHECK, O_REAPPLY, O_RESTORE_RECORDED, O_QUIET, O_NO_RECORD, O_INSTALL, O_MODE,
	      O_NO_CLOBBER, O_HELP, O_VERSION };

struct option_def {
	const char *name;	/* without the leading "--" */
	char short_name;	/* 0: none */
	const char *arg;	/* metavariable when it takes a value, else NULL */
	bool mode;		/* picks what to do: at most one */
	enum opt_id id;
	const char *help;
};

static const struct option_def options[] = {
	{ "interp", 0, "PATH", false, O_INTERP,
	  "cudaload as it will be on the target (default: the\n"
	  "cudaload beside this program); refused when it does\n"
	  "not exist here, unless --machine is given too" },
	{ "machine", 0, "M", false, O_MACHINE,
	  "the target machine (x86_64, aarch64 ...; default: --interp's)" },
	{ "root", 0, "DIR", false, O_ROOT,
	  "the image the programs run in: their libraries and\n"
	  "Python packages are looked for there, and every\n"
	  "path in it is resolved inside it (default: /)" },
	{ "all", 0, NULL, false, O_ALL,
	  "in directories, patch every dynamic program, not\n"
	  "only the CUDA ones" },
	{ "dry-run", 'n', NULL, false, O_DRY_RUN, "say what would be done and why, write nothing" },
	{ "verbose", 'v', NULL, false, O_VERBOSE,
	  "say why each file patched is a CUDA program" },
	{ "break-links", 0, NULL, false, O_BREAK_LINKS,
	  "patch files with several hard links (this name only)" },
	{ "restore", 0, NULL, true, O_RESTORE,
	  "give patched programs back their original, byte for byte" },
	{ "force", 0, NULL, false, O_FORCE,
	  "with --restore: on a file rewritten since (strip,\n"
	  "objcopy, patchelf), set the recorded original\n"
	  "interpreter back (no longer byte-identical)" },
	{ "check", 0, NULL, true, O_CHECK,
	  "report whether programs are patched, then a summary" },
	{ "reapply", 0, NULL, true, O_REAPPLY,
	  "patch again the recorded programs that lost their\n"
	  "patch (a package upgrade replaced them)" },
	{ "restore-recorded", 0, NULL, true, O_RESTORE_RECORDED,
	  "restore every recorded program" },
	{ "quiet", 'q', NULL, false, O_QUIET, "print errors and warnings only" },
	{ "no-record", 0, NULL, false, O_NO_RECORD,
	  "keep what is patched out of the record (an image)" },
	{ "install", 0, NULL, true, O_INSTALL,
	  "with --root, and SRC DEST as the paths: copy the file\n"
	  "or tree SRC of this machine to DEST as the image names\n"
	  "it, every path resolved inside the image" },
	{ "mode", 0, "MODE", false, O_MODE,
	  "with --install: the files' mode, in octal (default: SRC's)" },
	{ "no-clobber", 0, NULL, false, O_NO_CLOBBER,
	  "with --install: leave what the image has at DEST" },
	{ "help", 'h', NULL, true, O_HELP, "this help" },
	{ "version", 0, NULL, true, O_VERSION, "the version" },
};
#define N_OPTIONS (sizeof options / sizeof options[0])

static int finish(const struct options *opt, struct run *run);

/* The record, read and written; in the image when it lies there (the
 * programs' paths in it are the image's, as this machine names them).
 * A missing record is empty; lines that do not parse are said, and left. */
static int record_load(const struct options *opt, struct patchlist *record, char *why, size_t cap)
{
	int fd = opt->record_img ? inroot_open(opt->rootfd, opt->record_img, O_RDONLY)
				: open(opt->record_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && !opt->record_img)
		fd = -errno;
	char reason[160];
	int skipped;
	if (patchlist_read_fd(fd, record, &skipped, reason, sizeof reason) < 0) {
		snprintf(why, cap, "%s: %s", opt->record_file, reason);
		return -1;
	}
	if (skipped)
		fprintf(stderr, "cudaload-patch: %s: %d line%s skipped (%s)\n", opt->record_file, skipped,
			skipped == 1 ? "" : "s", reason);
	return 0;
}

static int record_save(const struct options *opt, const struct patchlist *record, char *why,
		       size_t cap)
{
	if (!opt->record_img)
		return patchlist_save(record, opt->record_file, why, cap);
	char name[NAME_MAX + 1];
	int dfd = inroot_parent(opt->rootfd, opt->record_img, true, name, sizeof name);
	if (dfd < 0) {
		snprintf(why, cap, "%s: %s", opt->record_file, strerror(-dfd));
		return -1;
	}
	int r = patchlist_save_at(record, dfd, name, opt->record_file, why, cap);
	close(dfd);
	return r;
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

/* An empty batch of batch_max() slots: 0, or -1 out of memory. */
static int batch_new(struct batch *batch)
{
	batch->n = 0;
	batch->max = batch_max();
	batch->v = calloc(batch->max, sizeof *batch->v);
	return batch->v ? 0 : -1;
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...);

/* --reapply: patch again each recorded program that is no longer patched
 * (a package upgrade put an unpatched copy in its place); --restore-recorded:
 * restore each one.  Programs that are gone leave the record. */
static int from_recorded(const struct options *opt, struct run *run, bool reapply)
{
	/* Work from a copy: finished files change the record as we go. */
	struct patchlist *record = &run->record, todo = { 0 };
	for (size_t k = 0; k < record->n; k++)
		if (patchlist_add(&todo, record->v[k].interp, record->v[k].path) < 0) {
			fprintf(stderr, "cudaload-patch: out of memory\n");
			patchlist_free(&todo);
			return 1;
		}
	if (batch_new(&run->batch) < 0) {
		fprintf(stderr, "cudaload-patch: out of memory\n");
		patchlist_free(&todo);
		return 1;
	}
	for (size_t k = 0; k < todo.n; k++) {
		const char *path = todo.v[k].path;
		struct stat st;
		enum outcome o;
		if (lstat(path, &st) < 0 && errno == ENOENT) {
			say(opt, path, "no longer exists; left the record");
			patchlist_remove(record, path);
			continue;
		}
		sweep_dir_of(opt, &run->dirs, &run->swept, path, NULL);
		const char *interp = todo.v[k].interp;
		if (reapply) {
			int machine = interp_machine(interp);
			if (machine < 0) {
				complain(opt, path, "error: its interpreter %s cannot be read here", interp);
				o = FAILED;
			} else {
				o = process_file(opt, run, path, NULL, true, interp, machine);
			}
		} else {
			o = process_file(opt, run, path, NULL, true, interp, opt->machine);
			if (o != DONE && o != QUEUED && o != FAILED)
				patchlist_remove(record, path);	/* nothing to restore */
		}
		count(opt, &run->tally, o, path);
	}
	flush_batch(opt, &run->batch, &run->tally, record);
	run->tally.named_skipped = 0;	/* already patched, or gone: nothing to report as 2 */
	int r = finish(opt, run);
	patchlist_free(&todo);
	return r;
}

/* ---- --install: patch-image.sh's writes into an image -------------------
 * A shell script cannot resolve a path inside an image: each of these is
 * resolved there (inroot.h), so a link of the image that points out of it
 * (usr -> /usr) leads no write out.  Files are written as patched programs
 * are (a locked temporary beside them, made durable, renamed into place);
 * links and directories made as they are.  Each step takes what it counts
 * (struct install_tally) and, where it writes a file, the run's directory
 * cache and sweep (a killed run's temporaries there are removed). */

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

static int install(const struct options *opt, struct run *run, const char *src, const char *dest)
{
	if (dest[0] != '/')
		return usage_error("--install %s %s: DEST is a path as the image names it (/usr/bin/...)",
				   src, dest);
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

static void print_help(FILE *to)
{
	fputs("usage: cudaload-patch [OPTION]... PATH...\n"
	      "       cudaload-patch --root DIR --install [--mode MODE] [--no-clobber] SRC DEST\n"
	      "Sets the program interpreter of executables to cudaload, recording the\n"
	      "original so cudaload runs each with the loader it was built for.  Named\n"
	      "files are patched when they are dynamically linked programs; directories\n"
	      "are walked (symlinks not followed) and there only CUDA programs are\n"
	      "patched: a CUDA library in DT_NEEDED, embedded device code (.nv_fatbin),\n"
	      "or \"libcuda.so\" in read-only data (programs that dlopen the driver).\n\n",
	      to);
	for (size_t i = 0; i < N_OPTIONS; i++) {
		const struct option_def *o = &options[i];
		char head[40];
		if (o->short_name)
			snprintf(head, sizeof head, "-%c, --%s", o->short_name, o->name);
		else
			snprintf(head, sizeof head, "    --%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		fprintf(to, "  %-24s", head);
		for (const char *h = o->help; *h;) {
			size_t n = strcspn(h, "\n");
			fprintf(to, "%.*s\n", (int)n, h);
			h += n;
			if (*h) {
				h++;
				fprintf(to, "  %-24s", "");
			}
		}
	}
	fputs("\nRun as root where " PATCHLIST_DIR " exists (the package makes it),\n"
	      "patched programs are recorded in " PATCHLIST_FILE " (or the file\n"
	      "CUDALOAD_PATCH_RECORD names) for --reapply and --restore-recorded.\n", to);
	fputs("\nExit status: 0 every named file is done (or already was), 1 an error,\n"
	      "2 a named file was skipped (script, static, other machine ...; skipped\n"
	      "files in walked directories do not count), 100 a usage error.\n"
	      "--check: 0 every named program is patched, 1 one is not (or an error),\n"
	      "2 a named file is not a dynamic program.\n", to);
}

static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("cudaload-patch: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(cudaload-patch --help lists the options)\n", stderr);
	return EXIT_USAGE;
}

static const struct option_def *find_option(const char *arg, const char **value)
{
	*value = NULL;
	if (arg[1] != '-') {	/* -h */
		for (size_t i = 0; i < N_OPTIONS; i++)
			if (options[i].short_name && arg[1] == options[i].short_name && !arg[2])
				return &options[i];
		return NULL;
	}
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);
	for (size_t i = 0; i < N_OPTIONS; i++) {
		if (strlen(options[i].name) == n && strncmp(options[i].name, name, n) == 0) {
			if (eq)
				*value = eq + 1;
			return &options[i];
		}
	}
	return NULL;
}

/* ---- main, as its steps ----------------------------------------------------
 * Read the command line; plan the walk (the image, the record, the
 * interpreter); list every argument and process each file; report.  Each
 * step answers 0, or the exit status having said why; what the command
 * line asked is in struct command_line, what the plan decided in struct
 * options (main's, filled by these steps and read by all the others), what
 * the files' steps change as they go in struct run. */

/* What the command line asked, beyond what it sets in struct options. */
struct command_line {
	const struct option_def *mode;	/* the option that picks what to do, or NULL */
	const char *machine;		/* --machine */
	const char *mode_arg;		/* --mode */
	bool interp_given;		/* --interp */
	bool no_record, install_given;
	enum { NAMED, REAPPLY, RESTORE_RECORDED } from_record;	/* the paths, or the record's */
	char **paths;			/* the paths, gathered in argv's own slots, in order */
	int npaths;
};

/* The options into opt and cl, the paths into cl->paths: an
 * unknown option, a value missing or one too many, two modes, are a usage
 * error. */
static int read_command_line(int argc, char **argv, struct command_line *cl, struct options *opt)
{
	cl->paths = argv + 1;
	bool options_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (options_done || a[0] != '-' || !a[1]) {
			cl->paths[cl->npaths++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			options_done = true;
			continue;
		}
		const char *value;
		const struct option_def *o = find_option(a, &value);
		if (!o)
			return usage_error("%s: unknown option", a);
		if (o->arg && !value) {
			if (i + 1 >= argc)
				return usage_error("%s needs a value", a);
			value = argv[++i];
		} else if (!o->arg && value) {
			return usage_error("%s takes no value", a);
		}
		if (o->mode) {
			if (cl->mode && cl->mode != o) {
				fprintf(stderr, "cudaload-patch: --%s and --%s exclude each other\n",
					cl->mode->name, o->name);
				return EXIT_USAGE;
			}
			cl->mode = o;
		}
		switch (o->id) {
		case O_INTERP: opt->interp = value; cl->interp_given = true; break;
		case O_MACHINE: cl->machine = value; break;
		case O_ALL: opt->all = true; break;
		case O_DRY_RUN: opt->dry_run = true; break;
		case O_VERBOSE: opt->verbose = true; break;
		case O_ROOT: opt->root = value; break;
		case O_BREAK_LINKS: opt->break_links = true; break;
		case O_FORCE: opt->force = true; break;
		case O_RESTORE: opt->action = RESTORE; break;
		case O_CHECK: opt->action = CHECK; break;
		case O_REAPPLY: cl->from_record = REAPPLY; break;
		case O_RESTORE_RECORDED: cl->from_record = RESTORE_RECORDED; opt->action = RESTORE; break;
		case O_QUIET: opt->quiet = true; break;
		case O_NO_RECORD: cl->no_record = true; break;
		case O_INSTALL: cl->install_given = true; break;
		case O_MODE: cl->mode_arg = value; break;
		case O_NO_CLOBBER: opt->no_clobber = true; break;
		case O_HELP: case O_VERSION: break;
		}
	}
	return 0;
}

/* Do the options go together, and with the paths?  --mode's value into
 * opt->install_mode. */
static int check_combination(const struct command_line *cl, struct options *opt)
{
	if (opt->force && opt->action != RESTORE)
		return usage_error("%s only goes with --restore", "--force");
	if ((cl->mode_arg || opt->no_clobber) && !cl->install_given)
		return usage_error("%s only goes with --install", cl->mode_arg ? "--mode" : "--no-clobber");
	if (cl->mode_arg) {
		char *end;
		long m = strtol(cl->mode_arg, &end, 8);
		if (!*cl->mode_arg || *end || m < 0 || m > 07777)
			return usage_error("--mode %s: not an octal mode", cl->mode_arg);
		opt->install_mode = (int)m;
	}
	if (cl->install_given && (!opt->root || cl->npaths != 2 || opt->dry_run))
		return usage_error("%s", !opt->root ? "--install writes into an image: give --root DIR"
				   : opt->dry_run ? "--install has no --dry-run"
				   : "--install takes two paths: SRC (here) and DEST (in the image)");
	if (cl->from_record != NAMED && cl->npaths)
		return usage_error("--%s takes no PATH", cl->mode->name);
	if (cl->npaths == 0 && cl->from_record == NAMED)
		return usage_error("%s", "no PATH given");
	return 0;
}

/* The image (--root), opened: every path in it resolved inside it from
 * here on, by the resolver CUDALOAD_PATCH_RESOLVER picks (the tests'). */
static int open_image(struct options *opt)
{
	/* Our own resolver where the kernel has openat2 too: the tests'. */
	const char *resolver = getenv("CUDALOAD_PATCH_RESOLVER");
	if (resolver && strcmp(resolver, "own") == 0)
		inroot_use_own(true);

	opt->rootfd = -1;
	if (opt->root && (inroot_absolute(opt->root, opt->root_abs, sizeof opt->root_abs) < 0 ||
			 (opt->rootfd = open(opt->root_abs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)) {
		fprintf(stderr, "cudaload-patch: --root %s: not a directory\n", opt->root);
		return EXIT_USAGE;
	}
	if (opt->root && !realpath(opt->root_abs, opt->root_real))
		snprintf(opt->root_real, sizeof opt->root_real, "%s", opt->root_abs);
	if (opt->root && opt->verbose)
		printf("cudaload-patch: paths in %s are resolved inside it, by %s\n", opt->root_abs,
		       inroot_resolver());
	return 0;
}

/* --install SRC DEST, the whole run: its exit status. */
static int install_in_image(const struct options *opt, struct run *run, const char *src,
			    const char *dest)
{
	int r = install(opt, run, src, dest);
	dir_cache_drop(&run->dirs);
	free(run->swept.v);
	close(opt->rootfd);
	return r;
}

/* Is the record kept, and where: by root where the package made its
 * directory (a build tree or a test patching as root leaves no trace), or
 * where CUDALOAD_PATCH_RECORD says; in an image, when it lies there,
 * resolved inside it like the programs.  Read when it is kept or worked
 * from. */
static int open_record(const struct command_line *cl, struct options *opt,
		       struct patchlist *record)
{
	const char *rf = getenv("CUDALOAD_PATCH_RECORD");
	opt->record_file = rf && *rf ? rf
			  : geteuid() == 0 && access(PATCHLIST_DIR, F_OK) == 0 ? PATCHLIST_FILE : NULL;
	opt->recording = opt->record_file && !cl->no_record && !opt->dry_run && opt->action != CHECK;
	if (cl->from_record != NAMED && !opt->record_file) {
		fprintf(stderr, "cudaload-patch: no record: run as root, with the package installed (%s)\n",
			PATCHLIST_DIR);
		return EXIT_USAGE;
	}
	if (opt->record_file && opt->rootfd >= 0 && cl->from_record == NAMED &&
	    inroot_absolute(opt->record_file, opt->record_abs, sizeof opt->record_abs) == 0)
		opt->record_img = inroot_below(opt->root_abs, opt->record_abs);
	if (opt->recording || cl->from_record != NAMED) {
		char why[CL_PATH_MAX + 64];
		if (record_load(opt, record, why, sizeof why) < 0) {
			fprintf(stderr, "cudaload-patch: %s\n", why);
			if (cl->from_record != NAMED)
				return 1;
			opt->recording = false;	/* never overwrite a record we could not read */
		}
	}
	/* working from the record keeps it in step, whatever else was asked */
	if (cl->from_record != NAMED)
		opt->recording = true;
	return 0;
}

/* The cudaload the programs are patched for (opt->interp) and its machine
 * (opt->machine): --interp, the image's own with --root, else the one
 * beside this program; one that is not here only with --machine.  Whether
 * the record is kept for it. */
static int choose_interpreter(const struct command_line *cl, struct options *opt)
{
	/* an image's programs get the image's cudaload, never this machine's */
	if (!opt->interp && opt->root && !(opt->interp = image_cudaload(opt))) {
		fprintf(stderr, "cudaload-patch: --root %s: no cudaload in the image (usr/bin or "
			"usr/local/bin): install it there, or give --interp PATH as the image "
			"sees it\n", opt->root);
		return EXIT_USAGE;
	}
	if (!opt->interp) {
		ssize_t n = readlink("/proc/self/exe", opt->self_interp, sizeof opt->self_interp - 1);
		char *slash = n > 0 ? (opt->self_interp[n] = '\0', strrchr(opt->self_interp, '/')) : NULL;
		if (!slash ||
		    (size_t)(slash - opt->self_interp) + sizeof "/cudaload" > sizeof opt->self_interp) {
			fprintf(stderr, "cudaload-patch: cannot find cudaload beside me: give --interp\n");
			return EXIT_USAGE;
		}
		strcpy(slash, "/cudaload");
		opt->interp = opt->self_interp;
	}
	if (opt->interp[0] != '/') {
		fprintf(stderr, "cudaload-patch: --interp %s: must be an absolute path\n", opt->interp);
		return EXIT_USAGE;
	}
	/* the interpreter as the programs will see it: inside the image */
	int ifd = open_as_seen(opt, opt->interp, O_PATH);
	bool here = ifd >= 0;
	if (here)
		close(ifd);
	if (!here && !cl->interp_given) {
		fprintf(stderr, "cudaload-patch: no cudaload beside cudaload-patch (%s): "
			"give --interp PATH\n", opt->interp);
		return EXIT_USAGE;
	}
	if (!here && !cl->machine) {
		fprintf(stderr, "cudaload-patch: --interp %s: %s (give --machine M as well to "
			"patch for a cudaload that exists only on the target)\n", opt->interp,
			strerror(ENOENT));
		return EXIT_USAGE;
	}
	if (!here)
		fprintf(stderr, "cudaload-patch: warning: %s does not exist %s; patched "
			"programs start only where it does\n", opt->interp,
			opt->root ? "in the image" : "here");
	int here_machine = here ? machine_of_fd(open_as_seen(opt, opt->interp, O_RDONLY)) : -1;
	opt->machine = cl->machine ? machine_by_name(cl->machine) : here_machine;
	/* A program is recorded only when it runs through this system's
	 * cudaload: not one patched for an image, nor for another machine. */
	if (opt->recording && !getenv("CUDALOAD_PATCH_RECORD") &&
	    (!here || opt->root || here_machine != opt->machine))
		opt->recording = false;
	if (opt->machine < 0) {
		fprintf(stderr, cl->machine ? "cudaload-patch: --machine %s: unknown machine\n"
					    : "cudaload-patch: cannot read the machine of %s: give --machine\n",
			cl->machine ? cl->machine : opt->interp);
		return EXIT_USAGE;
	}
	return 0;
}

/* Every path listed first (directories walked), then each file processed
 * (process_listed) and the last batch put in place. */
static void walk_and_process(const struct command_line *cl, const struct options *opt,
			     struct run *run)
{
	struct loads *loads = &run->loads;
	struct listing listed = { 0 };
	if (batch_new(&run->batch) < 0) {
		fprintf(stderr, "cudaload-patch: out of memory\n");
		run->tally.count[FAILED]++;
		return;
	}
	loads->closure = closure_new(opt->root ? opt->root_abs : "", judge_library, NULL);
	loads->pysite = pysite_new(opt->root ? opt->root_abs : "", judge_library, NULL);
	for (int i = 0; i < cl->npaths; i++)
		list_argument(opt, run, &listed, cl->paths[i]);
	process_listed(opt, run, &listed);
	flush_batch(opt, &run->batch, &run->tally, &run->record);
	progress_clear(opt);
	pysite_free(loads->pysite);
	closure_free(loads->closure);
	*loads = (struct loads){ NULL, NULL };
}

int main(int argc, char **argv)
{
	struct command_line cl = { .from_record = NAMED };
	struct options opt = { .rootfd = -1, .install_mode = -1 };	/* main's to fill */
	struct run run = { .dirs = { .fd = -1 } };
	elfpatch_init();
	replace_install_handlers();
	int r = read_command_line(argc, argv, &cl, &opt);
	if (r)
		return r;
	if (cl.mode && cl.mode->id == O_HELP) {
		print_help(stdout);
		return 0;
	}
	if (cl.mode && cl.mode->id == O_VERSION) {
		printf("cudaload-patch %s\n", CUDALOAD_VERSION);
		return 0;
	}
	if ((r = check_combination(&cl, &opt)) || (r = open_image(&opt)))
		return r;
	opt.sweep = !opt.dry_run && opt.action != CHECK;
	if (cl.install_given)
		return install_in_image(&opt, &run, cl.paths[0], cl.paths[1]);

	if ((r = open_record(&cl, &opt, &run.record)))
		return r;
	if (cl.from_record != NAMED)
		return from_recorded(&opt, &run, cl.from_record == REAPPLY);
	if (opt.action == PATCH && (r = choose_interpreter(&cl, &opt)))
		return r;
	opt.progress = isatty(STDERR_FILENO);
	walk_and_process(&cl, &opt, &run);
	return finish(&opt, &run);
}

/* The end of a run: the record saved when it changed, the summary said;
 * the exit status (EXIT_SKIPPED for a named file skipped). */
static int finish(const struct options *opt, struct run *run)
{
	struct tally *tally = &run->tally;
	dir_cache_drop(&run->dirs);
	free(run->swept.v);
	memset(&run->swept, 0, sizeof run->swept);
	free(run->batch.v);
	memset(&run->batch, 0, sizeof run->batch);
	if (opt->recording && run->record.changed) {
		char why[CL_PATH_MAX + 64];
		if (record_save(opt, &run->record, why, sizeof why) < 0) {
			fprintf(stderr, "cudaload-patch: cannot update the record: %s\n", why);
			tally->count[FAILED]++;
		}
	}
	patchlist_free(&run->record);
	unsigned long skipped = 0;
	for (int o = SKIP_NOT_ELF; o < N_OUTCOMES; o++)
		skipped += tally->count[o];
	if (opt->quiet) {
		/* nothing */
	} else if (opt->action == CHECK) {
		printf("cudaload-patch: %lu patched, %lu not patched, %lu skipped, %lu failed\n",
		       tally->count[DONE], tally->check_unpatched, skipped - tally->count[SKIP_NOT_PATCHED],
		       tally->count[FAILED]);
	} else {
		printf("cudaload-patch: %lu %s%s, %lu skipped", tally->count[DONE],
		       opt->dry_run ? "would be " : "", opt->action == RESTORE ? "restored" : "patched",
		       skipped);
		const char *sep = " (";
		for (int o = SKIP_NOT_ELF; o < N_OUTCOMES; o++) {
			if (tally->count[o]) {
				printf("%s%s %lu", sep, outcome_names[o], tally->count[o]);
				sep = ", ";
			}
		}
		printf("%s, %lu failed\n", skipped ? ")" : "", tally->count[FAILED]);
	}
	fflush(stdout);
	if (tally->count[FAILED] || (opt->action == CHECK && tally->check_unpatched))
		return 1;
	return tally->named_skipped ? EXIT_SKIPPED : 0;
}
