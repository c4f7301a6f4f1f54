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
 * a record (patchlist.h) that --reapply and --restore-recorded work from.
 *
 * Per-file results and the summary go to stdout, errors and warnings to
 * stderr.  Exit status: 0 every named file done (or already so), 1 an error,
 * 2 a named file skipped, 100 a usage error.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/elfread.h"
#include "../common/identity.h"
#include "closure.h"
#include "elfpatch.h"
#include "patchlist.h"
#include "pysite.h"
#include "replace.h"
#include "usescuda.h"

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

static struct {
	enum action action;
	const char *interp;
	int machine;
	bool all, dry_run, break_links, force, verbose;
	const char *root;		/* --root: the image the programs run in */
	struct closure *closure;	/* what a program loads, judged once per run */
	struct pysite *pysite;
	bool progress, quiet;
	bool recording;			/* keep the record of patched programs */
	const char *record_file;
	struct patchlist record;
	unsigned long count[N_OUTCOMES];
	unsigned long seen;
	unsigned long named_skipped;	/* exit status 2 */
	unsigned long check_unpatched;	/* --check: programs not patched */
} opt;

static void progress_clear(void)
{
	if (opt.progress)
		fputs("\r\033[K", stderr);
}

/* A result for one file, on stdout. */
__attribute__((format(printf, 2, 3)))
static void say(const char *path, const char *fmt, ...)
{
	va_list ap;
	if (opt.quiet)
		return;
	progress_clear();
	printf("%s: ", path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* An error or warning about one file, on stderr (stdout flushed first so
 * that both keep their order on a terminal). */
__attribute__((format(printf, 2, 3)))
static void complain(const char *path, const char *fmt, ...)
{
	va_list ap;
	progress_clear();
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

/*
 * Replacing files, in batches.  Each new file is written in full beside its
 * original; then one syncfs() makes the whole batch durable, each file is
 * renamed over its original, and each directory touched is fsynced.  A crash
 * at any point leaves every original intact or fully replaced (at worst, a
 * power cut or SIGKILL, a stray ".NAME.cudaload-XXXXXX" beside it), and
 * costs one flush per batch instead of one per file.  Each original stays
 * open and held (replace.h) until its rename: a batch is bounded by
 * descriptors too.
 */
#define BATCH_MAX 256

struct pending {
	char *tmp, *path;
	struct held held;		/* the original, as it was read */
	const char *interp;		/* the record's: what it was patched for */
	char line[CL_PATH_MAX + 768];	/* what to report once it is in place */
};

static struct {
	struct pending v[BATCH_MAX];
	size_t n;
} batch;

static void count(int o, const char *path);

/* Keep the record in step with a file just patched for interp, or restored. */
static void record_done(const char *path, const char *interp)
{
	if (!opt.recording)
		return;
	char *abs = realpath(path, NULL);
	if (!abs)
		return;
	if (opt.action == RESTORE)
		patchlist_remove(&opt.record, abs);
	else if (patchlist_add(&opt.record, interp, abs) < 0)
		complain(abs, "cannot be recorded (a newline in its name?)");
	free(abs);
}

/* A temporary that could not be removed is said, never left in silence. */
static void discard_temp(const char *path, const char *tmp)
{
	char why[128];
	if (replace_discard(tmp, why, sizeof why) < 0)
		complain(path, "error: its temporary copy %s could not be removed: %s", tmp, why);
}

static int flush_batch(void)
{
	int failed = 0;
	if (batch.n == 0)
		return 0;
	/* the temporaries are all beside their originals: one filesystem flush
	 * per file system; syncfs on the first one's directory covers the rest
	 * when they share it, and fsync covers any that do not */
	int sfd = batch.v[0].held.fd;
	bool synced = syncfs(sfd) == 0;
	char last_dir[CL_PATH_MAX] = "";
	for (size_t i = 0; i < batch.n; i++) {
		struct pending *p = &batch.v[i];
		int r = 0;
		char why[160];
		if (!synced || p->held.st.st_dev != batch.v[0].held.st.st_dev) {
			int fd = open(p->tmp, O_RDONLY | O_CLOEXEC);
			r = fd >= 0 && fsync(fd) == 0 ? 0 : -1;
			if (r < 0)
				snprintf(why, sizeof why, "cannot make the new file durable: %s",
					 strerror(errno));
			if (fd >= 0)
				close(fd);
		}
		if (r == 0)
			r = replace_still_held(&p->held, p->path, why, sizeof why);
		if (r == 0 && (r = replace_commit(p->tmp, p->path)) < 0)
			snprintf(why, sizeof why, "cannot replace it: %s", strerror(errno));
		if (r == 0) {
			progress_clear();
			if (!opt.quiet)
				puts(p->line);
			count(DONE, p->path);
			record_done(p->path, p->interp);
			const char *slash = strrchr(p->path, '/');
			char dir[CL_PATH_MAX];
			snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - p->path) : 1,
				 slash ? p->path : ".");
			if (strcmp(dir, last_dir) != 0) {
				int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				if (dfd >= 0) {
					fsync(dfd);	/* make the renames durable */
					close(dfd);
				}
				snprintf(last_dir, sizeof last_dir, "%s", dir);
			}
		} else {
			complain(p->path, "error: %s; left as it was", why);
			discard_temp(p->path, p->tmp);
			count(FAILED, p->path);
			failed++;
		}
		close(p->held.fd);	/* and with it the lease */
		free(p->tmp);
		free(p->path);
	}
	batch.n = 0;
	return failed;
}

static bool batch_holds(dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < batch.n; i++)
		if (batch.v[i].held.st.st_dev == dev && batch.v[i].held.st.st_ino == ino)
			return true;
	return false;
}

/* Hold the original (open at srcfd, st as read), write the planned file
 * beside `path` with the original's owner, mode and extended attributes,
 * and queue it to replace the original.  The queue owns srcfd from then. */
static int queue_replacement(const char *path, int srcfd, const struct stat *st,
			     const unsigned char *img, const struct patch_plan *plan,
			     const char *interp, const char *line, char *why, size_t cap)
{
	char tmp[CL_PATH_MAX];
	struct pending *p = &batch.v[batch.n];
	if (replace_hold(&p->held, srcfd, st, path, why, cap) < 0)
		return -1;
	int fd = replace_make_temp(path, tmp, sizeof tmp, why, cap);
	if (fd < 0) {
		replace_release(&p->held);
		return -1;
	}
	int r = patch_plan_write(fd, img, plan);
	if (r < 0)
		snprintf(why, cap, "cannot write: %s", strerror(-r));
	/* owner first: chown clears set-id bits and file capabilities */
	else if (fchown(fd, st->st_uid, st->st_gid) < 0 && (geteuid() == 0 || st->st_uid != geteuid()))
		snprintf(why, cap, "cannot keep the owner: %s", strerror(errno)), r = -1;
	else if (fchmod(fd, st->st_mode & 07777) < 0)
		snprintf(why, cap, "cannot keep the mode: %s", strerror(errno)), r = -1;
	else if (copy_xattrs(srcfd, fd, why, cap) < 0)
		r = -1;
	if (close(fd) < 0 && r == 0)
		snprintf(why, cap, "cannot write: %s", strerror(errno)), r = -1;
	if (r == 0 && (!(p->tmp = strdup(tmp)) || !(p->path = strdup(path)))) {
		free(p->tmp);
		snprintf(why, cap, "out of memory"), r = -1;
	}
	if (r < 0) {
		replace_release(&p->held);
		discard_temp(path, tmp);
		return -1;
	}
	snprintf(p->line, sizeof p->line, "%s", line);
	p->interp = interp;
	if (++batch.n == BATCH_MAX)
		flush_batch();
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

/* Is a program with no sign of CUDA of its own a CUDA program through the
 * libraries it loads, or, a Python interpreter, through its packages
 * (closure.h, pysite.h)?  The way into why. */
static bool reaches_cuda(const char *path, char *why, size_t cap)
{
	char abs[CL_PATH_MAX];
	if (!opt.closure || !opt.pysite || !absolute(path, abs, sizeof abs))
		return false;
	int r = closure_uses_cuda(opt.closure, abs, why, cap);
	if (r == 0)
		r = pysite_uses_cuda(opt.pysite, abs, why, cap);
	if (r < 0)
		complain(path, "warning: out of memory while following what it loads");
	return r > 0;
}

/* One file: patched for interp (a cudaload for machine), restored or
 * checked as opt.action says.  The interpreter is the caller's: --reapply
 * gives each recorded program its own. */
static enum outcome process_file(const char *path, bool named, const char *interp, int machine)
{
	char why[512] = "";
	struct stat st;
	enum outcome o = DONE;

	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		complain(path, "error: %s", strerror(errno));
		return FAILED;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		if (named) {
			say(path, "skipped: not a regular file");
			opt.named_skipped++;
		}
		return SKIP_SPECIAL;
	}
	size_t len;
	unsigned char *img = replace_read(fd, &st, &len, why, sizeof why);
	if (!img) {
		complain(path, "error: %s", why);
		close(fd);
		return FAILED;
	}

	struct elf_facts f;
	struct patch_plan plan;
	bool forced = false;
	memset(&plan, 0, sizeof plan);
	if (elfpatch_inspect(img, len, &f, why, sizeof why) < 0) {
		complain(path, "error: %s", why);
		o = FAILED;
		goto out;
	}
	/* Why it is a CUDA program: its own sign, else what it loads.  Asked
	 * where it decides (a walk, --check) or is said (-v, --dry-run). */
	char reach[640] = "";
	const char *cuda_why = f.uses_cuda ? f.cuda_lib : NULL;
	if (f.kind == FOUND_DYNAMIC && !f.uses_cuda && !f.recorded[0] && opt.action != RESTORE &&
	    ((!named && !opt.all) || opt.action == CHECK || opt.dry_run || opt.verbose) &&
	    reaches_cuda(path, reach, sizeof reach)) {
		f.uses_cuda = true;
		cuda_why = reach;
	}

	if (f.own_program && opt.action != RESTORE) {
		/* never patched, so never counted as unpatched */
		if (named || opt.verbose)
			say(path, "skipped: one of cudaload's own programs (its identity note): "
			    "the verifier must judge each driver with that driver");
		opt.named_skipped += named;
		o = SKIP_CUDALOAD;
		goto out;
	}
	if (opt.action == CHECK) {
		o = skip_for_kind(&f);
		if (o != DONE) {
			if (named) {
				say(path, "%s", outcome_name(o));
				opt.named_skipped++;
			}
		} else if (f.recorded[0]) {
			say(path, "patched, interpreter %s, original %s%s", f.interp, f.recorded,
			    f.patched ? "" : " (rewritten since: --restore needs --force)");
		} else if (named || f.uses_cuda) {
			say(path, "not patched, interpreter %s%s%s", f.interp,
			    f.uses_cuda ? ", uses CUDA: " : "", cuda_why ? cuda_why : "");
			opt.check_unpatched++;
			o = SKIP_NOT_PATCHED;
		} else {
			o = SKIP_NO_CUDA;
		}
		goto out;
	}

	if (opt.action == RESTORE) {
		if (f.kind != FOUND_DYNAMIC || !f.recorded[0]) {
			o = f.kind != FOUND_DYNAMIC ? skip_for_kind(&f) : SKIP_NOT_PATCHED;
		} else if (elfpatch_plan_restore(img, len, &plan, why, sizeof why) < 0) {
			if (!opt.force) {
				complain(path, "error: %s", why);
				o = FAILED;
			} else if (elfpatch_plan_force_restore(img, len, &plan, why, sizeof why) < 0) {
				complain(path, "error: %s", why);
				o = FAILED;
			} else {
				forced = true;
			}
		}
	} else {
		o = skip_for_kind(&f);
		if (o == DONE && f.recorded[0])
			o = SKIP_PATCHED;
		else if (o == DONE && f.machine != machine)
			o = SKIP_MACHINE;
		else if (o == DONE && !named && !opt.all && !f.uses_cuda)
			o = SKIP_NO_CUDA;
		else if (o == DONE && strcmp(f.interp, interp) == 0)
			o = SKIP_SAME;
		else if (o == DONE && elfpatch_plan_patch(img, len, interp, &plan, why, sizeof why) < 0) {
			complain(path, "error: %s", why);
			o = FAILED;
		}
	}
	if (o == DONE && st.st_nlink > 1 && !opt.break_links)
		o = SKIP_LINKS;

	if (o == DONE) {
		char line[CL_PATH_MAX + 128];
		if (opt.action == RESTORE)
			snprintf(line, sizeof line, "%s: %srestored, interpreter %s%s", path,
				 opt.dry_run ? "would be " : "", f.recorded,
				 forced ? " (not byte-identical: the file was rewritten after patching)" : "");
		else
			snprintf(line, sizeof line, "%s: %spatched, interpreter %s (was %s)%s%s%s", path,
				 opt.dry_run ? "would be " : "", interp, f.interp,
				 plan.grew ? ", grown" : "",
				 !opt.dry_run && !opt.verbose ? ""
				 : cuda_why ? "; uses CUDA: " : "; named, no sign of CUDA",
				 (opt.dry_run || opt.verbose) && cuda_why ? cuda_why : "");
		if (opt.dry_run) {
			progress_clear();
			puts(line);
		} else if (queue_replacement(path, fd, &st, img, &plan, interp, line, why, sizeof why) < 0) {
			complain(path, "error: %s; left as it was", why);
			o = FAILED;
		} else {
			o = QUEUED;	/* counted when it is in place */
			fd = -1;	/* the queue's now */
		}
	} else if (o == SKIP_PATCHED) {
		say(path, "already patched, original interpreter %s", f.recorded);
	} else if (o == SKIP_SAME || (o == SKIP_NOT_PATCHED && opt.action == RESTORE)) {
		if (named)
			say(path, "skipped: %s", outcome_name(o));	/* already as asked */
	} else if (o != FAILED && (named || (f.uses_cuda && (o == SKIP_MACHINE || o == SKIP_LINKS)))) {
		/* named files, and CUDA programs a walk had to leave out */
		if (o == SKIP_MACHINE) {
			char a[24], b[24];
			say(path, "skipped: for %s, cudaload is for %s",
			    elfread_machine_label(f.machine, a, sizeof a),
			    elfread_machine_label(machine, b, sizeof b));
		} else if (o == SKIP_LINKS) {
			say(path, "skipped: %lu hard links (--break-links patches this name only)",
			    (unsigned long)st.st_nlink);
		} else {
			say(path, "skipped: %s", outcome_name(o));
		}
		if (named)
			opt.named_skipped++;
	}
out:
	patch_plan_free(&plan);
	free(img);
	if (fd >= 0)
		close(fd);
	return o;
}

static void count(int o, const char *path)
{
	if (o == QUEUED || o == SKIP_CUDALOAD)
		return;	/* counted once in place; cudaload itself is no skip */
	opt.count[o]++;
	opt.seen++;
	if (opt.progress && opt.seen % 64 == 0)
		fprintf(stderr, "\r\033[K%lu files, %lu %s, %lu failed: %.60s", opt.seen,
			opt.count[DONE], opt.action == RESTORE ? "restored" : "patched",
			opt.count[FAILED], path);
}

/* Every argument is listed first, then the files are patched: renaming
 * into a directory while reading it could show a file twice or a
 * temporary, and what one argument holds (a virtual environment) can decide
 * a program another argument names, whatever their order. */
struct listed_file {
	char *path;
	bool named;
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
};

static struct {
	struct listed_file *v;
	size_t n, cap;
	bool oom;
} listed;

/* ".NAME.cudaload-XXXXXX": our own temporary, left by a run that was killed. */
static bool is_our_temporary(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *mark = strstr(base, ".cudaload-");
	return base[0] == '.' && mark && strlen(mark) == strlen(".cudaload-XXXXXX");
}

static int list_file(const char *path, bool named, const struct stat *st)
{
	if (array_room(&listed.v, listed.n, &listed.cap, sizeof *listed.v, 256) < 0 ||
	    !(listed.v[listed.n].path = strdup(path))) {
		listed.oom = true;
		return -1;
	}
	listed.v[listed.n].named = named;
	listed.v[listed.n].dev = st->st_dev;
	listed.v[listed.n].ino = st->st_ino;
	listed.v[listed.n].nlink = st->st_nlink;
	listed.n++;
	return 0;
}

static int walk_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_DNR || type == FTW_NS) {
		complain(path, "error: cannot read");
		count(FAILED, path);
	}
	if (type != FTW_F || is_our_temporary(path))
		return 0;	/* symlinks (FTW_SL) are skipped: their targets are walked or named */
	return list_file(path, false, st) < 0;
}

static void list_argument(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0) {
		complain(path, "error: %s", strerror(errno));
		count(FAILED, path);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		if (nftw(path, walk_entry, 64, FTW_PHYS) != 0 || listed.oom) {
			complain(path, "error: %s", listed.oom ? "out of memory" : strerror(errno));
			count(FAILED, path);
		}
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		/* A named link: patch what it points to, never replace the link. */
		char *real = realpath(path, NULL);
		if (!real || stat(real, &st) < 0) {
			complain(path, "error: %s", strerror(errno));
			count(FAILED, path);
		} else if (list_file(real, true, &st) < 0) {
			complain(path, "error: out of memory");
		}
		free(real);
		return;
	}
	if (list_file(path, true, &st) < 0)
		complain(path, "error: out of memory");
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

/* Two paths of one name? */
static bool same_name(const char *a, const char *b)
{
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	bool same = ra && rb && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

/* A file listed twice under one name (named and walked, or two arguments
 * that overlap) is done once, as named if it was, else as first listed: its
 * second copy would find the first renamed over it.  Its other names (hard
 * links) stay: each is said, or patched alone with --break-links. */
static void drop_duplicates(void)
{
	struct listed_file **order = malloc(listed.n * sizeof *order + 1);
	if (!order)
		return;
	for (size_t i = 0; i < listed.n; i++)
		order[i] = &listed.v[i];
	qsort(order, listed.n, sizeof *order, by_file);
	for (size_t i = 1, group = 0; i < listed.n; i++) {
		if (order[i]->dev != order[group]->dev || order[i]->ino != order[group]->ino) {
			group = i;
			continue;
		}
		for (size_t j = group; j < i && order[i]->path; j++)
			if (order[j]->path && (order[i]->nlink == 1 || same_name(order[i]->path, order[j]->path))) {
				free(order[i]->path);
				order[i]->path = NULL;
			}
	}
	free(order);
}

static void process_listed(void)
{
	drop_duplicates();
	/* virtual environments first: they say which interpreter they run */
	for (size_t i = 0; i < listed.n && opt.pysite; i++) {
		const char *p = listed.v[i].path, *base = p ? strrchr(p, '/') : NULL;
		char abs[CL_PATH_MAX];
		if (base && strcmp(base + 1, "pyvenv.cfg") == 0 && absolute(p, abs, sizeof abs) &&
		    pysite_add_venv(opt.pysite, abs) < 0)
			complain(p, "warning: out of memory");
	}
	for (size_t i = 0; i < listed.n; i++) {
		const char *p = listed.v[i].path;
		/* another name of a file queued (--break-links): its rename first,
		 * which changes this one's link count and ctime */
		if (p && listed.v[i].nlink > 1 && batch_holds(listed.v[i].dev, listed.v[i].ino))
			flush_batch();
		if (p)
			count(process_file(p, listed.v[i].named, opt.interp, opt.machine), p);
		free(listed.v[i].path);
	}
	free(listed.v);
	memset(&listed, 0, sizeof listed);
}

static int interp_machine(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_file ef;
	char why[128];
	if (fd < 0)
		return -1;
	int m = elfread_open_fd(&ef, fd, why, sizeof why) == 0 ? ef.machine : -1;
	elfread_release(&ef);
	close(fd);
	return m;
}

/* An image path as this machine reaches it: the root joined to it with
 * its links resolved inside the image (closure.h). */
static bool in_image(const char *root, const char *path, char *out, size_t cap)
{
	char resolved[CL_PATH_MAX];
	return closure_resolve(root, path, resolved, sizeof resolved) == 0 &&
	       path_join(out, cap, root, resolved) == 0;
}

/* The cudaload installed in the image root, as the image names it, or NULL. */
static const char *image_cudaload(const char *root)
{
	static const char *const places[] = { "/usr/bin/cudaload", "/usr/local/bin/cudaload" };
	for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
		char here[CL_PATH_MAX], why[128];
		struct stat st;
		struct elf_facts f;
		size_t len;
		int fd = in_image(root, places[i], here, sizeof here) ? open(here, O_RDONLY | O_CLOEXEC) : -1;
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
	      O_FORCE, O_CHECK, O_REAPPLY, O_RESTORE_RECORDED, O_QUIET, O_NO_RECORD, O_HELP,
	      O_VERSION };

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
	  "Python packages are looked for there (default: /)" },
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
	{ "help", 'h', NULL, true, O_HELP, "this help" },
	{ "version", 0, NULL, true, O_VERSION, "the version" },
};
#define N_OPTIONS (sizeof options / sizeof options[0])

static int finish(void);

/* --reapply: patch again each recorded program that is no longer patched
 * (a package upgrade put an unpatched copy in its place); --restore-recorded:
 * restore each one.  Programs that are gone leave the record. */
static int from_recorded(bool reapply)
{
	/* Work from a copy: finished files change the record as we go. */
	struct patchlist todo = { 0 };
	for (size_t k = 0; k < opt.record.n; k++)
		if (patchlist_add(&todo, opt.record.v[k].interp, opt.record.v[k].path) < 0) {
			fprintf(stderr, "cudaload-patch: out of memory\n");
			patchlist_free(&todo);
			return 1;
		}
	opt.recording = true;
	opt.progress = false;
	for (size_t k = 0; k < todo.n; k++) {
		const char *path = todo.v[k].path;
		struct stat st;
		enum outcome o;
		if (lstat(path, &st) < 0 && errno == ENOENT) {
			say(path, "no longer exists; left the record");
			patchlist_remove(&opt.record, path);
			continue;
		}
		const char *interp = todo.v[k].interp;
		if (reapply) {
			int machine = interp_machine(interp);
			if (machine < 0) {
				complain(path, "error: its interpreter %s cannot be read here", interp);
				o = FAILED;
			} else {
				o = process_file(path, true, interp, machine);
			}
		} else {
			o = process_file(path, true, interp, opt.machine);
			if (o != DONE && o != QUEUED && o != FAILED)
				patchlist_remove(&opt.record, path);	/* nothing to restore */
		}
		count(o, path);
	}
	flush_batch();
	opt.named_skipped = 0;	/* already patched, or gone: nothing to report as 2 */
	int r = finish();
	patchlist_free(&todo);
	return r;
}

static void print_help(FILE *to)
{
	fputs("usage: cudaload-patch [OPTION]... PATH...\n"
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

__attribute__((format(printf, 1, 2)))
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

int main(int argc, char **argv)
{
	const char *machine = NULL;
	const struct option_def *mode = NULL;
	char self_interp[CL_PATH_MAX];
	bool interp_given = false;
	enum { NAMED, REAPPLY, RESTORE_RECORDED } from_record = NAMED;
	bool no_record = false;

	elfpatch_init();
	replace_install_handlers();
	/* paths are gathered in argv's own slots, in order */
	char **paths = argv + 1;
	int npaths = 0;
	bool options_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (options_done || a[0] != '-' || !a[1]) {
			paths[npaths++] = argv[i];
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
			if (mode && mode != o) {
				fprintf(stderr, "cudaload-patch: --%s and --%s exclude each other\n",
					mode->name, o->name);
				return EXIT_USAGE;
			}
			mode = o;
		}
		switch (o->id) {
		case O_INTERP: opt.interp = value; interp_given = true; break;
		case O_MACHINE: machine = value; break;
		case O_ALL: opt.all = true; break;
		case O_DRY_RUN: opt.dry_run = true; break;
		case O_VERBOSE: opt.verbose = true; break;
		case O_ROOT: opt.root = value; break;
		case O_BREAK_LINKS: opt.break_links = true; break;
		case O_FORCE: opt.force = true; break;
		case O_RESTORE: opt.action = RESTORE; break;
		case O_CHECK: opt.action = CHECK; break;
		case O_REAPPLY: from_record = REAPPLY; break;
		case O_RESTORE_RECORDED: from_record = RESTORE_RECORDED; opt.action = RESTORE; break;
		case O_QUIET: opt.quiet = true; break;
		case O_NO_RECORD: no_record = true; break;
		case O_HELP: case O_VERSION: break;
		}
	}
	if (mode && mode->id == O_HELP) {
		print_help(stdout);
		return 0;
	}
	if (mode && mode->id == O_VERSION) {
		printf("cudaload-patch %s\n", CUDALOAD_VERSION);
		return 0;
	}
	if (opt.force && opt.action != RESTORE)
		return usage_error("%s only goes with --restore", "--force");
	if (from_record != NAMED && npaths)
		return usage_error("--%s takes no PATH", mode->name);
	if (npaths == 0 && from_record == NAMED)
		return usage_error("%s", "no PATH given");

	/* The record: kept by root where the package made its directory (a
	 * build tree or a test patching as root leaves no trace), or where
	 * CUDALOAD_PATCH_RECORD says. */
	const char *rf = getenv("CUDALOAD_PATCH_RECORD");
	opt.record_file = rf && *rf ? rf
			  : geteuid() == 0 && access(PATCHLIST_DIR, F_OK) == 0 ? PATCHLIST_FILE : NULL;
	opt.recording = opt.record_file && !no_record && !opt.dry_run && opt.action != CHECK;
	if (from_record != NAMED && !opt.record_file) {
		fprintf(stderr, "cudaload-patch: no record: run as root, with the package installed (%s)\n",
			PATCHLIST_DIR);
		return EXIT_USAGE;
	}
	if (opt.recording || from_record != NAMED) {
		char why[CL_PATH_MAX + 64];
		if (patchlist_load(&opt.record, opt.record_file, why, sizeof why) < 0) {
			fprintf(stderr, "cudaload-patch: %s\n", why);
			if (from_record != NAMED)
				return 1;
			opt.recording = false;	/* never overwrite a record we could not read */
		}
	}
	if (from_record != NAMED)
		return from_recorded(from_record == REAPPLY);

	char root[CL_PATH_MAX] = "";
	if (opt.root && (!absolute(opt.root, root, sizeof root) || !rooted_is_dir("", root))) {
		fprintf(stderr, "cudaload-patch: --root %s: not a directory\n", opt.root);
		return EXIT_USAGE;
	}
	if (opt.action == PATCH) {
		/* an image's programs get the image's cudaload, never this machine's */
		if (!opt.interp && opt.root && !(opt.interp = image_cudaload(root))) {
			fprintf(stderr, "cudaload-patch: --root %s: no cudaload in the image (usr/bin or "
				"usr/local/bin): install it there, or give --interp PATH as the image "
				"sees it\n", opt.root);
			return EXIT_USAGE;
		}
		if (!opt.interp) {
			ssize_t n = readlink("/proc/self/exe", self_interp, sizeof self_interp - 1);
			char *slash = n > 0 ? (self_interp[n] = '\0', strrchr(self_interp, '/')) : NULL;
			if (!slash || (size_t)(slash - self_interp) + sizeof "/cudaload" > sizeof self_interp) {
				fprintf(stderr, "cudaload-patch: cannot find cudaload beside me: give --interp\n");
				return EXIT_USAGE;
			}
			strcpy(slash, "/cudaload");
			opt.interp = self_interp;
		}
		if (opt.interp[0] != '/') {
			fprintf(stderr, "cudaload-patch: --interp %s: must be an absolute path\n", opt.interp);
			return EXIT_USAGE;
		}
		/* the interpreter as the programs will see it: inside the image */
		char interp_here[CL_PATH_MAX];
		if (!opt.root)
			snprintf(interp_here, sizeof interp_here, "%s", opt.interp);
		else if (!in_image(root, opt.interp, interp_here, sizeof interp_here))
			interp_here[0] = '\0';
		bool here = interp_here[0] && access(interp_here, F_OK) == 0;
		if (!here && !interp_given) {
			fprintf(stderr, "cudaload-patch: no cudaload beside cudaload-patch (%s): "
				"give --interp PATH\n", opt.interp);
			return EXIT_USAGE;
		}
		if (!here && !machine) {
			fprintf(stderr, "cudaload-patch: --interp %s: %s (give --machine M as well to "
				"patch for a cudaload that exists only on the target)\n", opt.interp,
				strerror(ENOENT));
			return EXIT_USAGE;
		}
		if (!here)
			fprintf(stderr, "cudaload-patch: warning: %s does not exist %s; patched "
				"programs start only where it does\n", opt.interp,
				opt.root ? "in the image" : "here");
		opt.machine = machine ? machine_by_name(machine) : interp_machine(interp_here);
		/* A program is recorded only when it runs through this system's
		 * cudaload: not one patched for an image, nor for another machine. */
		if (opt.recording && !getenv("CUDALOAD_PATCH_RECORD") &&
		    (!here || opt.root || interp_machine(interp_here) != opt.machine))
			opt.recording = false;
		if (opt.machine < 0) {
			fprintf(stderr, machine ? "cudaload-patch: --machine %s: unknown machine\n"
						: "cudaload-patch: cannot read the machine of %s: give --machine\n",
				machine ? machine : opt.interp);
			return EXIT_USAGE;
		}
	}
	opt.progress = isatty(STDERR_FILENO);

	opt.closure = closure_new(root, judge_library, NULL);
	opt.pysite = pysite_new(root, judge_library, NULL);
	for (int i = 0; i < npaths; i++)
		list_argument(paths[i]);
	process_listed();
	flush_batch();
	progress_clear();
	pysite_free(opt.pysite);
	closure_free(opt.closure);
	return finish();
}

static int finish(void)
{
	if (opt.recording && opt.record.changed) {
		char why[CL_PATH_MAX + 64];
		if (patchlist_save(&opt.record, opt.record_file, why, sizeof why) < 0) {
			fprintf(stderr, "cudaload-patch: cannot update the record: %s\n", why);
			opt.count[FAILED]++;
		}
	}
	patchlist_free(&opt.record);
	unsigned long skipped = 0;
	for (int o = SKIP_NOT_ELF; o < N_OUTCOMES; o++)
		skipped += opt.count[o];
	if (opt.quiet) {
		/* nothing */
	} else if (opt.action == CHECK) {
		printf("cudaload-patch: %lu patched, %lu not patched, %lu skipped, %lu failed\n",
		       opt.count[DONE], opt.check_unpatched, skipped - opt.count[SKIP_NOT_PATCHED],
		       opt.count[FAILED]);
	} else {
		printf("cudaload-patch: %lu %s%s, %lu skipped", opt.count[DONE],
		       opt.dry_run ? "would be " : "", opt.action == RESTORE ? "restored" : "patched",
		       skipped);
		const char *sep = " (";
		for (int o = SKIP_NOT_ELF; o < N_OUTCOMES; o++) {
			if (opt.count[o]) {
				printf("%s%s %lu", sep, outcome_names[o], opt.count[o]);
				sep = ", ";
			}
		}
		printf("%s, %lu failed\n", skipped ? ")" : "", opt.count[FAILED]);
	}
	fflush(stdout);
	if (opt.count[FAILED] || (opt.action == CHECK && opt.check_unpatched))
		return 1;
	return opt.named_skipped ? EXIT_SKIPPED : 0;
}
