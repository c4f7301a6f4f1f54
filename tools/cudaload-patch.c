/*
 * cudaload-patch: make programs start through cudaload, and undo it.
 *
 *   cudaload-patch [--interp PATH] [--machine M] [--all] [--dry-run] [--break-links] PATH...
 *   cudaload-patch --restore PATH...
 *   cudaload-patch --check PATH...
 *
 * A file named on the command line is patched when it is a dynamically linked
 * executable.  In a directory walk only programs that use CUDA are (a
 * DT_NEEDED of libcuda, libcudart, libcublas, libcudnn, libnvinfer ...; see
 * elfpatch.c), unless --all.  Every write goes to a temporary file in the
 * same directory that is fsynced and renamed over the original, keeping its
 * mode, owner and extended attributes: the original is intact or fully
 * replaced, never half-written.  A file with several hard links is skipped
 * unless --break-links (then only the named link is patched).
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

#ifndef CUDALOAD_VERSION
#define CUDALOAD_VERSION "0.1.0"
#endif

#define EXIT_USAGE 100

enum action { PATCH, RESTORE, CHECK };

enum outcome {
	DONE, FAILED, SKIP_NOT_ELF, SKIP_SCRIPT, SKIP_STATIC, SKIP_LIBRARY, SKIP_OBJECT,
	SKIP_MACHINE, SKIP_PATCHED, SKIP_NO_CUDA, SKIP_LINKS, SKIP_SAME, SKIP_NOT_PATCHED,
	SKIP_SPECIAL, N_OUTCOMES
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
	bool progress;
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

/* Write the planned file beside `path` and rename it over the original. */
static int replace_file(const char *path, int srcfd, const struct stat *st,
			const unsigned char *img, const struct patch_plan *plan,
			char *why, size_t cap)
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
	else if (fsync(fd) < 0)
		snprintf(why, cap, "cannot write: %s", strerror(errno)), r = -1;
	if (close(fd) < 0 && r == 0)
		snprintf(why, cap, "cannot write: %s", strerror(errno)), r = -1;
	if (r == 0 && rename(tmp, path) < 0)
		snprintf(why, cap, "cannot replace it: %s", strerror(errno)), r = -1;
	if (r < 0) {
		unlink(tmp);
		return -1;
	}
	char dirpath[CL_PATH_MAX];
	snprintf(dirpath, sizeof dirpath, "%.*s", dirlen, dir);
	int dfd = open(dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);	/* make the rename itself durable */
		close(dfd);
	}
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
		const char *verb = opt.action == RESTORE ? "restored" : "patched";
		if (opt.dry_run) {
			say(path, "would be %s", verb);
		} else if (replace_file(path, fd, &st, img, &plan, why, sizeof why) < 0) {
			say(path, "error: %s; left as it was", why);
			o = FAILED;
		} else if (opt.action == RESTORE) {
			say(path, "restored, interpreter %s", f.recorded);
		} else {
			say(path, "patched, interpreter %s (was %s)%s", opt.interp, f.interp,
			    plan.grew ? ", grown" : "");
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

static void count(enum outcome o, const char *path)
{
	opt.count[o]++;
	opt.seen++;
	if (opt.progress && opt.seen % 64 == 0)
		fprintf(stderr, "\r\033[K%lu files, %lu %s, %lu failed: %.60s", opt.seen,
			opt.count[DONE], opt.action == RESTORE ? "restored" : "patched",
			opt.count[FAILED], path);
}

static int walk_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (type == FTW_F)
		count(process_file(path, false), path);
	else if (type == FTW_DNR || type == FTW_NS) {
		say(path, "error: cannot read");
		count(FAILED, path);
	}
	return 0;	/* symlinks (FTW_SL) are skipped: their targets are walked or named */
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
		if (nftw(path, walk_entry, 64, FTW_PHYS) < 0) {
			say(path, "error: %s", strerror(errno));
			count(FAILED, path);
		}
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

static const char usage[] =
	"usage: cudaload-patch [--interp PATH] [--machine M] [--all] [--dry-run] [--break-links] PATH...\n"
	"       cudaload-patch --restore [--dry-run] PATH...\n"
	"       cudaload-patch --check PATH...\n"
	"Sets the program interpreter of executables to cudaload, recording the\n"
	"original so cudaload runs each with the loader it was built for, and\n"
	"--restore puts it back byte for byte.  Directories are walked: there only\n"
	"programs that use CUDA (by DT_NEEDED) are patched, unless --all.\n"
	"  --interp PATH    cudaload as it will be on the target (default: the\n"
	"                   cudaload beside this program)\n"
	"  --machine M      the target machine (default: that of --interp's file)\n"
	"  --break-links    patch files with several hard links, this name only\n";

int main(int argc, char **argv)
{
	const char *machine = NULL;
	char self_interp[CL_PATH_MAX];
	int i;

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
	if (i >= argc) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}

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
	progress_clear();

	if (opt.action != CHECK) {
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
