/* SPDX-License-Identifier: MIT */
/*
 * cudaload-patch: make programs start through cudaload, and undo it.
 *
 *   cudaload-patch [--interp PATH] [--machine M] [--all] [--dry-run] [--break-links] PATH...
 *   cudaload-patch --restore PATH...
 *   cudaload-patch --check PATH...
 *   cudaload-patch --reapply | --restore-recorded [--quiet]
 *
 * A file named on the command line is patched when it is a dynamically linked
 * executable.  In a directory walk only programs that use CUDA are (a
 * DT_NEEDED of libcuda, libcudart, libcublas, libcudnn, libnvinfer ...; see
 * elfpatch.c), unless --all.  Every write goes to a temporary file in the
 * same directory, made durable, then renamed over the original, keeping its
 * mode, owner and extended attributes: the original is intact or fully
 * replaced, never half-written (see flush_batch).  A file with several hard
 * links is skipped unless --break-links (then only the named link is patched).
 *
 * Run as root on this system, what is patched and restored is also kept in
 * a record (patchlist.h) that --reapply and --restore-recorded work from.
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../common/elfread.h"
#include "elfpatch.h"
#include "patchlist.h"

#ifndef CUDALOAD_VERSION
#define CUDALOAD_VERSION "0.1.0"
#endif

#define EXIT_USAGE 100

enum action { PATCH, RESTORE, CHECK };

enum outcome {
	DONE, FAILED, SKIP_NOT_ELF, SKIP_SCRIPT, SKIP_STATIC, SKIP_LIBRARY, SKIP_OBJECT,
	SKIP_MACHINE, SKIP_PATCHED, SKIP_NO_CUDA, SKIP_LINKS, SKIP_SAME, SKIP_NOT_PATCHED,
	SKIP_SPECIAL, N_OUTCOMES, QUEUED
};

static const char *const outcome_names[N_OUTCOMES] = {
	"done", "failed", "not ELF", "script", "static", "library", "object file",
	"other machine", "already patched", "no CUDA", "hard links", "already this interpreter",
	"not patched", "not a regular file",
};

static struct {
	enum action action;
	const char *interp;
	int machine;
	bool all, dry_run, break_links;
	bool progress, quiet;
	bool recording;			/* keep the record of patched programs */
	const char *record_file;
	struct patchlist record;
	unsigned long count[N_OUTCOMES];
	unsigned long seen;
} opt;

static void progress_clear(void)
{
	if (opt.progress)
		fputs("\r\033[K", stderr);
}

__attribute__((format(printf, 2, 3)))
static void say(const char *path, const char *fmt, ...)
{
	va_list ap;
	if (opt.quiet && strncmp(fmt, "error", 5) != 0)
		return;
	progress_clear();
	printf("%s: ", path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
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
 * at any point leaves every original intact or fully replaced (at worst a
 * stray ".NAME.cudaload-XXXXXX" beside it), and costs one flush per batch
 * instead of one per file.
 */
#define BATCH_MAX 512

struct pending {
	char *tmp, *path;
	dev_t dev;			/* the directory's file system */
	char line[CL_PATH_MAX + 64];	/* what to report once it is in place */
};

static struct {
	struct pending v[BATCH_MAX];
	size_t n;
} batch;

static void count(int o, const char *path);

/* Keep the record in step with a file just patched or restored. */
static void record_done(const char *path)
{
	if (!opt.recording)
		return;
	char *abs = realpath(path, NULL);
	if (!abs)
		return;
	if (opt.action == RESTORE)
		patchlist_remove(&opt.record, abs);
	else if (patchlist_add(&opt.record, opt.interp, abs) < 0)
		fprintf(stderr, "cudaload-patch: %s: cannot be recorded (a newline in its name?)\n", abs);
	free(abs);
}

static int flush_batch(void)
{
	int failed = 0;
	if (batch.n == 0)
		return 0;
	/* the temporaries are all beside their originals: one filesystem flush
	 * per file system; syncfs on the first one's directory covers the rest
	 * when they share it, and fsync covers any that do not */
	int sfd = open(batch.v[0].tmp, O_RDONLY | O_CLOEXEC);
	bool synced = sfd >= 0 && syncfs(sfd) == 0;
	if (sfd >= 0)
		close(sfd);
	char last_dir[CL_PATH_MAX] = "";
	for (size_t i = 0; i < batch.n; i++) {
		struct pending *p = &batch.v[i];
		int r = 0;
		if (!synced || p->dev != batch.v[0].dev) {
			int fd = open(p->tmp, O_RDONLY | O_CLOEXEC);
			r = fd >= 0 && fsync(fd) == 0 ? 0 : -1;
			if (fd >= 0)
				close(fd);
		}
		if (r == 0 && rename(p->tmp, p->path) == 0) {
			progress_clear();
			if (!opt.quiet)
				puts(p->line);
			count(DONE, p->path);
			record_done(p->path);
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
			say(p->path, "error: cannot replace it: %s; left as it was", strerror(errno));
			unlink(p->tmp);
			count(FAILED, p->path);
			failed++;
		}
		free(p->tmp);
		free(p->path);
	}
	batch.n = 0;
	return failed;
}

/* Write the planned file beside `path`, with the original's owner, mode and
 * extended attributes, and queue it to replace the original. */
static int queue_replacement(const char *path, int srcfd, const struct stat *st,
			     const unsigned char *img, const struct patch_plan *plan,
			     const char *line, char *why, size_t cap)
{
	char tmp[CL_PATH_MAX];
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 1;
	const char *dir = slash ? path : ".";
	if (snprintf(tmp, sizeof tmp, "%.*s/.%s.cudaload-XXXXXX", dirlen, dir,
		     slash ? slash + 1 : path) >= (int)sizeof tmp) {
		snprintf(why, cap, "path too long");
		return -1;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(why, cap, "cannot create a file beside it: %s", strerror(errno));
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
	struct pending *p = &batch.v[batch.n];
	if (r == 0 && (!(p->tmp = strdup(tmp)) || !(p->path = strdup(path)))) {
		free(p->tmp);
		snprintf(why, cap, "out of memory"), r = -1;
	}
	if (r < 0) {
		unlink(tmp);
		return -1;
	}
	snprintf(p->line, sizeof p->line, "%s", line);
	p->dev = st->st_dev;	/* the temporary sits beside the original */
	if (++batch.n == BATCH_MAX)
		flush_batch();
	return 0;
}

static const char *machine_str(int m)
{
	static char buf[24];
	const char *n = elf_machine_name(m);
	if (n)
		return n;
	snprintf(buf, sizeof buf, "machine %d", m);
	return buf;
}

static enum outcome skip_for_kind(const struct elf_facts *f)
{
	switch (f->kind) {
	case FOUND_NOT_ELF: return SKIP_NOT_ELF;
	case FOUND_SCRIPT: return SKIP_SCRIPT;
	case FOUND_OBJECT: return SKIP_OBJECT;
	case FOUND_LIBRARY: return SKIP_LIBRARY;
	case FOUND_STATIC: return SKIP_STATIC;
	default: return DONE;
	}
}

static enum outcome process_file(const char *path, bool named)
{
	char why[256] = "";
	struct stat st;
	enum outcome o = DONE;

	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		say(path, "error: %s", strerror(errno));
		return FAILED;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		if (named)
			say(path, "skipped: not a regular file");
		return SKIP_SPECIAL;
	}
	size_t len = (size_t)st.st_size;
	unsigned char *img = len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0) : NULL;
	if (len && img == MAP_FAILED) {
		say(path, "error: cannot read: %s", strerror(errno));
		close(fd);
		return FAILED;
	}

	struct elf_facts f;
	struct patch_plan plan;
	memset(&plan, 0, sizeof plan);
	if (elfpatch_inspect(img ? img : (unsigned char *)"", len, &f, why, sizeof why) < 0) {
		say(path, "error: %s", why);
		o = FAILED;
		goto out;
	}

	if (opt.action == CHECK) {
		if (f.kind != FOUND_DYNAMIC)
			say(path, "%s", outcome_names[skip_for_kind(&f)]);
		else if (f.patched)
			say(path, "patched, interpreter %s, original %s", f.interp, f.recorded);
		else if (f.recorded[0])
			say(path, "patched without a restore record, interpreter %s, original %s",
			    f.interp, f.recorded);
		else
			say(path, "not patched, interpreter %s%s%s", f.interp,
			    f.uses_cuda ? ", uses CUDA: " : "", f.cuda_lib);
		goto out;
	}

	if (opt.action == RESTORE) {
		if (f.kind != FOUND_DYNAMIC || !f.recorded[0]) {
			o = f.kind != FOUND_DYNAMIC ? skip_for_kind(&f) : SKIP_NOT_PATCHED;
		} else if (elfpatch_plan_restore(img, len, &plan, why, sizeof why) < 0) {
			say(path, "error: %s", why);
			o = FAILED;
		}
	} else {
		o = skip_for_kind(&f);
		if (o == DONE && f.recorded[0])
			o = SKIP_PATCHED;
		else if (o == DONE && f.machine != opt.machine)
			o = SKIP_MACHINE;
		else if (o == DONE && !named && !opt.all && !f.uses_cuda)
			o = SKIP_NO_CUDA;
		else if (o == DONE && strcmp(f.interp, opt.interp) == 0)
			o = SKIP_SAME;
		else if (o == DONE && elfpatch_plan_patch(img, len, opt.interp, &plan, why, sizeof why) < 0) {
			say(path, "error: %s", why);
			o = FAILED;
		}
	}
	if (o == DONE && st.st_nlink > 1 && !opt.break_links)
		o = SKIP_LINKS;

	if (o == DONE) {
		char line[CL_PATH_MAX + 64];
		if (opt.action == RESTORE)
			snprintf(line, sizeof line, "%s: restored, interpreter %s", path, f.recorded);
		else
			snprintf(line, sizeof line, "%s: patched, interpreter %s (was %s)%s", path,
				 opt.interp, f.interp, plan.grew ? ", grown" : "");
		if (opt.dry_run) {
			say(path, "would be %s", opt.action == RESTORE ? "restored" : "patched");
		} else if (queue_replacement(path, fd, &st, img, &plan, line, why, sizeof why) < 0) {
			say(path, "error: %s; left as it was", why);
			o = FAILED;
		} else {
			o = QUEUED;	/* counted when it is in place */
		}
	} else if (o == SKIP_PATCHED) {
		say(path, "already patched, original interpreter %s", f.recorded);
	} else if (o != FAILED && named) {
		if (o == SKIP_MACHINE)
			say(path, "skipped: for %s, cudaload is for %s", machine_str(f.machine),
			    machine_str(opt.machine));
		else if (o == SKIP_LINKS)
			say(path, "skipped: %lu hard links (--break-links patches this name only)",
			    (unsigned long)st.st_nlink);
		else
			say(path, "skipped: %s", outcome_names[o]);
	}
out:
	patch_plan_free(&plan);
	if (img && img != MAP_FAILED)
		munmap(img, len);
	close(fd);
	return o;
}

static void count(int o, const char *path)
{
	if (o == QUEUED)
		return;
	opt.count[o]++;
	opt.seen++;
	if (opt.progress && opt.seen % 64 == 0)
		fprintf(stderr, "\r\033[K%lu files, %lu %s, %lu failed: %.60s", opt.seen,
			opt.count[DONE], opt.action == RESTORE ? "restored" : "patched",
			opt.count[FAILED], path);
}

/* A walk first lists the files, then patches them: renaming into a
 * directory while reading it could show a file twice or a temporary. */
static struct {
	char **v;
	size_t n, cap;
	bool oom;
} walked;

/* ".NAME.cudaload-XXXXXX": our own temporary, left by a run that was killed. */
static bool is_our_temporary(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *mark = strstr(base, ".cudaload-");
	return base[0] == '.' && mark && strlen(mark) == strlen(".cudaload-XXXXXX");
}

static int walk_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (type == FTW_DNR || type == FTW_NS) {
		say(path, "error: cannot read");
		count(FAILED, path);
	}
	if (type != FTW_F || is_our_temporary(path))
		return 0;	/* symlinks (FTW_SL) are skipped: their targets are walked or named */
	if (walked.n == walked.cap) {
		size_t cap = walked.cap ? walked.cap * 2 : 256;
		char **v = realloc(walked.v, cap * sizeof *v);
		if (!v) {
			walked.oom = true;
			return 1;
		}
		walked.v = v;
		walked.cap = cap;
	}
	if (!(walked.v[walked.n] = strdup(path))) {
		walked.oom = true;
		return 1;
	}
	walked.n++;
	return 0;
}

static void process(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0) {
		say(path, "error: %s", strerror(errno));
		count(FAILED, path);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		walked.n = 0;
		if (nftw(path, walk_entry, 64, FTW_PHYS) != 0 || walked.oom) {
			say(path, "error: %s", walked.oom ? "out of memory" : strerror(errno));
			count(FAILED, path);
		}
		for (size_t i = 0; i < walked.n; i++) {
			count(process_file(walked.v[i], false), walked.v[i]);
			free(walked.v[i]);
		}
		walked.n = 0;
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		/* A named link: patch what it points to, never replace the link. */
		char *real = realpath(path, NULL);
		if (!real) {
			say(path, "error: %s", strerror(errno));
			count(FAILED, path);
			return;
		}
		count(process_file(real, true), real);
		free(real);
		return;
	}
	count(process_file(path, true), path);
}

static int interp_machine(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_file ef;
	char why[128];
	if (fd < 0)
		return -1;
	int m = elf_open_fd(&ef, fd, why, sizeof why) == 0 ? ef.machine : -1;
	close(fd);
	return m;
}

static int machine_by_name(const char *name)
{
	static const int known[] = { EM_X86_64, EM_AARCH64, EM_386, EM_ARM, EM_PPC64, EM_RISCV };
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(elf_machine_name(known[i]), name) == 0)
			return known[i];
	return -1;
}

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
		if (reapply) {
			opt.interp = todo.v[k].interp;
			opt.machine = interp_machine(opt.interp);
			if (opt.machine < 0) {
				say(path, "error: its interpreter %s cannot be read here", opt.interp);
				o = FAILED;
			} else {
				o = process_file(path, true);
			}
		} else {
			o = process_file(path, true);
			if (o != DONE && o != QUEUED && o != FAILED)
				patchlist_remove(&opt.record, path);	/* nothing to restore */
		}
		count(o, path);
	}
	flush_batch();
	int r = finish();
	patchlist_free(&todo);
	return r;
}

static const char usage[] =
	"usage: cudaload-patch [--interp PATH] [--machine M] [--all] [--dry-run] [--break-links] PATH...\n"
	"       cudaload-patch --restore [--dry-run] PATH...\n"
	"       cudaload-patch --check PATH...\n"
	"       cudaload-patch --reapply | --restore-recorded [--quiet]\n"
	"       cudaload-patch --version | --help\n"
	"Sets the program interpreter of executables to cudaload, recording the\n"
	"original so cudaload runs each with the loader it was built for, and\n"
	"--restore puts it back byte for byte.  Directories are walked: there only\n"
	"programs that use CUDA (by DT_NEEDED) are patched, unless --all.\n"
	"  --interp PATH    cudaload as it will be on the target (default: the\n"
	"                   cudaload beside this program)\n"
	"  --machine M      the target machine (default: that of --interp's file)\n"
	"  --break-links    patch files with several hard links, this name only\n"
	"  --reapply        patch again the recorded programs that lost their patch\n"
	"                   (a package upgrade replaced them)\n"
	"  --restore-recorded  restore every recorded program\n"
	"  --quiet          print errors only\n"
	"  --no-record      keep what is patched out of the record (an image)\n"
	"Run as root where " PATCHLIST_DIR " exists (the package makes it), patched\n"
	"programs are recorded in " PATCHLIST_FILE " (or the file\n"
	"CUDALOAD_PATCH_RECORD names) for --reapply and --restore-recorded.\n"
	"Exit status: 0 done, 1 something failed, 100 usage error.\n";

int main(int argc, char **argv)
{
	const char *machine = NULL;
	char self_interp[CL_PATH_MAX];
	int i;
	enum { NAMED, REAPPLY, RESTORE_RECORDED } from_record = NAMED;
	bool no_record = false;

	elfpatch_init();
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--interp") == 0 && i + 1 < argc) {
			opt.interp = argv[++i];
		} else if (strcmp(a, "--machine") == 0 && i + 1 < argc) {
			machine = argv[++i];
		} else if (strcmp(a, "--all") == 0) {
			opt.all = true;
		} else if (strcmp(a, "--dry-run") == 0) {
			opt.dry_run = true;
		} else if (strcmp(a, "--break-links") == 0) {
			opt.break_links = true;
		} else if (strcmp(a, "--restore") == 0) {
			opt.action = RESTORE;
		} else if (strcmp(a, "--check") == 0) {
			opt.action = CHECK;
		} else if (strcmp(a, "--reapply") == 0) {
			from_record = REAPPLY;
		} else if (strcmp(a, "--restore-recorded") == 0) {
			from_record = RESTORE_RECORDED;
		} else if (strcmp(a, "--quiet") == 0) {
			opt.quiet = true;
		} else if (strcmp(a, "--no-record") == 0) {
			no_record = true;
		} else if (strcmp(a, "--version") == 0) {
			printf("cudaload-patch %s\n", CUDALOAD_VERSION);
			return 0;
		} else if (strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else {
			fprintf(stderr, "cudaload-patch: %s: unknown option\n%s", a, usage);
			return EXIT_USAGE;
		}
	}
	if ((i >= argc) != (from_record != NAMED)) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (from_record == RESTORE_RECORDED)
		opt.action = RESTORE;

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

	if (opt.action == PATCH) {
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
		opt.machine = machine ? machine_by_name(machine) : interp_machine(opt.interp);
		/* A program is recorded only when it runs through this system's
		 * cudaload: not one patched for an image of another machine. */
		if (opt.recording && !getenv("CUDALOAD_PATCH_RECORD") &&
		    interp_machine(opt.interp) != opt.machine)
			opt.recording = false;
		if (opt.machine < 0) {
			fprintf(stderr, machine ? "cudaload-patch: --machine %s: unknown machine\n"
						: "cudaload-patch: cannot read the machine of %s here: give --machine\n",
				machine ? machine : opt.interp);
			return EXIT_USAGE;
		}
	}
	opt.progress = isatty(STDERR_FILENO);

	for (; i < argc; i++)
		process(argv[i]);
	flush_batch();
	progress_clear();
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
	if (opt.action != CHECK && !opt.quiet) {
		unsigned long skipped = 0;
		for (int o = SKIP_NOT_ELF; o < N_OUTCOMES; o++)
			skipped += opt.count[o];
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
	return opt.count[FAILED] ? 1 : 0;
}
