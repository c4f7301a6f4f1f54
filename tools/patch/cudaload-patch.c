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
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/base/identity.h"
#include "../../common/base/inroot.h"
#include "../../common/base/sys.h"
#include "../../common/elf/elfread.h"
#include "../../common/stores/patchlist.h"
#include "batch.h"
#include "files.h"
#include "install.h"
#include "run.h"
#include "walk.h"

#ifndef CUDALOAD_VERSION
#define CUDALOAD_VERSION "0.1.0"
#endif

#define EXIT_USAGE 100
#define EXIT_SKIPPED 2

IDENTITY_NOTE(IDENTITY_NOTE_TYPE_TOOL);

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
		count_outcome(opt, &run->tally, o, path);
	}
	flush_batch(opt, &run->batch, &run->tally, record);
	run->tally.named_skipped = 0;	/* already patched, or gone: nothing to report as 2 */
	int r = finish(opt, run);
	patchlist_free(&todo);
	return r;
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
	int r = dest[0] == '/' ? install(opt, run, src, dest)
			       : usage_error("--install %s %s: DEST is a path as the image names it "
					     "(/usr/bin/...)", src, dest);
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
				printf("%s%s %lu", sep, outcome_name(o), tally->count[o]);
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

